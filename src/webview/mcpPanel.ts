import type { McpHostMessage, McpServerStateView, McpServerView, McpWebviewMessage } from '../shared/mcpProtocol';
import { h, KeptRows, keepingFocus, syncChildren } from './dom';

/** What one server's row says, before it becomes DOM (unit-tested on its own: test/unit/webview/mcpPanel.test.ts). */
export interface McpRowModel {
  name: string;
  /** "workspace .vscode/mcp.json" or "user settings". */
  origin: string;
  state: McpServerStateView;
  /** The state as words: "not trusted", "idle", "running · 12 tools"… */
  stateLabel: string;
  /** `error` for failed/crashed (shown in the error colour), `warn` for untrusted or restricted, else `ok`. */
  tone: 'ok' | 'warn' | 'error';
  target: string;
  lastError?: string;
  /**
   * Only an untrusted repository server offers Trust… (user-settings servers are trusted by their
   * author). In Restricted Mode no row does: the sidebar's Restricted Mode banner links to Manage
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
  const stateLabel = `${STATE_LABEL[server.state]}${tools}`;
  const tone =
    server.state === 'failed' || server.state === 'crashed' ? 'error' : server.state === 'untrusted' || server.state === 'restricted' ? 'warn' : 'ok';
  // The last error matters while the server is broken; once it runs again it is history.
  const lastError = server.lastError && (tone === 'error' || server.state === 'idle' || server.state === 'starting') ? server.lastError : undefined;
  const canTrust = server.state === 'untrusted' && server.source === 'workspace';
  const ariaLabel = `MCP server ${server.name} from ${origin}: ${stateLabel}${lastError ? `. Last error: ${lastError}` : ''}`;
  return { name: server.name, origin, state: server.state, stateLabel, tone, target: server.target, ...(lastError ? { lastError } : {}), canTrust, ariaLabel };
}

/**
 * The sidebar's "MCP servers" section: each configured server with where it is defined, its state
 * and last error, and Trust… for a repository's server (the host asks in a modal; nothing is
 * trusted from here). The section is hidden while no server is configured.
 */
export class McpPanel {
  private servers: McpServerView[] = [];
  /** A row whose model has not changed is kept as it is (its status is not announced again). */
  private readonly rows = new KeptRows<McpRowModel>(
    (model) => model.name,
    (model) => this.row(model),
  );

  constructor(
    private readonly section: HTMLElement,
    private readonly list: HTMLElement,
    private readonly note: HTMLElement,
    private readonly post: (message: McpWebviewMessage) => void,
  ) {
    this.render();
  }

  init(servers: McpServerView[] | undefined): void {
    this.servers = servers ?? [];
    this.render();
  }

  onMessage(message: { type: string }): boolean {
    if (message.type !== 'mcpServers') return false;
    this.servers = (message as McpHostMessage).servers;
    this.render();
    return true;
  }

  private render(): void {
    this.section.hidden = this.servers.length === 0;
    const broken = this.servers.filter((s) => s.state === 'failed' || s.state === 'crashed').length;
    const waiting = this.servers.filter((s) => s.state === 'untrusted' && s.source === 'workspace').length;
    const restricted = this.servers.some((s) => s.state === 'restricted');
    this.note.textContent = [restricted ? 'off in Restricted Mode' : '', broken ? `${broken} broken` : '', waiting ? `${waiting} not trusted` : '']
      .filter(Boolean)
      .join(', ');
    this.drawRows();
  }

  private drawRows(): void {
    const elements = this.rows.draw(this.servers.map(mcpRowModel));
    keepingFocus(this.list, 'data-server', () => syncChildren(this.list, elements));
  }

  private row(model: McpRowModel): HTMLElement {
    let trust: HTMLElement | null = null;
    if (model.canTrust) {
      trust = h('vscode-button', { class: 'mcp-trust', secondary: true, 'aria-label': `Trust the MCP server ${model.name}…` }, 'Trust…');
      trust.addEventListener('click', () => this.post({ type: 'mcp.trust', name: model.name }));
    }
    return h(
      'div',
      { class: `mcp-server tone-${model.tone}`, role: 'listitem', 'aria-label': model.ariaLabel, 'data-server': model.name, 'data-state': model.state },
      h('div', { class: 'mcp-line' }, h('span', { class: 'mcp-name' }, model.name), ' ', h('span', { class: 'mcp-state' }, model.stateLabel)),
      h('div', { class: 'mcp-meta', title: model.target }, `${model.origin} · ${model.target}`),
      model.lastError ? h('div', { class: 'mcp-error', role: 'status' }, `Last error: ${model.lastError}`) : null,
      trust,
    );
  }
}
