import * as vscode from 'vscode';
import { registerApprovalCommands } from './approvals/approvalCommands';
import { ApprovalService } from './approvals/approvalService';
import { registerChoreCommands } from './chores/choreCommands';
import { ChoreHost } from './chores/choreHost';
import { registerCommands } from './commands';
import { CommandExecutionHost, combineApprovalSections, registerCommandApprovalCommands } from './execution/commandHost';
import { createLogger } from './logger';
import { ModelProvider, readModelSettings, selectModelFlow } from './modelProvider';
import { Runtime } from './runtime';
import { AgentSidebarBackend } from './sidebarBackend';
import { SidebarProvider } from './sidebarProvider';
import { toHostMessages } from './viewMapping';

/** What the composition root hands back to the activation shim (src/extension.ts). */
export interface MainParts {
  sidebar: vscode.WebviewViewProvider;
  /** Resolves when the store is open and the agent runs. */
  ready: Promise<void>;
}

/**
 * Composition root: build services, register contributions, nothing else. Loaded from its own
 * bundle (dist/main.js) by the activation shim right after `activate` returns, so the SDKs, zod,
 * sql.js and the engine never sit on the activation path.
 */
export function start(context: vscode.ExtensionContext): MainParts {
  const channel = vscode.window.createOutputChannel('Tasklane', { log: true });
  const logger = createLogger(channel);
  const models = new ModelProvider(context.secrets);
  const commandExecution = new CommandExecutionHost(logger);
  const approvals = new ApprovalService(logger);
  const chores = new ChoreHost(logger, context.secrets);
  const runtime = new Runtime(context, logger, models, { extensions: [commandExecution, approvals, chores] });
  const approvalSection = combineApprovalSections(approvals, commandExecution);
  const sidebar = new SidebarProvider(context.extensionUri, new AgentSidebarBackend(runtime, models, { approvals: approvalSection, chores }), logger);
  const refreshSidebar = () => sidebar.refresh();

  context.subscriptions.push(
    channel,
    runtime,
    vscode.window.registerWebviewViewProvider(SidebarProvider.viewType, sidebar),
    runtime.onDidChange((change) => {
      const row = (sessionId: string) => runtime.current?.agent.sessionRow(sessionId) ?? { session: undefined, tasks: [] };
      for (const message of toHostMessages(change, row)) sidebar.post(message);
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(refreshSidebar),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('tasklane.model') && void refreshSidebar()),
    vscode.lm.onDidChangeChatModels(refreshSidebar),
    context.secrets.onDidChange(refreshSidebar),
    ...registerCommands({ runtime, models, channel, refreshSidebar, chores, approvals: approvalSection }),
    chores,
    chores.onDidPost((message) => sidebar.post(message)),
    ...registerChoreCommands(chores),
    commandExecution.onDidPost((message) => sidebar.post(message)),
    ...registerCommandApprovalCommands(commandExecution),
    approvals,
    approvals.onDidChange((message) => sidebar.post(message)),
    approvals.onDidChange((message) => chores.followApprovals(message)),
    ...registerApprovalCommands([approvals, commandExecution]),
  );

  const ready = runtime.ready.then(
    () => refreshSidebar(),
    () => refreshSidebar(),
  );
  void ready.then(() => offerModelSetup(models));
  return { sidebar, ready: runtime.ready.then(() => undefined) };
}

/** `auto` with nothing usable: walk the user through choosing a provider, once per start. */
async function offerModelSetup(models: ModelProvider): Promise<void> {
  if (readModelSettings().provider !== 'auto') return;
  const status = await models.status();
  if (!status.problem) return;
  const choice = await vscode.window.showInformationMessage('Tasklane needs a model to work with.', 'Choose a model');
  if (choice) await selectModelFlow(models);
}
