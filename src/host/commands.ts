import * as vscode from 'vscode';
import { forLabel } from '../core/security/surfaceText';
import type { TaskView } from '../core/engine/types';
import { showInvisible } from '../shared/visibleText';
import type { ConsentDialogs } from './consentDialog';
import type { ModelProvider } from './modelProvider';
import { selectModelFlow, setApiKeyFlow } from './modelProvider';
import type { Runtime } from './runtime';
import { notice } from './notice';
import { tasksFor } from './taskPicks';
import type { TaskVerb } from './taskPicks';

/** Everything a command needs; passed in by the composition root. */
export interface CommandDeps {
  runtime: Runtime;
  models: ModelProvider;
  channel: vscode.LogOutputChannel;
  /** Tells the sidebar the model status changed (its banner redraws; nothing else does). */
  refreshModel: () => Promise<void>;
  /** Workspace Trust, read at each use. */
  trusted: () => boolean;
  /** Shows a session's conversation in the sidebar (after a palette message). */
  showSession?: (sessionId: string) => Promise<void>;
  /** The consent modal: Continue called with a task id by a caller asks through it. */
  dialogs?: ConsentDialogs;
}

/** Asks before a caller's text is sent as the person's message (a new request, or an answer to a task). */
function confirmMessage(dialogs: ConsentDialogs, text: string, answering: string | undefined): Promise<boolean> {
  const detail = [
    showInvisible(text),
    '',
    answering
      ? `It answers the task "${showInvisible(answering)}" as you.`
      : 'It is a request to Tasklane as you: the task it starts reads the workspace; its edits and commands still ask you.',
    'The text was passed by a caller (another extension, an agent tool or a command link), not typed by you.',
  ].join('\n');
  return dialogs.confirm('Send this message to Tasklane as you?', detail, 'Send', 'message');
}

/** Asks before a caller continues a paused task (past its budget, with raised limits). */
function confirmContinue(dialogs: ConsentDialogs, task: TaskView): Promise<boolean> {
  const { actions, tokens, cost } = task.counters;
  const spent = [
    `${actions.used} of ${actions.limit} actions`,
    `${tokens.used} of ${tokens.limit} tokens`,
    ...(cost ? [`$${cost.used.toFixed(2)} of $${cost.limit.toFixed(2)}`] : []),
  ];
  const detail = [
    `Task: ${showInvisible(task.name)}`,
    `It paused${task.pauseReason === 'budget' ? ' at its budget' : ''}: ${spent.join(', ')}.`,
    ...(task.pauseReason === 'budget' ? ['Continuing raises its limits by another budget, spent with your model and key.'] : []),
    '',
    'Continue was asked for by a caller (another extension or an agent tool), not by you.',
  ].join('\n');
  return dialogs.confirm(`Continue the task "${showInvisible(task.name)}"?`, detail, 'Continue', `continue-${task.id}`);
}

/** Picks a task: the argument if given, else the user chooses among the tasks `verb` can act on (taskPicks.ts). */
async function pickTask(deps: CommandDeps, given: unknown, verb: TaskVerb): Promise<string | undefined> {
  if (typeof given === 'string' && given) return given;
  const { agent, changeSets } = await deps.runtime.ready;
  const candidates = tasksFor(verb, agent.views.snapshot().tasks, (id) => changeSets.revertible(id));
  if (candidates.length === 0) {
    // One whole sentence per verb: a translation never holds an English verb as a value.
    const none =
      verb === 'continue'
        ? notice`Tasklane: there is no task to continue.`
        : verb === 'cancel'
          ? notice`Tasklane: there is no task to cancel.`
          : notice`Tasklane: no task has applied edits left to revert.`;
    void vscode.window.showInformationMessage(none);
    return undefined;
  }
  // A lone candidate is taken as it is, except for Revert Task: undoing edits is shown before it is
  // done, so the person sees which task their pick covers.
  if (candidates.length === 1 && verb !== 'revert') return candidates[0].id;
  const pick = await vscode.window.showQuickPick(
    candidates.map((t) => ({ label: forLabel(t.name), description: t.status, id: t.id })),
    {
      title:
        verb === 'continue'
          ? vscode.l10n.t('Tasklane: continue which task?')
          : verb === 'cancel'
            ? vscode.l10n.t('Tasklane: cancel which task?')
            : vscode.l10n.t('Tasklane: revert which task?'),
    },
  );
  return pick?.id;
}

/** The palette commands of docs/DESIGN.md §9 that exist so far (each registered only once it works). */
export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const { runtime } = deps;
  return [
    // (text?, { sessionId?, replyToTaskId? }?): with no text, asks for it; returns the session id.
    vscode.commands.registerCommand('tasklane.sendMessage', async (text?: unknown, route?: unknown) => {
      const message =
        typeof text === 'string' && text.trim()
          ? text
          : await vscode.window.showInputBox({ title: vscode.l10n.t('Tasklane: send a message'), ignoreFocusOut: true });
      if (!message?.trim()) return undefined;
      const { agent } = await runtime.ready;
      const options = route && typeof route === 'object' ? (route as { sessionId?: unknown; replyToTaskId?: unknown }) : {};
      const replyToTaskId = typeof options.replyToTaskId === 'string' ? options.replyToTaskId : undefined;
      // Text from a caller (another extension, an agent tool, a command link) is not a message the
      // person typed: it starts or answers work in their name, so they read it and say yes.
      if (typeof text === 'string' && deps.dialogs) {
        const answering = replyToTaskId ? agent.views.snapshot().tasks.find((t) => t.id === replyToTaskId) : undefined;
        if (!(await confirmMessage(deps.dialogs, message, answering?.name ?? replyToTaskId))) return undefined;
      }
      const { sessionId } = await agent.sendMessage(message, {
        sessionId: typeof options.sessionId === 'string' ? options.sessionId : undefined,
        replyToTaskId,
      });
      // Where the answer will appear: the conversation opens in the sidebar.
      await deps.showSession?.(sessionId).catch(() => undefined);
      return sessionId;
    }),
    vscode.commands.registerCommand('tasklane.getState', async () => {
      const { agent, approvals, chores, mcp, surface } = await runtime.ready;
      const pending = (await approvals.list()).filter((a) => a.status === 'pending');
      return {
        ...agent.views.snapshot(),
        approvals: pending,
        chores: await chores.state(),
        mcpServers: mcp.status(),
        engine: surface(),
        model: await deps.models.status(),
        restricted: !deps.trusted(),
        // User-only settings a workspace tried to set (ignored), and the notes shown about them.
        ignoredSettings: deps.models.settings.ignoredKeys(),
        settingsNotes: deps.models.settings.notes(),
      };
    }),
    vscode.commands.registerCommand('tasklane.continueTask', async (taskId?: unknown) => {
      const id = await pickTask(deps, taskId, 'continue');
      if (!id) return;
      const { agent } = await runtime.ready;
      // A caller's id is not the person's Continue: past a budget it raises the task's limits.
      const task = typeof taskId === 'string' ? agent.views.snapshot().tasks.find((t) => t.id === id && t.paused) : undefined;
      if (task && deps.dialogs && !(await confirmContinue(deps.dialogs, task))) return;
      await agent.continueTask(id);
    }),
    vscode.commands.registerCommand('tasklane.cancelTask', async (taskId?: unknown) => {
      const id = await pickTask(deps, taskId, 'cancel');
      if (id) await (await runtime.ready).agent.cancelTask(id);
    }),
    // (taskId?): undoes all of the task's applied edits as one WorkspaceEdit; returns what happened.
    vscode.commands.registerCommand('tasklane.revertTask', async (taskId?: unknown) => {
      const id = await pickTask(deps, taskId, 'revert');
      return id ? (await runtime.ready).changeSets.revertTask(id) : undefined;
    }),
    vscode.commands.registerCommand('tasklane.setApiKey', async () => {
      if (await setApiKeyFlow(deps.models)) await deps.refreshModel();
    }),
    vscode.commands.registerCommand('tasklane.selectModel', async () => {
      if (await selectModelFlow(deps.models)) await deps.refreshModel();
    }),
    vscode.commands.registerCommand('tasklane.showLog', () => deps.channel.show()),
    // Help: Get Started opens VS Code's own welcome page; this opens Tasklane's walkthrough itself.
    vscode.commands.registerCommand('tasklane.openWalkthrough', () =>
      vscode.commands.executeCommand('workbench.action.openWalkthrough', 'tasklane.tasklane#tasklane.start', false),
    ),
    vscode.commands.registerCommand('tasklane.openAgentFiles', async () => {
      const { storageDir } = await runtime.ready;
      const files = ['EVENT.md', 'MEMORY.md', 'TASK_HISTORY.md'];
      const pick = await vscode.window.showQuickPick(files, { title: vscode.l10n.t('Tasklane: open which agent file?') });
      if (!pick) return;
      const uri = vscode.Uri.joinPath(vscode.Uri.file(storageDir), pick);
      try {
        await vscode.window.showTextDocument(uri);
      } catch {
        void vscode.window.showInformationMessage(notice`Tasklane has not written ${pick} yet.`);
      }
    }),
  ];
}
