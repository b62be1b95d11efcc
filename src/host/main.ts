import * as vscode from 'vscode';
import { registerCommands } from './host/commands';
import { createLogger } from './host/logger';
import { ModelProvider, readModelSettings, selectModelFlow } from './host/modelProvider';
import { Runtime } from './host/runtime';
import { AgentSidebarBackend } from './host/sidebarBackend';
import { SidebarProvider } from './host/sidebarProvider';
import { toHostMessage } from './host/viewMapping';

/** What `activate` returns: for tests and other extensions. */
export interface TasklaneApi {
  /** The folder holding Tasklane's state for this workspace. */
  storageUri: string | undefined;
  /** Resolves when the store is open and the agent runs. */
  ready: Promise<void>;
}

/** Composition root: build services, register contributions, nothing else. */
export function activate(context: vscode.ExtensionContext): TasklaneApi {
  const channel = vscode.window.createOutputChannel('Tasklane', { log: true });
  const logger = createLogger(channel);
  const models = new ModelProvider(context.secrets);
  const runtime = new Runtime(context, logger, models);
  const sidebar = new SidebarProvider(context.extensionUri, new AgentSidebarBackend(runtime, models), logger);
  const refreshSidebar = () => sidebar.refresh();

  context.subscriptions.push(
    channel,
    runtime,
    vscode.window.registerWebviewViewProvider(SidebarProvider.viewType, sidebar),
    runtime.onDidChange((change) => {
      const message = toHostMessage(change, () => runtime.current?.agent.snapshot().tasks ?? []);
      if (message) sidebar.post(message);
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(refreshSidebar),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('tasklane.model') && void refreshSidebar()),
    vscode.lm.onDidChangeChatModels(refreshSidebar),
    context.secrets.onDidChange(refreshSidebar),
    ...registerCommands({ runtime, models, channel, refreshSidebar }),
  );

  const ready = runtime.ready.then(
    () => refreshSidebar(),
    () => refreshSidebar(),
  );
  void ready.then(() => offerModelSetup(models));
  return { storageUri: context.storageUri?.fsPath, ready: runtime.ready.then(() => undefined) };
}

/** `auto` with nothing usable: walk the user through choosing a provider, once per start. */
async function offerModelSetup(models: ModelProvider): Promise<void> {
  if (readModelSettings().provider !== 'auto') return;
  const status = await models.status();
  if (!status.problem) return;
  const choice = await vscode.window.showInformationMessage('Tasklane needs a model to work with.', 'Choose a model');
  if (choice) await selectModelFlow(models);
}

export function deactivate(): void {
  // Disposables in context.subscriptions close the store; nothing else to do.
}
