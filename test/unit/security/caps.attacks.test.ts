import * as assert from 'node:assert/strict';
import { DEFAULT_CAPS, RunawayGuard } from '../../../src/core/engine/caps';
import { silentLogger } from '../../../src/core/ports';
import { FakeClock } from '../../fakes/fakeClock';
import type { ModelServer } from '../../fixtures/modelServer';
import { createHarness, engineHooks } from '../engine/harness';
import type { Harness } from '../engine/harness';
import { attack } from './attackTally';

const starts = (n: number, tag = 'T') =>
  Array.from({ length: n }, (_, i) => ({ name: 'task_start', arguments: { name: `${tag}${i}`, instruction: `spawn ${tag}${i}`, mode: 'simple' } }));

// Finding 8 of the review, through the real engine, store and SDK client: one message must not
// fan out into hundreds of tasks, and one response must not run hundreds of actions.
describe('security: caps on runaway work (real engine, scripted model)', () => {
  let server: ModelServer;
  let h: Harness;
  engineHooks('openai', { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

  const reopen = async (caps: Record<string, number>, maxActionsPerTask = 50) => {
    await h.close();
    h = await createHarness({ wire: 'openai', server, settings: { maxActionsPerTask, caps } });
  };

  it(`one message asking for 60 tasks starts ${DEFAULT_CAPS.maxTaskStartsPerTurn}, and the rest are refused with a message`, async () => {
    server.script([{ toolCalls: starts(60) }]);
    await h.agent.sendMessage('start sixty tasks');
    await h.idle();
    await attack('runaway task starts', () => assert.equal(h.agent.views.snapshot().tasks.length, DEFAULT_CAPS.maxTaskStartsPerTurn));
    assert.ok(
      h.logger.lines.some((l) => /task_start refused: at most 5 tasks can be started in one turn/.test(l)),
      'the refusal is logged',
    );
    // The person sees why, in the conversation.
    const said = JSON.stringify(h.agent.views.snapshot().sessions);
    assert.match(said, /The task was not started: at most 5 tasks can be started in one turn \(tasklane\.budget\.maxTaskStartsPerTurn\)/);
  });

  it('successors cannot fan out either: per-turn, per-hour and running-task caps hold across turns', async () => {
    await reopen({ maxTaskStartsPerTurn: 3, maxTaskStartsPerHour: 8, maxRunningTasks: 100 });
    // The conversation starts 3; each of those asks for 3 more, and so on: without caps, 3^n.
    server.script([{ toolCalls: starts(10, 'A') }, ...Array.from({ length: 12 }, (_, i) => ({ toolCalls: starts(10, `S${i}-`) }))]);
    await h.agent.sendMessage('fan out');
    await h.idle();
    await attack('runaway task starts', () => assert.equal(h.agent.views.snapshot().tasks.length, 8, 'the hourly cap bounds the whole tree'));
  });

  it('the hourly window slides, and a new guard counts the tasks started in the last hour (no fresh hour on reload)', async () => {
    const clock = new FakeClock();
    const tasks: Array<{ status: string; source: string; createdAt: number }> = [];
    const guard = new RunawayGuard({ caps: () => ({ maxTaskStartsPerHour: 3 }), clock, logger: silentLogger, tasks: () => tasks as never });
    for (let i = 0; i < 3; i++) assert.equal(guard.admitTaskStart(0), undefined);
    await attack('runaway task starts', () => assert.match(guard.admitTaskStart(0) ?? '', /3 tasks were started in the last hour/));
    await clock.advance(60 * 60 * 1000 + 1);
    assert.equal(guard.admitTaskStart(0), undefined, 'an hour later there is room again');
    tasks.push(...[1, 2, 3].map(() => ({ status: 'completed', source: 'user', createdAt: clock.now() })));
    const reloaded = new RunawayGuard({ caps: () => ({ maxTaskStartsPerHour: 3 }), clock, logger: silentLogger, tasks: () => tasks as never });
    await attack('runaway task starts', () => assert.match(reloaded.admitTaskStart(0) ?? '', /last hour/));
    // Bad settings fall back to the defaults rather than to "no cap".
    const bad = new RunawayGuard({ caps: () => ({ maxActionsPerTurn: Number.NaN, maxRunningTasks: -1 }), clock, logger: silentLogger, tasks: () => [] });
    assert.deepEqual(bad.current(), DEFAULT_CAPS);
  });

  it('the running-task cap refuses a start while that many tasks run', async () => {
    await reopen({ maxRunningTasks: 2, maxTaskStartsPerTurn: 10 });
    server.script([{ toolCalls: starts(6) }]);
    await h.agent.sendMessage('six');
    await h.idle();
    await attack('runaway task starts', () => assert.equal(h.agent.views.snapshot().tasks.filter((t) => t.status === 'running').length, 2));
    assert.ok(h.logger.lines.some((l) => /2 tasks are running, the limit \(tasklane\.budget\.maxRunningTasks\)/.test(l)));
  });

  for (const [label, caps, perTask, expected, why] of [
    ['the per-turn cap', {}, 50, DEFAULT_CAPS.maxActionsPerTurn, { code: 'turn_cap', cap: DEFAULT_CAPS.maxActionsPerTurn }],
    ['the task budget left', { maxActionsPerTurn: 500 }, 50, 50, { code: 'budget_left', left: 50 }],
  ] as const) {
    it(`300 tool calls in one response run only up to ${label}; the rest get an error`, async () => {
      await reopen(caps, perTask);
      const reads = Array.from({ length: 300 }, () => ({ name: 'read_file', arguments: { path: 'README.md' } }));
      server.script([{ toolCalls: starts(1) }, { toolCalls: reads }]);
      await h.agent.sendMessage('read a lot');
      await h.idle();
      const task = h.agent.views.snapshot().tasks[0];
      const events = await h.agent.views.readTaskEvents(task.id, { limit: 2000 });
      const ran = events.filter((e) => e.kind === 'action_start' && e.data.name === 'read_file').length;
      const refused = events.filter((e) => e.kind === 'action_end' && /^Not run:/.test(String(e.data.error ?? '')));
      await attack('runaway actions per turn', () => assert.equal(ran, expected));
      await attack('runaway actions per turn', () => assert.equal(refused.length, 300 - expected));
      assert.ok(task.counters.actions.used <= perTask, `actions used ${task.counters.actions.used} within the budget of ${perTask}`);
      const warning = events.find((e) => e.kind === 'warning' && /were not run/.test(String(e.data.text)));
      assert.ok(warning, 'the user sees a warning in the trace');
      // Its cause as data, which the thread words in the person's language (issue 42).
      assert.deepEqual(warning.data.notRun, { count: 300 - expected, ...why });
      assert.ok(
        refused.every((e) => JSON.stringify(e.data.notRun) === JSON.stringify(why)),
        'each unrun call carries the cause too',
      );
    });
  }
});
