import * as assert from 'node:assert/strict';
import { ChoreScheduler } from '../../../src/core/chores/choreScheduler';
import { InMemorySchedulePersistence } from '../../../src/core/chores/schedulePersistence';
import { cronKey, fireKey } from '../../../src/core/chores/schedule';
import type { DriftPolicy } from '../../../src/core/chores/types';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from './runnerHarness';
import type { RunnerHarness } from './runnerHarness';

const end = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done' } }] };
const yaml = (drift: DriftPolicy, extra = '') => `chores:
  - id: hourly
    name: Hourly chore
    trigger: { cron: "0 * * * *", timezone: UTC }
    drift: ${drift}
    prompt: Check the repo.
${extra}`;
const hour = 3_600_000;

describe('chores: every due occurrence ends as a run or a history entry with its reason', function () {
  this.timeout(30_000);
  let server: ModelServer;
  let h: RunnerHarness;
  const open = useRunnerHarness((s) => (server = s));

  /** The editor closed at 18:20 the day before and reopens at 09:10: fifteen hourly occurrences (19:00 … 09:00) are due. */
  async function nightOff(drift: DriftPolicy, extra = ''): Promise<{ h: RunnerHarness; due: number[] }> {
    const harness = await open(choresFrom(yaml(drift, extra)));
    h = harness;
    server.script(Array.from({ length: 12 }, () => end));
    await harness.clock.advance(10 * 60_000);
    const now = harness.clock.now();
    const closedAt = now - 14 * hour - 50 * 60_000;
    const persistence = new InMemorySchedulePersistence();
    persistence.save({ choreId: 'hourly', cronKey: cronKey({ cron: '0 * * * *', timezone: 'UTC' }), cursor: closedAt, outstanding: [], nextFireAt: null });
    const scheduler = new ChoreScheduler({
      triggers: harness.triggers,
      clock: harness.clock,
      persistence,
      logger: harness.logger,
      onDropped: (id, d) => harness.runner.recordDropped(id, d),
    });
    scheduler.setChores([harness.runner.chore('hourly')!]);
    await scheduler.start();
    scheduler.stop();
    const due: number[] = [];
    for (let t = Math.ceil(closedAt / hour) * hour; t <= now; t += hour) due.push(t);
    assert.equal(due.length, 15);
    // Every emitted fire claimed and every run ended.
    await harness.idle();
    return { h: harness, due };
  }

  /** Which due occurrences the history accounts for, and how. */
  function accounted(harness: RunnerHarness, due: number[]): Map<number, string> {
    const by = new Map<number, string>();
    for (const run of harness.runLog.history('hourly')) {
      const at = Date.parse(run.fireKey.slice('chore:hourly:'.length));
      const range = /\((\S+) to (\S+)\)/.exec(run.reason ?? '');
      if (range) for (const t of due) if (t >= Date.parse(range[1]) && t <= Date.parse(range[2])) by.set(t, `${run.status}: ${run.reason}`);
      by.set(at, `${run.status}: ${run.reason ?? ''}`);
    }
    return by;
  }

  it('drift latest: the newest runs (told it was late), the fourteen before are listed as missed', async () => {
    const { h: harness, due } = await nightOff('latest');
    const entries = accounted(harness, due);
    for (const t of due) assert.ok(entries.has(t), `occurrence ${new Date(t).toISOString()} is not in the history`);
    const runs = harness.runLog.history('hourly');
    const ran = runs.filter((r) => r.status === 'succeeded');
    assert.deepEqual(
      ran.map((r) => r.fireKey),
      [fireKey('hourly', due[14])],
    );
    const missed = runs.filter((r) => r.status === 'missed');
    assert.equal(missed.length, 14, 'each missed occurrence has its own entry');
    for (const m of missed) assert.match(m.reason ?? '', /VS Code was closed.*drift: latest/);
    assert.match(JSON.stringify(server.requests[0].body), /missed by 10 minutes/);
  });

  it('drift skip: the newest, less than one interval late, runs; the fourteen overtaken are listed as skipped', async () => {
    const { h: harness, due } = await nightOff('skip');
    const runs = harness.runLog.history('hourly');
    assert.equal(runs.length, 15);
    assert.deepEqual(
      runs.filter((r) => r.status === 'succeeded').map((r) => r.fireKey),
      [fireKey('hourly', due[14])],
      'the 10-minute-late occurrence of an hourly chore runs',
    );
    const skipped = runs.filter((r) => r.status === 'skipped');
    assert.equal(skipped.length, 14, JSON.stringify(runs.map((r) => [r.status, r.reason])));
    for (const r of skipped) assert.match(r.reason ?? '', /drift: skip drops an occurrence more than one interval late/);
    const entries = accounted(harness, due);
    for (const t of due) assert.ok(entries.has(t), `occurrence ${new Date(t).toISOString()} is not in the history`);
    assert.equal(server.requests.length, 1);
  });

  it('drift catchup: the ten newest are fired (run, or skipped for concurrency), the five older are missed', async () => {
    const { h: harness, due } = await nightOff('catchup');
    const entries = accounted(harness, due);
    for (const t of due) assert.ok(entries.has(t), `occurrence ${new Date(t).toISOString()} is not in the history`);
    for (const t of due.slice(0, 5)) assert.match(entries.get(t)!, /^missed: .*drift: catchup/);
    for (const t of due.slice(5)) assert.match(entries.get(t)!, /^(succeeded|skipped: .*concurren|skipped: .*already running)/i);
    assert.ok(harness.runLog.history('hourly').some((r) => r.status === 'succeeded'));
  });

  it('a chore with enabled: false has its occurrence recorded as skipped, and never reaches the model', async () => {
    const { h: harness, due } = await nightOff('latest', '    enabled: false\n');
    const runs = harness.runLog.history('hourly');
    assert.equal(runs.find((r) => r.fireKey === fireKey('hourly', due[14]))?.status, 'skipped');
    assert.match(runs.find((r) => r.fireKey === fireKey('hourly', due[14]))?.reason ?? '', /enabled: false/);
    assert.equal(server.requests.length, 0);
  });

  it('a fire claimed while the chore is blocked is skipped with the reason', async () => {
    h = await open(choresFrom(yaml('latest')), { blocked: () => 'chores are switched off (tasklane.chores.enabled)' });
    await h.runner.fire('hourly', 'manual');
    const run = await h.ended('hourly');
    assert.equal(run.status, 'skipped');
    assert.match(run.reason ?? '', /tasklane\.chores\.enabled/);
    assert.equal(server.requests.length, 0);
  });
});
