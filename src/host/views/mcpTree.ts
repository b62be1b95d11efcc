import * as vscode from 'vscode';
import type { McpHostStatus } from '../mcp/mcpHost';
import { mcpRowModel } from '../../shared/mcpRows';
import type { McpRowModel } from '../../shared/mcpRows';
import { toMcpServerView } from '../mcp/mcpView';
import { throttled } from './throttle';
import { SPACE } from './choresTree';
import { forLabel } from '../../core/security/surfaceText';

/** What the MCP servers view reads: the MCP host once the store is open (src/host/mcp/mcpHost.ts). */
export interface McpSource {
  status(): McpHostStatus[];
  onDidChange(listener: () => void): vscode.Disposable;
}

/** A server's row, with whether the person may take back a repository server's trust. */
export type McpNode = { kind: 'server'; row: McpRowModel; canDistrust: boolean } | { kind: 'line'; id: string; label: string; icon?: string };

const TONE_ICON: Record<McpRowModel['tone'], vscode.ThemeIcon> = {
  ok: new vscode.ThemeIcon('server'),
  warn: new vscode.ThemeIcon('shield', new vscode.ThemeColor('list.warningForeground')),
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground')),
};

/**
 * The MCP servers view (`tasklane.mcpServers`): each configured server with where it is defined,
 * its state and last error; Trust… on a repository's server waiting for the person (the command
 * asks in a modal with the command line), Stop Trusting on one trusted. Hidden while no server is
 * configured (`tasklane.hasMcpServers`).
 */
export class McpTree implements vscode.TreeDataProvider<McpNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<McpNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private source: McpSource | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** The rows last drawn: a change that draws the same rows redraws nothing (a hovered action stays put). */
  private drawn = '';
  private readonly refresh = throttled(100, () => {
    const rows = JSON.stringify(this.getChildren());
    if (rows === this.drawn) return;
    this.drawn = rows;
    this.changed.fire(undefined);
    this.setContext();
  });

  attach(source: McpSource): void {
    this.source = source;
    this.disposables.push(source.onDidChange(() => this.refresh()));
    this.drawn = JSON.stringify(this.getChildren());
    this.changed.fire(undefined);
    this.setContext();
  }

  private setContext(): void {
    void vscode.commands.executeCommand('setContext', 'tasklane.hasMcpServers', (this.source?.status().length ?? 0) > 0);
  }

  getChildren(node?: McpNode): McpNode[] {
    if (!this.source) return [];
    if (!node)
      return this.source.status().map((status) => ({
        kind: 'server',
        row: mcpRowModel(toMcpServerView(status), vscode.l10n),
        canDistrust: status.consent === 'given' && status.source === 'workspace',
      }));
    if (node.kind === 'server')
      return [
        { kind: 'line', id: `${node.row.name}/target`, label: `${node.row.origin} · ${node.row.target}` },
        ...(node.row.lastError
          ? [{ kind: 'line' as const, id: `${node.row.name}/error`, label: vscode.l10n.t('Last error: {0}', node.row.lastError), icon: 'error' }]
          : []),
      ];
    return [];
  }

  getTreeItem(node: McpNode): vscode.TreeItem {
    if (node.kind === 'line') {
      // A server's command line, URL or error: the repository's or the server's words.
      const label = forLabel(node.label);
      const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
      item.id = `line/${node.id}`;
      item.tooltip = label;
      if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon);
      return item;
    }
    const { row } = node;
    // The name, where it is defined, its command line and its error come from a config file or the
    // server; the state label and trust note are Tasklane's, neutralised alike (one rule per row).
    const name = forLabel(row.name);
    const state = forLabel(row.stateLabel);
    const where = `${forLabel(row.origin)} · ${forLabel(row.target)}`;
    const error = row.lastError ? forLabel(row.lastError) : undefined;
    // A broken server opens by itself: its error is what the person needs to read.
    const item = new vscode.TreeItem(
      `${name}${SPACE}`,
      row.tone === 'error' ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = `server/${row.name}`;
    item.description = state;
    item.tooltip = `${name}: ${state}\n${where}${row.trustNote ? `\n${forLabel(row.trustNote)}` : ''}${error ? `\n${vscode.l10n.t('Last error: {0}', error)}` : ''}`;
    // What the row shows (name, state), then where it comes from and its error.
    item.accessibilityInformation = {
      label: vscode.l10n.t('{0} {1}: MCP server from {2}', name, state, forLabel(row.origin)) + (error ? vscode.l10n.t('. Last error: {0}', error) : ''),
    };
    item.iconPath = TONE_ICON[row.tone];
    item.contextValue = ['mcpServer', `state-${row.state}`, row.canTrust ? 'canTrust' : '', node.canDistrust ? 'canDistrust' : ''].filter(Boolean).join(' ');
    return item;
  }

  dispose(): void {
    this.refresh.cancel();
    for (const d of this.disposables) d.dispose();
    this.changed.dispose();
  }
}
