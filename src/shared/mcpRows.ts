import type { McpServerStateView, McpServerView } from './mcpProtocol';
import { ENGLISH } from './translator';
import type { Translator } from './translator';

/** What one server's row says, before it becomes DOM (the MCP servers view's row; unit-tested: test/unit/webview/mcpPanel.test.ts). */
export interface McpRowModel {
  name: string;
  /** "workspace .vscode/mcp.json" or "user settings". */
  origin: string;
  state: McpServerStateView;
  /** The state as words: "not trusted", "idle", "running · 12 tools", "idle · trusted for chore triage"… */
  stateLabel: string;
  /** For a server trusted only through enabled chores: which chores, and the tools each may call (the tooltip). */
  trustNote?: string;
  /** `error` for failed/crashed (shown in the error colour), `warn` for untrusted or restricted, else `ok`. */
  tone: 'ok' | 'warn' | 'error';
  target: string;
  lastError?: string;
  /**
   * Only an untrusted repository server offers Trust… (user-settings servers are trusted by their
   * author). In Restricted Mode no row does: the chat view's Restricted Mode banner links to Manage
   * Workspace Trust, the one way out, and a server's consent is asked once the folder is trusted.
   */
  canTrust: boolean;
  /** The row's accessible name: everything a screen reader needs in one sentence. */
  ariaLabel: string;
}

/** The state in words, translated where the host shows it (the MCP servers view). */
function stateWords(l10n: Translator, state: McpServerStateView): string {
  switch (state) {
    case 'untrusted':
      return l10n.t('not trusted');
    case 'restricted':
      return l10n.t('off in Restricted Mode');
    case 'idle':
      return l10n.t('idle');
    case 'starting':
      return l10n.t('starting');
    case 'running':
      return l10n.t('running');
    case 'crashed':
      return l10n.t('crashed');
    case 'failed':
      return l10n.t('failed');
  }
}

/** One server's row; `l10n` is `vscode.l10n` in the host (English without it). */
export function mcpRowModel(server: McpServerView, l10n: Translator = ENGLISH): McpRowModel {
  const origin = server.source === 'workspace' ? l10n.t('workspace .vscode/mcp.json') : l10n.t('user settings');
  const tools =
    server.state === 'running' && server.tools !== undefined ? (server.tools === 1 ? l10n.t(' · 1 tool') : l10n.t(' · {0} tools', server.tools)) : '';
  // Trusted only because enabled chores declare it: say so, never "not trusted".
  const chores = server.state !== 'untrusted' && server.state !== 'restricted' ? (server.trustedFor ?? []) : [];
  const names = chores.map((c) => c.chore).join(', ');
  const trustedFor = chores.length ? (chores.length === 1 ? l10n.t(' · trusted for chore {0}', names) : l10n.t(' · trusted for chores {0}', names)) : '';
  const which = chores.map((c) => l10n.t('{0}, which may call {1}', c.chore, c.tools.join(', '))).join('; ');
  const trustNote = chores.length
    ? chores.length === 1
      ? l10n.t('Trusted only through the enabled chore {0}.', which)
      : l10n.t('Trusted only through the enabled chores {0}.', which)
    : undefined;
  const stateLabel = `${stateWords(l10n, server.state)}${tools}${trustedFor}`;
  const tone =
    server.state === 'failed' || server.state === 'crashed' ? 'error' : server.state === 'untrusted' || server.state === 'restricted' ? 'warn' : 'ok';
  // The last error matters while the server is broken; once it runs again it is history.
  const lastError = server.lastError && (tone === 'error' || server.state === 'idle' || server.state === 'starting') ? server.lastError : undefined;
  const canTrust = server.state === 'untrusted' && server.source === 'workspace';
  const ariaLabel = l10n.t('MCP server {0} from {1}: {2}', server.name, origin, stateLabel) + (lastError ? l10n.t('. Last error: {0}', lastError) : '');
  return {
    name: server.name,
    origin,
    state: server.state,
    stateLabel,
    ...(trustNote ? { trustNote } : {}),
    tone,
    target: server.target,
    ...(lastError ? { lastError } : {}),
    canTrust,
    ariaLabel,
  };
}
