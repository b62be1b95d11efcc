import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { pressDialogButton } from './support/dialogs';
import { hostPhase, phaseState, restartExtensionHostAfterRun } from './support/phases';
import { activateTasklane, heldAt, quiesce, releaseGate, requestsText, scriptModel, until, useScriptedModel } from './support/tasklane';
import { asPerson, sendMessage } from './support/asPerson';

interface TaskState {
  id: string;
  name: string;
  instruction: string;
  status: string;
  waitingForUser: boolean;
  source: string;
  counters: { actions: { limit: number } };
  finalSummary?: string;
}

const SUITE = 'host: Tasklane as language model tools for VS Code agents';

const tasks = async () => ((await vscode.commands.executeCommand('tasklane.getState')) as { tasks?: TaskState[] }).tasks ?? [];
const taskWith = (predicate: (t: TaskState) => boolean, what: string) =>
  until(
    what,
    async () => (await tasks()).find(predicate),
    30_000,
    () => 'tasks never matched',
  );

/** Invokes one of Tasklane's tools the way another extension's agent does; returns its text. */
async function invoke(name: string, input: object, token?: vscode.CancellationToken): Promise<string> {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, token);
  return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
}

/** tasklane_start_task: Tasklane asks in its own modal first (on every call, in a chat or not). */
async function startTask(input: object, button = 'Queue'): Promise<{ taskId: string; dialog: string }> {
  const result = invoke('tasklane_start_task', input);
  result.catch(() => undefined);
  const dialog = await pressDialogButton(button);
  return { ...(JSON.parse(await result) as { taskId: string }), dialog };
}

// The tools are invoked through vscode.lm.invokeTool, i.e. VS Code's own tool service finds them
// from package.json's contributes.languageModelTools and calls what src/host/agentTools/lmTools.ts
// registered. The durable part spans an extension-host restart (phase 1 runs in a new host).
describe(SUITE, function () {
  this.timeout(60_000);
  const carried: { toolTask?: string; chatTask?: string } = {};

  before(async () => {
    await activateTasklane();
    if (hostPhase() === 0) await quiesce();
    // Memory distillation runs as in use: answers are routed by each task's instruction, which it cannot take.
    await useScriptedModel();
  });

  if (hostPhase() === 0) {
    it('are offered to every agent through vscode.lm.tools, with their input schemas', () => {
      const ours = vscode.lm.tools.filter((t) => t.name.startsWith('tasklane_'));
      assert.deepEqual(ours.map((t) => t.name).sort(), ['tasklane_await', 'tasklane_schedule', 'tasklane_start_task', 'tasklane_status']);
      const start = ours.find((t) => t.name === 'tasklane_start_task')!;
      assert.deepEqual((start.inputSchema as { required: string[] }).required, ['instruction']);
    });

    it('rejects bad input with a message naming the field, and queues nothing', async () => {
      const before = (await tasks()).length;
      await assert.rejects(invoke('tasklane_start_task', { instruction: '   ', mode: 'fast' }), /instruction[^;]*; mode: mode must be simple or complex/);
      await assert.rejects(invoke('tasklane_await', {}), /taskId/);
      assert.equal((await tasks()).length, before);
    });

    it('start_task asks first, showing the instruction; No queues nothing', async () => {
      const before = (await tasks()).length;
      const result = invoke('tasklane_start_task', { instruction: 'Delete the build folder.', budget: { maxActions: 3 } });
      result.catch(() => undefined);
      const dialog = await pressDialogButton('Cancel');
      assert.match(dialog, /Queue a durable Tasklane task\?/);
      assert.match(dialog, /Delete the build folder\./);
      assert.match(dialog, /maxActions 3/);
      await assert.rejects(result, (error: Error) => error instanceof vscode.CancellationError || /cancel/i.test(error.message));
      assert.equal((await tasks()).length, before);
    });

    it('start_task queues a durable task that runs; await answers when it ends', async () => {
      // Each task's instruction is the marker its answers are routed by.
      await scriptModel('Count the files in src.', [{ gate: 'lm-run', toolCalls: [{ name: 'task_end', arguments: { summary: 'counted 3 files' } }] }]);
      const started = await startTask({ instruction: 'Count the files in src.', name: 'Count files', budget: { maxActions: 7 } });
      assert.match(started.taskId, /^t-/);
      const waiting = invoke('tasklane_await', { taskId: started.taskId });
      await heldAt('lm-run');
      const live = await taskWith((t) => t.id === started.taskId, 'the queued task');
      assert.equal(live.status, 'running');
      assert.equal(live.counters.actions.limit, 7, 'the budget asked for lowered the task limit');
      await releaseGate('lm-run');
      const answer = JSON.parse(await waiting) as { outcome: string; task: { status: string; summary: string } };
      assert.equal(answer.outcome, 'ended');
      assert.equal(answer.task.status, 'completed');
      assert.equal(answer.task.summary, 'counted 3 files');
      assert.ok((await requestsText('Count the files in src.')).length > 0, 'the instruction reached the model');
    });

    it('await is cancelled by its token; the task goes on', async () => {
      await scriptModel('Something slow.', [{ gate: 'lm-cancel', toolCalls: [{ name: 'task_end', arguments: { summary: 'done anyway' } }] }]);
      const { taskId } = await startTask({ instruction: 'Something slow.' });
      const source = new vscode.CancellationTokenSource();
      const waiting = invoke('tasklane_await', { taskId }, source.token);
      await heldAt('lm-cancel');
      source.cancel();
      await assert.rejects(waiting, (error: Error) => error instanceof vscode.CancellationError || /cancel/i.test(error.message));
      await releaseGate('lm-cancel');
      const ended = await taskWith((t) => t.id === taskId && t.status === 'completed', 'the task to finish after its await was cancelled');
      assert.equal(ended.finalSummary, 'done anyway');
    });

    it('schedule proposes a chore as a reviewable change; approved, it still waits for Enable', async () => {
      const choresFile = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, '.tasklane/chores.yaml');
      const before = await vscode.workspace.fs.readFile(choresFile).then(
        (b) => new TextDecoder().decode(b),
        () => undefined,
      );
      const result = invoke('tasklane_schedule', {
        name: 'Weekly PR review',
        prompt: 'Review the open pull requests and list the stale ones.',
        cron: '0 9 * * 1',
      });
      result.catch(() => undefined);
      const dialog = await pressDialogButton('Yes');
      assert.match(dialog, /Propose a Tasklane chore\?/);
      assert.match(dialog, /0 9 \* \* 1/);
      const { choreId, approvalId } = JSON.parse(await result) as { choreId: string; approvalId: string };
      assert.equal(choreId, 'weekly-pr-review');
      const after = await vscode.workspace.fs.readFile(choresFile).then(
        (b) => new TextDecoder().decode(b),
        () => undefined,
      );
      assert.equal(after, before, 'nothing is written before the person approves');
      const state = (await vscode.commands.executeCommand('tasklane.getState')) as { approvals: Array<{ id: string }> };
      assert.ok(
        state.approvals.some((a) => a.id === approvalId),
        'the proposal is a pending approval',
      );
      await asPerson(() => vscode.commands.executeCommand('tasklane.approve', approvalId), 'Approve');
      const chore = await until('the approved chore to be loaded', async () => {
        const s = (await vscode.commands.executeCommand('tasklane.getState')) as { chores: Array<{ id: string; enabled: boolean; consent?: string }> };
        return s.chores.find((c) => c.id === choreId);
      });
      assert.equal(chore.consent, 'needed', 'a chore another agent proposed waits for Enable');
      const status = JSON.parse(await invoke('tasklane_status', {})) as { chores: Array<{ id: string; waitsForEnable?: boolean }> };
      assert.equal(status.chores.find((c) => c.id === choreId)?.waitsForEnable, true);
    });

    it("start_task's task is durable (phase 0: queued, it asks a question)", async () => {
      await scriptModel('Prepare the release notes.', [{ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which branch?' } }] }]);
      const { taskId } = await startTask({ instruction: 'Prepare the release notes.', name: 'Release notes' });
      const answer = JSON.parse(await invoke('tasklane_await', { taskId })) as { outcome: string; task: { waitingFor: string } };
      assert.deepEqual([answer.outcome, answer.task.waitingFor], ['needs_person', 'reply']);
      carried.toolTask = taskId;
    });

    it('a chat request to @tasklane /task queues a durable task (phase 0: its turn is cut by the restart)', async () => {
      await scriptModel('Write the changelog for 2.0.', [{ gate: 'chat-run', toolCalls: [{ name: 'task_end', arguments: { summary: 'never delivered' } }] }]);
      // The real Chat view, the way a person types it: VS Code parses the @participant and /command.
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@tasklane /task Write the changelog for 2.0.' });
      const task = await taskWith((t) => t.instruction === 'Write the changelog for 2.0.', 'the task the chat request queued');
      assert.equal(task.source, 'proactive');
      await heldAt('chat-run');
      // What its turn, cut by the restart and re-delivered in the next host, will be answered.
      await scriptModel('Write the changelog for 2.0.', [{ toolCalls: [{ name: 'task_end', arguments: { summary: 'changelog written' } }] }]);
      carried.chatTask = task.id;
    });

    it('hands both tasks to a new extension host', () => {
      assert.ok(carried.toolTask && carried.chatTask, 'both tasks were queued');
      restartExtensionHostAfterRun(SUITE, { ...carried, pid: process.pid });
    });
  } else {
    it('the chat task survives the restart: its cut turn runs again and finishes', async () => {
      const state = phaseState<{ toolTask: string; chatTask: string; pid: number }>()!;
      assert.notEqual(process.pid, state.pid, 'this runs in a new extension host process');
      const done = await taskWith((t) => t.id === state.chatTask && t.status === 'completed', 'the chat task to finish after the restart');
      assert.equal(done.finalSummary, 'changelog written');
    });

    it('the tool task survives the restart: answered, it finishes, and await says so', async () => {
      const state = phaseState<{ toolTask: string; chatTask: string }>()!;
      const restored = await taskWith((t) => t.id === state.toolTask, 'the task queued before the restart');
      assert.equal(restored.waitingForUser, true);
      assert.equal(restored.name, 'Release notes');
      await scriptModel('Prepare the release notes.', [{ toolCalls: [{ name: 'task_end', arguments: { summary: 'released from main' } }] }]);
      // The answer is sent as the person (it asks first), then the agent that queued the task waits:
      // awaited while the task still waited for its answer, await would say so (needs_person).
      await sendMessage('main', { replyToTaskId: state.toolTask });
      await taskWith((t) => t.id === state.toolTask && !t.waitingForUser, 'the answer to reach the task');
      const answer = JSON.parse(await invoke('tasklane_await', { taskId: state.toolTask })) as { outcome: string; task: { status: string; summary: string } };
      assert.deepEqual([answer.outcome, answer.task.status, answer.task.summary], ['ended', 'completed', 'released from main']);
    });
  }
});
