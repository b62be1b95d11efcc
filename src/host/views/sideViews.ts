import * as vscode from 'vscode';
import type { ChoreHost } from '../chores/choreHost';
import type { McpHost } from '../mcp/mcpHost';
import type { Agent } from '../../core/engine/agent';
import { ChoresTree } from './choresTree';
import type { ChoreNode } from './choresTree';
import { McpTree } from './mcpTree';
import type { McpNode } from './mcpTree';
import { StorageTree } from './storageTree';

/** The view ids (package.json `contributes.views.tasklane`). */
export const SIDE_VIEWS = { chores: 'tasklane.chores', mcp: 'tasklane.mcpServers', storage: 'tasklane.storage' } as const;

/** What the side views need once the store is open. */
export interface SideViewServices {
  chores: ChoreHost;
  mcp: McpHost;
  agent: Agent;
}

const choreOf = (node: unknown): ChoreNode & { kind: 'chore' } => {
  const n = node as ChoreNode | undefined;
  if (n?.kind !== 'chore') throw new Error('Pick a chore in the Chores view.');
  return n;
};
const serverOf = (node: unknown): McpNode & { kind: 'server' } => {
  const n = node as McpNode | undefined;
  if (n?.kind !== 'server') throw new Error('Pick a server in the MCP servers view.');
  return n;
};

/**
 * The Tasklane container's native views next to the chat: Chores, MCP servers and Storage, each a
 * tree, and the commands of their rows. A row's command only names its chore or server to the
 * palette command that owns the gesture (which asks in its modal where it always does: Enable,
 * Trust), so the views add no second way to change anything.
 */
export function registerSideViews(ready: Promise<SideViewServices>): vscode.Disposable[] {
  const chores = new ChoresTree();
  const mcp = new McpTree();
  const storage = new StorageTree();
  const storageView = vscode.window.createTreeView(SIDE_VIEWS.storage, { treeDataProvider: storage });
  void ready.then(
    (services) => {
      chores.attach(services.chores);
      mcp.attach(services.mcp);
      storage.attach({ storage: () => services.agent.history.storage(), deadLetters: () => services.agent.deadLetters.list().length });
    },
    () => undefined,
  );
  /** A storage gesture, then the view read again (the palette command reports what it did). */
  const run = (command: string) => async () => {
    await vscode.commands.executeCommand(command);
    storage.refresh();
  };
  return [
    chores,
    mcp,
    storage,
    vscode.window.createTreeView(SIDE_VIEWS.chores, { treeDataProvider: chores, showCollapseAll: true }),
    vscode.window.createTreeView(SIDE_VIEWS.mcp, { treeDataProvider: mcp }),
    storageView,
    // Sizes change while the view is away: read them again when it is shown.
    storageView.onDidChangeVisibility((e) => e.visible && storage.refresh()),
    vscode.commands.registerCommand('tasklane.chores.runNow', (node: unknown) =>
      vscode.commands.executeCommand('tasklane.runChoreNow', choreOf(node).chore.id),
    ),
    // The hash of the definition the row shows: a chore changed meanwhile is refused, not enabled.
    vscode.commands.registerCommand('tasklane.chores.enable', (node: unknown) => {
      const { chore } = choreOf(node);
      return vscode.commands.executeCommand('tasklane.enableChore', chore.id, chore.review?.definitionHash);
    }),
    vscode.commands.registerCommand('tasklane.chores.disable', (node: unknown) =>
      vscode.commands.executeCommand('tasklane.disableChore', choreOf(node).chore.id),
    ),
    vscode.commands.registerCommand('tasklane.chores.resume', (node: unknown) =>
      vscode.commands.executeCommand('tasklane.resumeChore', choreOf(node).chore.id),
    ),
    vscode.commands.registerCommand('tasklane.chores.preview', (node: unknown) =>
      vscode.commands.executeCommand('tasklane.previewChore', choreOf(node).chore.id),
    ),
    vscode.commands.registerCommand('tasklane.chores.openFile', async () => (await ready).chores.handle({ type: 'chore.openFile' })),
    vscode.commands.registerCommand('tasklane.mcp.trust', (node: unknown) =>
      vscode.commands.executeCommand('tasklane.trustMcpServer', serverOf(node).row.name),
    ),
    vscode.commands.registerCommand('tasklane.mcp.distrust', (node: unknown) =>
      vscode.commands.executeCommand('tasklane.distrustMcpServer', serverOf(node).row.name),
    ),
    vscode.commands.registerCommand('tasklane.storage.refresh', () => storage.refresh()),
    vscode.commands.registerCommand('tasklane.storage.archive', run('tasklane.archiveNow')),
    vscode.commands.registerCommand('tasklane.storage.retryDeadLetters', run('tasklane.retryDeadLetters')),
    vscode.commands.registerCommand('tasklane.storage.dismissDeadLetters', run('tasklane.dismissDeadLetters')),
  ];
}
