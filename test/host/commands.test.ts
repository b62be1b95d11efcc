import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import {
  activateTasklane,
  heldAt,
  modelSaw,
  quiesce,
  releaseGate,
  requestsText,
  resetModel,
  route,
  scriptModel,
  until,
  useScriptedModel,
} from './support/tasklane';
import { asPerson, sendMessage } from './support/asPerson';

// run_command / run_task inside a real extension host: the exact-match allowlist, approval and
// rejection through the command approval service, one terminal per task, and real VS Code tasks
// from the sample workspace's .vscode/tasks.json.
interface PendingCommand {
  id: string;
  kind: 'command' | 'task';
  command: string;
  reason: string;
}

const runNode = { toolCalls: [{ name: 'run_command', arguments: { command: 'node --version' } }] };
const ranNode = /node --version` exited with code 0/g;
const terminalsOf = (name: string) => vscode.window.terminals.filter((t) => t.name === `Tasklane: ${name}`);
/** Waits for a model request that carries the results of `n` runs of the command. */
const sawRuns = (n: number) =>
  until(`a request with ${n} results of node --version`, async () => (await requestsText()).find((t) => (t.match(ranNode)?.length ?? 0) >= n));

const pending = () => vscode.commands.executeCommand<PendingCommand[]>('tasklane.commands.pending');

describe('host: run_command and run_task with approval and the exact allowlist', function () {
  this.timeout(120_000);
  const approval = () => vscode.workspace.getConfiguration('tasklane.approval');

  before(async () => {
    await activateTasklane();
    // Live tasks left by another suite would send every new message through the router model.
    await quiesce();
    await useScriptedModel();
    await approval().update('allowedCommands', ['node --version', 'task:failing-build'], vscode.ConfigurationTarget.Global);
  });
  beforeEach(async () => {
    await resetModel();
  });
  after(async () => {
    await approval().update('allowedCommands', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('tasklane.model').update('provider', undefined, vscode.ConfigurationTarget.Global);
  });

  /** A task whose first turn calls `call`; then it ends once it has seen the result. */
  async function runTaskCalling(call: { name: string; arguments: Record<string, unknown> }): Promise<void> {
    const r = route('run-command');
    await scriptModel(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: `Run ${JSON.stringify(call.arguments)}`, instruction: 'Run it and report', mode: 'simple' } }] },
      { toolCalls: [call] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'done' } }] },
    ]);
    await sendMessage(`please run ${JSON.stringify(call.arguments)} ${r}`);
  }

  it('an exactly allowlisted command runs without asking, and the task gets its output', async () => {
    await runTaskCalling({ name: 'run_command', arguments: { command: 'node --version' } });
    await modelSaw(/node --version` exited with code 0[^"]*v\d+\.\d+/, 0);
    assert.deepEqual(await pending(), []);
    // The terminal it ran in (the task's own, closed at its end): the terminal tests below.
  });

  for (const command of ['node --version && node --version', 'node --version > out.txt', 'node --version $(id)', 'node --version $HOME']) {
    it(`'${command}' asks although 'node --version' is allowlisted; reject tells the task why`, async () => {
      await runTaskCalling({ name: 'run_command', arguments: { command } });
      const ask = await until('the approval card', async () => (await pending()).find((p) => p.command === command));
      assert.match(ask.reason, /always need approval/);
      const seen = (await requestsText()).length;
      await vscode.commands.executeCommand('tasklane.commands.reject', ask.id, 'not in this workspace');
      await modelSaw(/rejected[^"]*not in this workspace[^"]*It was not run/, seen);
    });
  }

  it('approve runs a command that asks, and the task sees its output', async () => {
    const command = 'node -e "console.log(6*7)"';
    await runTaskCalling({ name: 'run_command', arguments: { command } });
    const ask = await until('the approval card', async () => (await pending()).find((p) => p.command === command));
    assert.match(ask.reason, /not in tasklane.approval.allowedCommands/);
    const seen = (await requestsText()).length;
    const result = await asPerson(() => vscode.commands.executeCommand<{ exitCode: number; output: string }>('tasklane.commands.approve', ask.id), 'Approve');
    assert.equal(result.exitCode, 0);
    assert.match(result.output, /^42\s*$/m);
    // The command's quotes are escaped in the request JSON, so match across them.
    await modelSaw(/approved[\s\S]{0,300}exited with code 0[\s\S]{0,200}42/, seen);
  });

  it('run_task: an allowlisted failing-build returns its non-zero exit code', async () => {
    await runTaskCalling({ name: 'run_task', arguments: { name: 'failing-build' } });
    await modelSaw(/task 'failing-build' exited with code 1/, 0);
  });

  it('run_task: build asks (a command named build does not allow the task), approve returns exit code 0', async () => {
    await runTaskCalling({ name: 'run_task', arguments: { name: 'build' } });
    const ask = await until('the approval card', async () => (await pending()).find((p) => p.kind === 'task' && p.command === 'build'));
    const seen = (await requestsText()).length;
    const result = await asPerson(() => vscode.commands.executeCommand<{ exitCode: number }>('tasklane.commands.approve', ask.id), 'Approve');
    assert.equal(result.exitCode, 0);
    await modelSaw(/task 'build' exited with code 0/, seen);
  });

  it('run_task: an unknown task name is reported with the available names', async () => {
    await approval().update('allowedCommands', ['task:no-such-task'], vscode.ConfigurationTarget.Global);
    await runTaskCalling({ name: 'run_task', arguments: { name: 'no-such-task' } });
    await modelSaw(/no VS Code task named 'no-such-task'[^"]*failing-build/, 0);
  });

  // One terminal per task (the ux review counted more than ten "Tasklane: …" terminals after a
  // short walk, one per command): a task's commands reuse its terminal; it closes when the task
  // ends; when the person closes it, the task's next command opens a new one.
  /** Starts a task named `name` that runs the steps; its last step waits at `gate` until released. */
  async function startTask(name: string, gate: string, steps: Array<Record<string, unknown>>): Promise<void> {
    // A test above narrows the allowlist: the task's commands run without asking here.
    await approval().update('allowedCommands', ['node --version'], vscode.ConfigurationTarget.Global);
    const r = route('terminals');
    await scriptModel(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name, instruction: 'Run node twice', mode: 'simple' } }] },
      ...steps,
      { gate, toolCalls: [{ name: 'task_end', arguments: { summary: 'done' } }] },
    ]);
    await sendMessage(`run node ${r}`);
  }

  it("a task's commands share one terminal, named after the task, which closes when the task ends", async () => {
    const name = `Terminals ${route('a')}`;
    await startTask(name, 'terminals-end', [runNode, runNode, runNode]);
    await heldAt('terminals-end');
    // All three ran (the task saw each result) before the end was asked for.
    await sawRuns(3);
    assert.equal(terminalsOf(name).length, 1, `terminals: ${vscode.window.terminals.map((t) => t.name).join(', ')}`);
    assert.ok(!vscode.window.terminals.some((t) => t.name.startsWith('Tasklane: node --version')), 'a command opened a terminal of its own');
    await releaseGate('terminals-end');
    await until('the task terminal to close at the task end', async () => terminalsOf(name).length === 0 || undefined);
  });

  it('closed by the person mid-task: the next command opens a new terminal', async () => {
    const name = `Closed ${route('b')}`;
    await startTask(name, 'terminals-closed-end', [runNode, { gate: 'terminals-closed', ...runNode }]);
    await heldAt('terminals-closed');
    const [first] = terminalsOf(name);
    assert.ok(first, 'the first command had no terminal');
    first.dispose();
    await until('the closed terminal to go', async () => !vscode.window.terminals.includes(first) || undefined);
    await releaseGate('terminals-closed');
    await heldAt('terminals-closed-end');
    // The second command ran to its end in the new terminal.
    await sawRuns(2);
    const again = terminalsOf(name);
    assert.equal(again.length, 1);
    assert.notEqual(again[0], first);
    await releaseGate('terminals-closed-end');
    await until('the new terminal to close at the task end', async () => terminalsOf(name).length === 0 || undefined);
  });
});
