import * as vscode from 'vscode';
import { systemClock } from '../core/ports';
import { MODEL_KEY_VARIABLES, Redactor } from '../core/security/redact';
import { registerChatParticipant } from './agentTools/chatParticipant';
import { registerLmTools } from './agentTools/lmTools';
import { TasklaneOps } from './agentTools/tasklaneOps';
import { registerApprovalCommands } from './approvals/approvalCommands';
import { registerApprovalLinks } from './approvals/approvalLinks';
import { resumeParkedRun } from '../core/chores/budgetPause';
import { registerDiffTitleCommands } from './approvals/diffTitleCommands';
import { registerChoreCommands } from './chores/choreCommands';
import { registerChorePreview } from './chores/chorePreviewCommands';
import { registerCommands } from './commands';
import { registerCommandApprovalCommands } from './execution/commandHost';
import { registerHistoryCommands } from './historyCommands';
import { registerHistoryPick } from './historyPick';
import { Attention } from './attention';
import { ContextPicker, selectionAttachment } from './context/contextPicker';
import { createLogger } from './logger';
import { registerMcpCommands } from './mcp/mcpCommands';
import { McpOAuth } from '../core/mcp/mcpOAuth';
import { ConsentDialogs } from './consentDialog';
import { ModelProvider, offerModelSetup } from './modelProvider';
import { registerMemoryReview } from './memoryReview';
import { redactingSecrets } from './redactingSecrets';
import { ReplyActions } from './reply/replyActions';
import { Runtime } from './runtime';
import { AgentSidebarBackend } from './sidebarBackend';
import { TasklaneSettings } from './settings';
import { SidebarProvider } from './sidebarProvider';
import type { StoreServices } from './storeServices';
import { toHostMessages } from './viewMapping';
import { StepPresenter } from './stepPresenter';
import { registerSideViews } from './views/sideViews';
import { registerPlanner } from './planner/plannerHost';
import { notice } from './notice';

/** What the composition root hands back to the activation shim (src/extension.ts). */
export interface MainParts {
  sidebar: vscode.WebviewViewProvider;
  /** Resolves when the store is open and the agent runs. */
  ready: Promise<void>;
  /** The proposed side of a diff (`tasklane-proposed:`), once the store is open; registered by the shim. */
  proposedFiles: Promise<vscode.FileSystemProvider>;
}

/**
 * Composition root, in two halves. This one builds what exists before the store opens (log
 * channel, clock, Workspace Trust, models, the sidebar) and registers every contribution at once;
 * `Runtime` opens the store and `createStoreServices` (src/host/storeServices.ts) builds the rest,
 * complete. Commands and sidebar gestures wait on `runtime.ready`, which resolves with those
 * services. Loaded from its own bundle (dist/main.js) by the activation shim right after
 * `activate` returns, so the SDKs, zod, sql.js and the engine never sit on the activation path.
 */
export function start(context: vscode.ExtensionContext): MainParts {
  const channel = vscode.window.createOutputChannel('Tasklane', { log: true });
  const logger = createLogger(channel);
  const clock = systemClock;
  // The one reading of Workspace Trust every part is given (Restricted Mode: chat only).
  const trusted = () => vscode.workspace.isTrusted;
  // Every setting is read through this one object; those a repository must not set come from user settings only.
  const settings = new TasklaneSettings(logger);
  // One Redactor for the window: it learns every secret read through `secrets` and the model keys
  // in the environment, and every writer of traces and payloads uses it.
  const redactor = new Redactor();
  for (const name of MODEL_KEY_VARIABLES) redactor.addSecret(process.env[name]);
  const secrets = redactingSecrets(context.secrets, redactor);
  const models = new ModelProvider(secrets, settings, logger);
  const runtime = new Runtime(context, { logger, clock, trusted, models, secrets, redactor });
  const ready = runtime.ready;
  // Propose as Edit from a reply goes to the change sets (an approval card), once the store is open.
  const contextPicker = new ContextPicker(
    trusted,
    () => {
      const mcp = runtime.current?.mcp;
      return mcp ? { context: mcp.context, available: () => mcp.servers.runnable().length > 0 } : undefined;
    },
    () => runtime.current?.workspace,
  );
  const replies = new ReplyActions(logger, { proposeUserEdit: async (input) => (await ready).changeSets.proposeUserEdit(input) });
  const sidebar = new SidebarProvider(
    context.extensionUri,
    new AgentSidebarBackend(runtime, models, trusted, {
      replies,
      context: contextPicker,
      runCommand: (command) => vscode.commands.executeCommand(command),
      l10n: vscode.l10n,
    }),
    logger,
  );
  const refreshSidebar = () => sidebar.refresh();
  // A model, key or provider change is news for the banner only: the rest of the view stays as the
  // person has it (scroll position, an open card, a half-typed reason), unlike a full refresh.
  const refreshModel = () =>
    models.status().then(
      (model) => sidebar.post({ type: 'model', model }),
      (e) => logger.warn('HOST', `could not read the model status for the sidebar: ${(e as Error).message}`),
    );
  const attention = new Attention(sidebar, logger);
  // Step rows of the thread, written from every task's events as they happen.
  const steps = new StepPresenter(vscode.l10n);
  // A part of the services, for the commands that need it. A failed start is reported by the
  // runtime (log, sidebar); the commands then fail with it, so nothing is left unhandled here.
  const part = <T>(pick: (services: StoreServices) => T): Promise<T> => {
    const picked = ready.then(pick);
    picked.catch(() => undefined);
    return picked;
  };

  const agentOps = new TasklaneOps(ready, trusted);
  // The modal every decision by the person goes through, commands called with arguments included.
  const dialogs = new ConsentDialogs();
  context.subscriptions.push(
    channel,
    settings,
    runtime,
    vscode.window.registerWebviewViewProvider(SidebarProvider.viewType, sidebar),
    runtime.onDidChange((change) => {
      const row = (sessionId: string) => runtime.current?.agent.views.listRow(sessionId);
      const edits = (taskId: string) => runtime.current?.changeSets.edits(taskId) ?? 'none';
      for (const message of toHostMessages(change, row, steps, edits)) sidebar.post(message);
    }),
    // Approval cards and tasks drawn again (Revert edits came or went) reach the sidebar; chore
    // messages are for the Chores tree and attention only.
    runtime.onDidPost(
      (message) => (message.type === 'approvalPatch' || message.type === 'approvalRemoved' || message.type === 'taskPatch') && sidebar.post(message),
    ),
    attention,
    runtime.onDidChange((change) => attention.onAgentChange(change)),
    runtime.onDidPost((message) => attention.onHostMessage(message)),
    vscode.workspace.onDidGrantWorkspaceTrust(refreshSidebar),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('tasklane.model') && void refreshModel()),
    vscode.lm.onDidChangeChatModels(refreshModel),
    context.secrets.onDidChange(refreshModel),
    // Add to Tasklane (editor context menu, Ctrl/Cmd+Alt+L): the selection becomes a chip in the sidebar.
    vscode.commands.registerCommand('tasklane.addSelection', async () => {
      try {
        await sidebar.attach(selectionAttachment());
      } catch (error) {
        void vscode.window.showWarningMessage(notice`Tasklane: nothing attached: ${(error as Error).message}.`);
      }
    }),
    ...registerCommands({ runtime, models, channel, refreshModel, trusted, dialogs, showSession: (id) => sidebar.showSession(id) }),
    dialogs,
    ...registerChoreCommands(
      part((s) => s.chores),
      secrets,
      dialogs,
    ),
    ...registerChorePreview(
      part((s) => s.chores),
      () => settings.modelCost(),
    ),
    ...registerCommandApprovalCommands(
      part((s) => s.commands),
      dialogs,
    ),
    ...registerApprovalCommands(
      part((s) => s.approvalOwners),
      dialogs,
    ),
    // Approve and Reject in the title bar of a proposed change's diff.
    ...registerDiffTitleCommands(part((s) => s.changeSets)),
    // Approval links from chore escalations: the proposal's diff, or a command's card in the sidebar.
    ...registerApprovalLinks(
      context.extension.id,
      part((s) => ({
        openProposal: (id: string) => s.changeSets.openProposal(id),
        commandApprovals: () => s.commands.list(),
        ownsCommand: (id: string) => s.commands.owns(id),
        showSession: (sessionId: string) => sidebar.showSession(sessionId),
      })),
      part((s) => ({
        run: (runId: string) => s.chores.run(runId),
        choreName: (choreId: string) => s.chores.validChores().find((c) => c.id === choreId)?.name,
        // Resume links: the chore as the runner has it (loaded and enabled), and its Resume for just this run.
        chore: (choreId: string) => s.chores.runner.chore(choreId),
        showTask: async (taskId: string) => void (await vscode.commands.executeCommand('tasklane.showTask', taskId)),
        resume: (runId: string, choreId: string) =>
          resumeParkedRun({ active: () => s.chores.runLog.active().filter((r) => r.runId === runId) }, choreId, (taskId) => s.agent.continueTask(taskId)),
        now: () => Date.now(),
        confirm: (question: string, detail: string, action: string) => dialogs.confirm(question, detail, action, 'resume-chore-run'),
      })),
      // The browser coming back from an MCP server's sign-in.
      { [McpOAuth.path]: (uri) => void part((s) => s.mcp).then((mcp) => mcp.handleRedirect(uri.toString(true))) },
    ),
    ...registerMcpCommands(
      part((s) => s.mcp),
      dialogs,
    ),
    vscode.commands.registerCommand('tasklane.enableWorkspaceChecks', async () => (await part((s) => s.checks)).enable(dialogs)),
    registerMemoryReview(
      part((s) => s.agent),
      dialogs,
    ),
    ...registerHistoryCommands(runtime),
    // Chores, MCP servers and Storage: native views of their own next to the chat.
    ...registerSideViews(part((s) => s)),
    // The planner's suggestions (a view shown while tasklane.planner.enabled is on) and its timer.
    ...registerPlanner({
      planner: part((s) => s.planner),
      enabled: () => trusted() && settings.planner().enabled,
      logger,
      openTask: async (taskId) => void (await vscode.commands.executeCommand('tasklane.showTask', taskId)),
    }),
    // Tasklane's queue offered to VS Code's own agents (language model tools, @tasklane in Chat).
    ...registerLmTools(agentOps, dialogs),
    registerChatParticipant(agentOps, context.extensionUri),
    // The view title's actions (codicons): a new chat and the conversations.
    vscode.commands.registerCommand('tasklane.newChat', () => sidebar.show({ type: 'view.newChat' })),
    // History is a native quick pick of the conversations (historyPick.ts); picking one shows it here.
    registerHistoryPick(runtime, (sessionId) => sidebar.showSession(sessionId)),
    // The chat participant's links: a task's session (its id is the task's), or just the sidebar.
    vscode.commands.registerCommand('tasklane.showTask', async (taskId?: unknown) => {
      const task = typeof taskId === 'string' ? runtime.current?.agent.views.snapshot().tasks.find((t) => t.id === taskId) : undefined;
      if (task) await sidebar.showSession(task.sessionId);
      else await vscode.commands.executeCommand(`${SidebarProvider.viewType}.focus`);
    }),
  );

  const started = ready.then(
    async (services) => {
      attention.seed(services.agent.views.snapshot().tasks, await services.approvals.list());
      await refreshSidebar();
    },
    () => refreshSidebar(),
  );
  // Once per start, after the sidebar shows the state; its failure is only a missed prompt.
  started.then(() => offerModelSetup(models)).catch((error) => logger.warn('MODEL', `could not offer the model set-up: ${(error as Error).message}`));
  settings.watchWorkspaceFiles();
  return { sidebar, ready: part(() => undefined), proposedFiles: part((s) => s.changeSets.proposedFiles) };
}
