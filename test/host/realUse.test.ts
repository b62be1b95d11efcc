import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  activateTasklane,
  modelSaw,
  modelUrl,
  quiesce,
  requestsText,
  resetModel,
  route,
  scriptModel,
  until,
  useScriptedModel,
  waitForState,
} from './support/tasklane';
import { sendMessage } from './support/asPerson';

// The loop under real use in a real workbench: what the person does while a real command runs
// in its terminal, and while the task's last turn is in flight.
// slowjob.js writes its pid, then runs until a "go" file appears (or forever), printing a marker.
const SLOW_JOB = `const fs = require('fs');
fs.writeFileSync('slowjob.pid', String(process.pid));
const timer = setInterval(() => {
  if (fs.existsSync('slowjob.go')) {
    clearInterval(timer);
    console.log('BUILD OUTPUT 123');
  }
}, 50);
`;

type Task = { id: string; sessionId: string; status: string; instruction: string };
type Session = { id: string; status: string; messages: Array<{ role: string; text: string }> };
type State = { tasks: Task[]; sessions: Session[] };

const state = async () => (await vscode.commands.executeCommand('tasklane.getState')) as State;

/**
 * Whether `pid` is still a running process. A killed child whose shell died first is reparented
 * and stays a zombie until its new parent reaps it; it has ended, so on Linux that counts as gone.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

describe('host: the loop under real use (a real command in its terminal)', function () {
  this.timeout(120_000);
  const approval = () => vscode.workspace.getConfiguration('tasklane.approval');
  let root: string;
  const file = (name: string) => path.join(root, name);

  before(async () => {
    await activateTasklane();
    await quiesce();
    await useScriptedModel();
    root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    fs.writeFileSync(file('slowjob.js'), SLOW_JOB);
    await approval().update('allowedCommands', ['node slowjob.js'], vscode.ConfigurationTarget.Global);
  });
  beforeEach(async () => {
    await resetModel();
    for (const name of ['slowjob.pid', 'slowjob.go']) fs.rmSync(file(name), { force: true });
  });
  after(async () => {
    fs.writeFileSync(file('slowjob.go'), '');
    await approval().update('allowedCommands', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('tasklane.model').update('provider', undefined, vscode.ConfigurationTarget.Global);
    for (const name of ['slowjob.js', 'slowjob.pid', 'slowjob.go']) fs.rmSync(file(name), { force: true });
  });

  /** Starts a task whose first turn runs `node slowjob.js`; resolves with it and the job's pid once it runs. */
  async function startSlowJob(label: string, after: Array<Record<string, unknown>>): Promise<{ task: Task; pid: number }> {
    const r = route(label);
    await scriptModel(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: label, instruction: `${label}: run the slow job`, mode: 'simple' } }] },
      { toolCalls: [{ name: 'run_command', arguments: { command: 'node slowjob.js' } }] },
      ...after,
    ]);
    await sendMessage(`please ${label} ${r}`);
    const pid = await until('the slow job to start', async () =>
      fs.existsSync(file('slowjob.pid')) ? Number(fs.readFileSync(file('slowjob.pid'), 'utf8')) : undefined,
    );
    const task = await until('its task', async () => (await state()).tasks.find((t) => t.instruction.startsWith(`${label}:`)));
    return { task, pid };
  }

  it('a reply sent while the command runs: its real output reaches the model, then the reply', async () => {
    const { task } = await startSlowJob('reply-job', [{ toolCalls: [{ name: 'task_end', arguments: { summary: 'built and noted' } }] }]);
    await sendMessage('also run the linter afterwards', { replyToTaskId: task.id });
    fs.writeFileSync(file('slowjob.go'), '');
    const seen = await modelSaw(/BUILD OUTPUT 123/);
    assert.ok(!seen.includes('Not run'), 'the result was not replaced by "not run"');
    assert.ok(seen.indexOf('BUILD OUTPUT 123') < seen.indexOf('also run the linter afterwards'), 'the reply comes after the output');
    await waitForState((s) => (s as unknown as State).tasks.some((t) => t.id === task.id && t.status === 'completed'));
  });

  it('cancel while the command runs: the child process is gone when cancel resolves, the session is idle', async () => {
    const { task, pid } = await startSlowJob('cancel-job', []);
    assert.ok(alive(pid), 'the job runs');
    // It runs in the task's own terminal, named after the task; the task's end closes it.
    const own = (t: vscode.Terminal) => t.name === 'Tasklane: cancel-job';
    assert.ok(vscode.window.terminals.some(own), `it runs in a visible terminal: ${vscode.window.terminals.map((t) => t.name).join(', ')}`);
    const before = (await requestsText()).length;
    await vscode.commands.executeCommand('tasklane.cancelTask', task.id);
    assert.equal(alive(pid), false, 'the child process is gone');
    const now = await state();
    assert.equal(now.tasks.find((t) => t.id === task.id)!.status, 'cancelled');
    assert.equal(now.sessions.find((s) => s.id === task.sessionId)!.status, 'idle');
    assert.equal((await requestsText()).length, before, 'no model call after the cancel');
  });

  it('a reply during the turn that ends the task is answered', async () => {
    const r = route('final-turn');
    await scriptModel(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'final-turn', instruction: `final-turn: report ${r}`, mode: 'simple' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'reported' } }], gate: 'final' },
      { toolCalls: [{ name: 'send_message', arguments: { text: 'Noted: I will also check the tests.' } }] },
    ]);
    await sendMessage(`please report ${r}`);
    await until('the last turn to be in flight', async () => ((await (await fetch(`${modelUrl()}/__held`)).json()) as string[]).includes('final'));
    const task = (await state()).tasks.find((t) => t.instruction === `final-turn: report ${r}`)!;
    await sendMessage('and check the tests too', { replyToTaskId: task.id });
    await fetch(`${modelUrl()}/__release`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ gate: 'final' }) });
    await modelSaw(/and check the tests too/, 2, r);
    await waitForState((s) =>
      (s as unknown as State).sessions.some((x) => x.id === task.sessionId && x.messages.at(-1)?.text === 'Noted: I will also check the tests.'),
    );
  });
});
