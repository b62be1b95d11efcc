/**
 * A cap pauses, never kills (issue 43, src/core/chores/budgetPause.ts): a chore run that reaches
 * its own budget parks with its task paused and no further model call; Continue grants another
 * budget of the chore's size and the same task goes on from the step it reached.
 */
import * as assert from 'node:assert/strict';
import { resumeParkedRun } from '../../../src/core/chores/budgetPause';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from './runnerHarness';
import type { RunnerHarness } from './runnerHarness';

const chore = (budget: string) => `chores:
  - id: demo
    name: Demo chore
    trigger: { files: ["src/**"] }
    prompt: Tidy the repo.
    budget: ${budget}
`;
const read = (path: string) => ({ toolCalls: [{ name: 'read_file', arguments: { path } }] });
const end = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output: { status: 'done' } } }] };
const HOUR = 3_600_000;

describe('chore runs: a budget pauses the run, Continue resumes it from the same step', function () {
  this.timeout(20_000);
  let server: ModelServer;
  let h: RunnerHarness;
  const open = useRunnerHarness((s) => (server = s));

  it('maxIterations parks the run (task paused, no model call, usage kept); Continue resumes and it succeeds', async () => {
    h = await open(choresFrom(chore('{ maxIterations: 2, maxSeconds: 600 }')), { parkAtBudget: true });
    server.script([read('src/app.ts'), read('CHANGELOG.md'), end]);
    await h.runner.fire('demo', 'manual');
    await h.idle();
    let run = h.runLog.active()[0];
    assert.equal(run.status, 'running', 'the run is parked, not ended');
    assert.match(run.parked?.message ?? '', /iterations/);
    assert.equal(run.usage.iterations, 2);
    assert.deepEqual(
      run.steps.map((s) => s.name),
      ['read_file', 'read_file'],
    );
    const task = h.agent.views.snapshot().tasks.find((t) => t.id === run.taskId)!;
    assert.equal(task.status, 'paused');
    assert.equal(task.pauseReason, 'budget');
    assert.equal(server.requests.length, 2, 'no third model call at the cap');

    // Parked costs nothing, and maxSeconds passing while parked does not end it.
    await h.clock.advance(HOUR);
    await h.idle();
    assert.equal(server.requests.length, 2);
    assert.equal(h.runLog.get(run.runId)!.status, 'running');

    await h.agent.continueTask(run.taskId!);
    run = await h.ended('demo');
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    assert.equal(run.parked, undefined);
    assert.equal(run.limits?.maxIterations, 4, 'what it used plus another budget of the chore size');
    assert.equal(server.requests.length, 3);
    assert.equal(h.agent.views.snapshot().tasks.length, 1, 'the same task went on');
    assert.match(JSON.stringify(server.requests[2].body), /# Changelog/, 'the resumed request keeps the steps already done');
  });

  it('a parked run survives a reload: still parked, no model call; Continue then resumes the same task', async () => {
    h = await open(choresFrom(chore('{ maxInputTokens: 1000, maxSeconds: 600 }')), { parkAtBudget: true });
    server.script([
      { ...read('src/app.ts'), usage: { input: 1500, output: 10 } },
      { ...end, usage: { input: 200, output: 10 } },
    ]);
    await h.runner.fire('demo', 'manual');
    await h.idle();
    const parked = h.runLog.active()[0];
    assert.match(parked.parked?.message ?? '', /input tokens/);
    assert.equal(parked.steps.length, 0, 'the read past the cap did not run');

    const reopened = await h.reopen();
    try {
      await reopened.idle();
      await reopened.clock.advance(HOUR);
      await reopened.idle();
      assert.equal(server.requests.length, 1, 'no model call after the reload');
      const run = reopened.runLog.get(parked.runId)!;
      assert.equal(run.status, 'running');
      assert.match(run.parked?.message ?? '', /input tokens/, 'still parked after the reload');
      assert.equal(run.usage.inputTokens, 1500, 'usage kept');
      const task = reopened.agent.views.snapshot().tasks.find((t) => t.id === run.taskId)!;
      assert.equal(task.status, 'paused');

      // The chore's Resume (tasklane.resumeChore) continues the parked run's task.
      const said = await resumeParkedRun(reopened.runLog, 'demo', (taskId) => reopened.agent.continueTask(taskId));
      assert.match(said ?? '', /paused at budget \(used 1500 of 1000 input tokens/);
      const ended = await reopened.ended('demo');
      assert.equal(ended.status, 'succeeded', ended.reason ?? '');
      assert.equal(ended.limits?.maxInputTokens, 2500);
      assert.deepEqual(
        ended.steps.map((s) => s.name),
        ['task_end'],
      );
      // The same task went on: its resumed request carries the call the cap stopped, so the model picks up there.
      assert.equal(server.requests.length, 2);
      assert.doesNotMatch(JSON.stringify(server.requests[0].body), /src\/app\.ts/, 'the first request does not name the file');
      assert.match(JSON.stringify(server.requests[1].body), /src\/app\.ts/);
      assert.equal(reopened.runLog.history('demo').length, 1, 'one run, resumed');
    } finally {
      await reopened.close();
    }
  });

  it('maxSeconds still ends the run: the wall-clock promise is kept', async () => {
    h = await open(choresFrom(chore('{ maxSeconds: 60 }')), { parkAtBudget: true });
    server.script([{ toolCalls: [{ name: 'wait', arguments: { seconds: 300 } }] }, read('src/app.ts')]);
    await h.runner.fire('demo', 'manual');
    await h.idle();
    await h.clock.advance(301_000);
    const run = await h.ended('demo');
    assert.equal(run.status, 'budget_exhausted');
    assert.equal(run.parked, undefined);
  });
});
