import type { McpServerStateView, McpServerView } from './mcpProtocol';

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

const STATE_LABEL: Record<McpServerStateView, string> = {
  untrusted: 'not trusted',
  restricted: 'off in Restricted Mode',
  idle: 'idle',
  starting: 'starting',
  running: 'running',
  crashed: 'crashed',
  failed: 'failed',
};

export function mcpRowModel(server: McpServerView): McpRowModel {
  const origin = server.source === 'workspace' ? 'workspace .vscode/mcp.json' : 'user settings';
  const tools = server.state === 'running' && server.tools !== undefined ? ` · ${server.tools} tool${server.tools === 1 ? '' : 's'}` : '';
  // Trusted only because enabled chores declare it: say so, never "not trusted".
  const chores = server.state !== 'untrusted' && server.state !== 'restricted' ? (server.trustedFor ?? []) : [];
  const trustedFor = chores.length ? ` · trusted for chore${chores.length === 1 ? '' : 's'} ${chores.map((c) => c.chore).join(', ')}` : '';
  const trustNote = chores.length
    ? `Trusted only through ${chores.length === 1 ? 'the enabled chore' : 'the enabled chores'} ${chores.map((c) => `${c.chore}, which may call ${c.tools.join(', ')}`).join('; ')}.`
    : undefined;
  const stateLabel = `${STATE_LABEL[server.state]}${tools}${trustedFor}`;
  const tone =
    server.state === 'failed' || server.state === 'crashed' ? 'error' : server.state === 'untrusted' || server.state === 'restricted' ? 'warn' : 'ok';
  // The last error matters while the server is broken; once it runs again it is history.
  const lastError = server.lastError && (tone === 'error' || server.state === 'idle' || server.state === 'starting') ? server.lastError : undefined;
  const canTrust = server.state === 'untrusted' && server.source === 'workspace';
  const ariaLabel = `MCP server ${server.name} from ${origin}: ${stateLabel}${lastError ? `. Last error: ${lastError}` : ''}`;
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
