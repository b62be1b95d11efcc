import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateTasklane, quiesce, requestsText, route, scriptModel, storageUriOf, useScriptedModel, waitForState } from './support/tasklane';
import { sendMessage } from './support/asPerson';

interface TaskState {
  id: string;
  sessionId: string;
  name: string;
  mode: string;
  status: string;
  waitingForUser: boolean;
  todos: Array<{ text: string; status: string }>;
}

// A complex task end to end inside VS Code: started by a chat message, several turns each run
// as its own durable trigger, a visible todo list, approval before task_end, and the record in
// TASK_HISTORY.md under the workspace's storage.
describe('host: a complex task end to end', function () {
  this.timeout(90_000);

  before(async () => {
    await activateTasklane();
    await quiesce();
    await useScriptedModel();
  });

  const tasksOf = async (predicate: (tasks: TaskState[]) => boolean) =>
    ((await waitForState((s) => predicate((s as unknown as { tasks: TaskState[] }).tasks ?? []), 30_000)) as unknown as { tasks: TaskState[] }).tasks;

  it('shows todos, runs each turn as a separate trigger, asks before closing, and records the task', async () => {
    const name = `Review greet ${Date.now()}`;
    const r = route('complex-task');
    await scriptModel(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name, instruction: 'Read src/greet.js and report what it exports.', mode: 'complex' } }] },
      {
        toolCalls: [
          {
            name: 'update_todos',
            arguments: {
              todos: [
                { text: 'read greet.js', status: 'in_progress' },
                { text: 'report', status: 'pending' },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'src/greet.js' } }] },
      {
        toolCalls: [
          {
            name: 'update_todos',
            arguments: {
              todos: [
                { text: 'read greet.js', status: 'done' },
                { text: 'report', status: 'done' },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'greet.js exports greet().' } }] },
    ]);
    await sendMessage(`Please review src/greet.js ${r}`);

    // The first task_end of a complex task asks the user instead of closing.
    const tasks = await tasksOf((all) => all.some((t) => t.name === name && t.waitingForUser));
    const task = tasks.find((t) => t.name === name)!;
    assert.equal(task.mode, 'complex');
    assert.equal(task.status, 'running');
    assert.deepEqual(
      task.todos.map((t) => `${t.text}:${t.status}`),
      ['read greet.js:done', 'report:done'],
    );

    // The read_file turn really read the workspace file through the VS Code adapter.
    const requests = await requestsText(r);
    const greet = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, 'src/greet.js')));
    const marker = greet
      .split('\n')
      .find((l) => l.includes('function greet'))!
      .trim();
    assert.ok(
      requests.some((text) => text.includes(marker)),
      'the file content never reached the model',
    );

    // The user approves closing; the task completes.
    await scriptModel(r, [{ toolCalls: [{ name: 'task_end', arguments: { summary: 'greet.js exports greet().' } }] }]);
    await sendMessage('yes', { replyToTaskId: task.id });
    await tasksOf((all) => all.some((t) => t.name === name && t.status === 'completed'));

    const { api } = await activateTasklane();
    const storage = storageUriOf(api)!;
    const history = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(storage, 'TASK_HISTORY.md')));
    assert.ok(history.includes(name) && history.includes(task.id), 'TASK_HISTORY.md has no record of the task');
    assert.match(history.slice(history.indexOf(name)), /completed/);
    // Each turn was its own trigger: the acked continuation triggers of this task are in the history.
    const historyText = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(storage, 'history', 'triggers.jsonl')));
    const continuations = historyText.split('\n').filter((l) => l.includes(task.sessionId) && l.includes('task_continuation'));
    assert.ok(continuations.length >= 3, `expected ≥ 3 acked continuation triggers for ${task.sessionId}, found ${continuations.length}`);
  });
});
