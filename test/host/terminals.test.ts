import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateTasklane, heldAt, quiesce, releaseGate, requestsText, resetModel, route, scriptModel, until, useScriptedModel } from './support/tasklane';
import { sendMessage } from './support/asPerson';

// One terminal per task (the ux review counted more than ten "Tasklane: …" terminals after a short
// walk, one per command): a task's commands reuse its terminal; it closes when the task ends; when
// the person closes it, the task's next command opens a new one. Real VS Code terminals, real
// processes, the scripted model.
const runNode = { toolCalls: [{ name: 'run_command', arguments: { command: 'node --version' } }] };
const ranNode = /node --version` exited with code 0/g;
const terminalsOf = (name: string) => vscode.window.terminals.filter((t) => t.name === `Tasklane: ${name}`);
/** Waits for a model request that carries the results of `n` runs of the command. */
const sawRuns = (n: number) =>
  until(`a request with ${n} results of node --version`, async () => (await requestsText()).find((t) => (t.match(ranNode)?.length ?? 0) >= n));

describe('host: one terminal per task, reused, closed at its end', function () {
  this.timeout(120_000);
  const approval = () => vscode.workspace.getConfiguration('tasklane.approval');

  before(async () => {
    await activateTasklane();
    await quiesce();
    await useScriptedModel();
    await approval().update('allowedCommands', ['node --version'], vscode.ConfigurationTarget.Global);
  });
  beforeEach(() => resetModel());
  after(async () => {
    await approval().update('allowedCommands', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('tasklane.model').update('provider', undefined, vscode.ConfigurationTarget.Global);
  });

  /** Starts a task named `name` that runs the steps; its last step waits at `gate` until released. */
  async function startTask(name: string, gate: string, steps: Array<Record<string, unknown>>): Promise<void> {
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
