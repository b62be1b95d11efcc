/**
 * A chore task's end and its checks in the engine (issue 43): task_end waits for the checks, and
 * Stop or Cancel while a check runs kills it through the turn's signal and ends the run cleanly
 * (cancelled, no round counted, no further model call). The check is held open by the test, so
 * "still running" is observed while it runs, not guessed with a sleep.
 */
import * as assert from 'node:assert/strict';
import type { CommandResult } from '../../../src/core/approval/commands/commandApproval';
import type { ChoreChecksPort } from '../../../src/core/chores/runChecks';
import { presentSteps } from '../../../src/host/stepPresenter';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from './runnerHarness';
import type { RunnerHarness } from './runnerHarness';

const end = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output: { status: 'done' } } }] };

/** A check the test holds open: `started` resolves when it runs; `finish` ends it; an abort ends it cancelled. */
function heldCheck() {
  let started!: (signal: AbortSignal | undefined) => void;
  let finish!: (exitCode: number) => void;
  const startedP = new Promise<AbortSignal | undefined>((resolve) => (started = resolve));
  const port: ChoreChecksPort = {
    changedFiles: async () => true,
    run: (_command, { signal }) =>
      new Promise<CommandResult>((resolve) => {
        const done = (exitCode: number | null, cancelled: boolean) =>
          resolve({ exitCode, output: cancelled ? '' : 'ok 1 test\n', truncatedChars: 0, timedOut: false, cancelled, durationMs: 3 });
        finish = (code) => done(code, false);
        signal?.addEventListener('abort', () => done(null, true), { once: true });
        started(signal);
      }),
  };
  return { port, started: startedP, finish: (code: number) => finish(code) };
}

describe('chore checks in the engine: the end waits for them, Stop and Cancel end them', function () {
  this.timeout(20_000);
  let server: ModelServer;
  let h: RunnerHarness;
  const open = useRunnerHarness((s) => (server = s));
  const chores = choresFrom(`chores:
  - id: demo
    name: Demo chore
    trigger: { files: ["src/**"] }
    prompt: Fix the tests.
    successWhen: "status = 'done'"
    verify: ["npm test"]
`);

  it('task_end waits for the check: the task and the run stay running until it exits, then the run succeeds with it recorded', async () => {
    const check = heldCheck();
    h = await open(chores, { checks: check.port });
    server.script([end]);
    await h.runner.fire('demo', 'manual');
    await check.started;
    const run = h.runLog.history('demo')[0]!;
    const task = () => h.agent.views.snapshot().tasks.find((t) => t.id === run.taskId)!;
    assert.equal(run.status, 'running');
    assert.equal(task().status, 'running', 'the task does not end before its check');
    check.finish(0);
    const ended = await h.ended('demo');
    assert.equal(ended.status, 'succeeded', ended.reason ?? '');
    assert.equal(task().status, 'completed');
    assert.deepEqual(
      ended.verify?.map((r) => [r.command, r.exitCode, r.ok]),
      [['npm test', 0, true]],
    );
    assert.equal(ended.checkRounds, 1);
    // The chore's conversation shows the check as a row, as an interactive task's does.
    const rows = presentSteps(run.taskId!, await h.agent.views.readTaskEvents(run.taskId!, { limit: 100 })).filter((r) => r.id.startsWith('check:'));
    assert.deepEqual(
      rows.map((r) => [r.text[0], r.state, r.note]),
      [['Checked ', 'done', '✓ 3 ms']],
    );
    assert.deepEqual(
      ended.steps.map((s) => [s.name, s.status]),
      [
        ['task_end', 'ok'],
        ['check', 'ok'],
      ],
    );
  });

  /** Fires the chore, lets its task call task_end, and interrupts the check it waits for with `interrupt`; returns the ended run. */
  async function interruptCheck(interrupt: (task: { id: string; sessionId: string }) => Promise<void>) {
    const check = heldCheck();
    h = await open(chores, { checks: check.port });
    server.script([end, end]);
    await h.runner.fire('demo', 'manual');
    const signal = await check.started;
    const run = h.runLog.history('demo')[0]!;
    await interrupt(h.agent.views.snapshot().tasks.find((t) => t.id === run.taskId)!);
    assert.equal(signal?.aborted, true, 'the check was told to stop');
    const ended = await h.ended('demo');
    await h.idle();
    assert.equal(ended.status, 'cancelled');
    assert.equal(ended.checkRounds, undefined, 'a stopped round is not a round');
    assert.equal(server.requests.length, 1, 'no more model calls');
    return ended;
  }

  it('Cancel during a check kills it and ends the run cancelled, with no round counted and no more model calls', async () => {
    const ended = await interruptCheck((task) => h.agent.cancelTask(task.id));
    assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === ended.taskId)?.status, 'cancelled');
  });

  it('Stop during a check kills it; the chore run ends cancelled "stopped by you", not as a model failure', async () => {
    const ended = await interruptCheck((task) => h.agent.stop(task.sessionId));
    assert.match(ended.reason ?? '', /stopped by you/);
  });
});
