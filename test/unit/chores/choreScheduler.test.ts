import * as assert from 'node:assert/strict';
import { ChoreScheduler } from '../../../src/core/chores/choreScheduler';
import type { ChoreFirePayload } from '../../../src/core/chores/choreScheduler';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { fireKey, lateByMoreThanInterval, nextFireAfter, nextFires, selectDueFires } from '../../../src/core/chores/schedule';
import { DbSchedulePersistence, InMemorySchedulePersistence } from '../../../src/core/chores/schedulePersistence';
import type { ChoreDefinition, DriftPolicy } from '../../../src/core/chores/types';
import { FakeClock } from '../../fakes/fakeClock';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { FakeTriggerStore, sqlJsMemoryDb } from './choreFakes';

const T = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

function chore(id: string, cron: string, drift: DriftPolicy = 'latest', timezone = 'UTC'): ChoreDefinition {
  const text = `chores:\n  - id: ${id}\n    name: ${id}\n    trigger: { cron: "${cron}", timezone: ${timezone} }\n    prompt: p\n    drift: ${drift}\n`;
  const result = parseChoresFile(text);
  assert.deepEqual(result.diagnostics, []);
  return result.chores[0];
}

describe('chores: schedule functions', () => {
  it('builds the fire dedup key from chore id and fire time', () => {
    assert.equal(fireKey('nightly', T('2025-03-01T02:00:00Z')), 'chore:nightly:2025-03-01T02:00:00.000Z');
  });

  it('computes next fires in the chore timezone, across a DST change', () => {
    const paris = { cron: '0 2 * * *', timezone: 'Europe/Paris' };
    assert.equal(iso(nextFireAfter(paris, T('2025-01-10T12:00:00Z'))!), '2025-01-11T01:00:00.000Z'); // CET, UTC+1
    assert.equal(iso(nextFireAfter(paris, T('2025-07-10T12:00:00Z'))!), '2025-07-11T00:00:00.000Z'); // CEST, UTC+2
    assert.deepEqual(nextFires({ cron: '0 9 * * 1', timezone: 'UTC' }, T('2025-03-05T00:00:00Z'), 2).map(iso), [
      '2025-03-10T09:00:00.000Z',
      '2025-03-17T09:00:00.000Z',
    ]);
  });

  it('applies each drift policy to a night off (hourly chore, closed 22:30 → 08:10)', () => {
    const hourly = { cron: '0 * * * *', timezone: 'UTC' };
    const from = T('2025-03-04T22:30:00Z');
    const now = T('2025-03-05T08:10:00Z');
    const latest = selectDueFires(hourly, from, now, 'latest');
    assert.deepEqual(latest.run.map(iso), ['2025-03-05T08:00:00.000Z']);
    assert.equal(latest.missed, true);
    assert.ok(latest.dropped >= 9);
    const catchup = selectDueFires(hourly, from, now, 'catchup');
    assert.deepEqual(
      catchup.run.map(iso),
      ['23', '00', '01', '02', '03', '04', '05', '06', '07', '08'].map((h) => `2025-03-${h === '23' ? '04' : '05'}T${h}:00:00.000Z`),
    );
    // 08:00 is 10 min late, less than its one-hour interval: skip runs it and drops the overtaken ones.
    const skip = selectDueFires(hourly, from, now, 'skip');
    assert.deepEqual(skip.run.map(iso), ['2025-03-05T08:00:00.000Z']);
    assert.equal(skip.missed, true);
    assert.ok(skip.dropped >= 9);
  });

  it('catch-up replays at most 10, the most recent, oldest first', () => {
    const hourly = { cron: '0 * * * *', timezone: 'UTC' };
    const result = selectDueFires(hourly, T('2025-03-01T00:00:00Z'), T('2025-03-05T08:10:00Z'), 'catchup');
    assert.equal(result.run.length, 10);
    assert.equal(iso(result.run[0]), '2025-03-04T23:00:00.000Z');
    assert.equal(iso(result.run[9]), '2025-03-05T08:00:00.000Z');
    assert.ok(result.run.every((t, i) => i === 0 || t > result.run[i - 1]));
  });

  it('skip runs a daily fire 3 min late and drops one more than a day late (one interval)', () => {
    const daily = { cron: '0 2 * * *', timezone: 'UTC' };
    const due = T('2026-01-06T02:00:00Z');
    const woke = selectDueFires(daily, due - 12 * 3_600_000, due + 3 * 60_000, 'skip');
    assert.deepEqual(woke.run.map(iso), ['2026-01-06T02:00:00.000Z']);
    assert.equal(woke.dropped, 0);
    // Closed from before the fire until 25 h after it: that fire is overtaken by the next day's, which runs.
    const away = selectDueFires(daily, due - 60_000, due + 25 * 3_600_000, 'skip');
    assert.deepEqual(away.run.map(iso), ['2026-01-07T02:00:00.000Z']);
    assert.deepEqual(away.droppedTimes.map(iso), ['2026-01-06T02:00:00.000Z']);
    assert.equal(lateByMoreThanInterval(daily, due, due + 24 * 3_600_000 + 60_000).late, true);
    assert.equal(lateByMoreThanInterval(daily, due, due + 23 * 3_600_000).late, false);
  });

  it('skip still runs a fire that is on time (a timer a few seconds late)', () => {
    const result = selectDueFires({ cron: '0 * * * *', timezone: 'UTC' }, T('2025-03-05T07:30:00Z'), T('2025-03-05T08:00:03Z'), 'skip');
    assert.deepEqual(result.run.map(iso), ['2025-03-05T08:00:00.000Z']);
    assert.equal(result.missed, false);
  });
});

describe('chores: ChoreScheduler', () => {
  let clock: FakeClock;
  let store: FakeTriggerStore;
  let persistence: InMemorySchedulePersistence;
  let logger: MemoryLogger;
  const make = () => new ChoreScheduler({ triggers: store, clock, persistence, logger });

  beforeEach(() => {
    clock = new FakeClock(T('2025-03-04T21:30:00Z'));
    store = new FakeTriggerStore();
    persistence = new InMemorySchedulePersistence();
    logger = new MemoryLogger();
  });

  it('emits a scheduled trigger with the dedup key when a cron fire comes due', async () => {
    const scheduler = make();
    scheduler.setChores([chore('nightly', '0 2 * * *')]);
    await scheduler.start();
    assert.equal(store.emitted.length, 0);
    assert.equal(iso(scheduler.nextFireAt('nightly')!), '2025-03-05T02:00:00.000Z');
    await clock.advance(4.5 * 3_600_000 - 1);
    assert.equal(store.emitted.length, 0, 'not before its time');
    await clock.advance(1);
    assert.equal(store.emitted.length, 1);
    const trigger = store.emitted[0];
    assert.equal(trigger.source, 'scheduled');
    assert.equal(trigger.dedupKey, 'chore:nightly:2025-03-05T02:00:00.000Z');
    assert.equal(iso(trigger.fireAt), '2025-03-05T02:00:00.000Z');
    assert.deepEqual(trigger.payload as ChoreFirePayload, { kind: 'chore_fire', choreId: 'nightly', fireTime: '2025-03-05T02:00:00.000Z', missed: false });
    // Not done yet: the schedule still points at this fire.
    assert.equal(iso(scheduler.nextFireAt('nightly')!), '2025-03-05T02:00:00.000Z');
    assert.ok(scheduler.isOutstanding('nightly', trigger.fireAt));
    await scheduler.markDone('nightly', trigger.fireAt);
    assert.equal(iso(scheduler.nextFireAt('nightly')!), '2025-03-06T02:00:00.000Z');
    assert.equal(persistence.records.get('nightly')?.nextFireAt, T('2025-03-06T02:00:00Z'));
    await clock.advance(24 * 3_600_000);
    assert.deepEqual(
      store.emitted.map((t) => t.dedupKey),
      ['chore:nightly:2025-03-05T02:00:00.000Z', 'chore:nightly:2025-03-06T02:00:00.000Z'],
    );
    scheduler.stop();
  });

  for (const [drift, expected] of [
    ['latest', ['08']],
    ['catchup', ['22', '23', '00', '01', '02', '03', '04', '05', '06', '07', '08'].slice(-10)],
    ['skip', ['08']],
  ] as Array<[DriftPolicy, string[]]>) {
    it(`after a night off, drift ${drift} emits ${expected.length} fire(s) and reschedules`, async () => {
      const first = make();
      first.setChores([chore('hourly', '0 * * * *', drift)]);
      await first.start();
      first.stop(); // the editor closes at 21:30
      clock.jump(T('2025-03-05T08:10:00Z') - clock.now());
      const second = make();
      second.setChores([chore('hourly', '0 * * * *', drift)]);
      await second.start();
      assert.deepEqual(
        store.emitted.map((t) => iso(t.fireAt).slice(11, 13)),
        expected,
      );
      assert.equal(iso(second.nextFireAt('hourly')!), iso(store.emitted[0].fireAt), 'points at the oldest fire not done');
      for (const t of store.emitted) await second.markDone('hourly', t.fireAt);
      assert.equal(iso(second.nextFireAt('hourly')!), '2025-03-05T09:00:00.000Z');
      second.stop();
    });
  }

  it('drift skip: a daily chore waking 3 min late runs; one more than a day late is skipped with its reason', async () => {
    const dropped: Array<{ choreId: string; fireAt: number; status: string; reason: string }> = [];
    const withDrops = () =>
      new ChoreScheduler({
        triggers: store,
        clock,
        persistence,
        logger,
        onDropped: async (id, list) => void dropped.push(...list.map((d) => ({ choreId: id, ...d }))),
      });
    const first = withDrops();
    first.setChores([chore('nightly', '0 2 * * *', 'skip')]);
    await first.start();
    first.stop(); // asleep from 21:30 until 02:03, three minutes after the fire
    clock.jump(T('2025-03-05T02:03:00Z') - clock.now());
    const woke = withDrops();
    woke.setChores([chore('nightly', '0 2 * * *', 'skip')]);
    await woke.start();
    assert.deepEqual(
      store.emitted.map((t) => iso(t.fireAt)),
      ['2025-03-05T02:00:00.000Z'],
    );
    assert.equal(dropped.length, 0);
    await woke.markDone('nightly', store.emitted[0].fireAt);
    woke.stop(); // asleep again until 03:00 the day after the next fire: 25 h past it
    clock.jump(T('2025-03-07T03:00:00Z') - clock.now());
    const late = withDrops();
    late.setChores([chore('nightly', '0 2 * * *', 'skip')]);
    await late.start();
    assert.deepEqual(
      store.emitted.map((t) => iso(t.fireAt)),
      ['2025-03-05T02:00:00.000Z', '2025-03-07T02:00:00.000Z'],
      "the 6th's fire is overtaken; the 7th's, an hour late, runs",
    );
    assert.deepEqual(
      dropped.map((d) => [d.choreId, iso(d.fireAt), d.status]),
      [['nightly', '2025-03-06T02:00:00.000Z', 'skipped']],
    );
    assert.match(dropped[0].reason, /drift: skip drops an occurrence more than one interval late/);
    late.stop();
  });

  it('never advances past a fire whose trigger could not be recorded', async () => {
    clock = new FakeClock(T('2025-03-05T01:59:00Z'));
    const scheduler = make();
    scheduler.setChores([chore('nightly', '0 2 * * *')]);
    await scheduler.start();
    store.failNext = 1;
    await clock.advance(60_000);
    assert.equal(store.emitted.length, 0);
    assert.ok(logger.lines.some((l) => l.includes('could not record the fire at 2025-03-05T02:00:00.000Z')));
    assert.equal(iso(scheduler.nextFireAt('nightly')!), '2025-03-05T02:00:00.000Z');
    await clock.advance(29_000);
    assert.equal(store.emitted.length, 0, 'waits the retry delay instead of spinning');
    await clock.advance(1_000);
    assert.deepEqual(
      store.emitted.map((t) => t.dedupKey),
      ['chore:nightly:2025-03-05T02:00:00.000Z'],
    );
    scheduler.stop();
  });

  it('a crash after the emit but before the schedule was saved does not make a second run', async () => {
    clock = new FakeClock(T('2025-03-05T01:59:00Z'));
    const scheduler = make();
    scheduler.setChores([chore('nightly', '0 2 * * *')]);
    const before = persistence.loadAll();
    await clock.advance(61_000);
    await scheduler.tick();
    assert.equal(store.emitted.length, 1);
    // The process dies before its schedule record reached disk: restore the old record.
    persistence.records.clear();
    for (const r of before) persistence.save(r);
    const revived = make();
    revived.setChores([chore('nightly', '0 2 * * *')]);
    await revived.start();
    assert.equal(store.emitted.length, 1, 'the same dedup key came back, no second trigger');
    assert.ok(revived.isOutstanding('nightly', T('2025-03-05T02:00:00Z')));
    revived.stop();
  });

  it('keeps an outstanding fire across a restart until it is marked done', async () => {
    clock = new FakeClock(T('2025-03-05T01:59:00Z'));
    const scheduler = make();
    scheduler.setChores([chore('nightly', '0 2 * * *')]);
    await scheduler.start();
    await clock.advance(120_000);
    scheduler.stop();
    const revived = make();
    revived.setChores([chore('nightly', '0 2 * * *')]);
    assert.ok(revived.isOutstanding('nightly', T('2025-03-05T02:00:00Z')));
    assert.equal(iso(revived.nextFireAt('nightly')!), '2025-03-05T02:00:00.000Z');
  });

  it('restarts the schedule when the cron changes and forgets removed chores', async () => {
    const scheduler = make();
    scheduler.setChores([chore('a', '0 2 * * *'), chore('b', '0 3 * * *')]);
    assert.equal(iso(scheduler.nextFireAt('a')!), '2025-03-05T02:00:00.000Z');
    scheduler.setChores([chore('a', '30 22 * * *')]);
    assert.equal(iso(scheduler.nextFireAt('a')!), '2025-03-04T22:30:00.000Z');
    assert.equal(scheduler.nextFireAt('b'), undefined);
    assert.equal(persistence.records.has('b'), false);
  });

  it('re-arms within maxTimerMs so a sleeping laptop is noticed', async () => {
    const scheduler = make();
    scheduler.setChores([chore('weekly', '0 9 * * 1')]);
    await scheduler.start();
    assert.equal(clock.pendingTimers(), 1);
    await clock.advance(3_600_000);
    assert.equal(clock.pendingTimers(), 1, 'still armed after the capped timer');
    scheduler.stop();
    assert.equal(clock.pendingTimers(), 0);
  });
});

describe('chores: DbSchedulePersistence (sql.js behind the DurableDb contract)', () => {
  it('saves, reloads and removes schedule records in the chores table', async () => {
    const db = await sqlJsMemoryDb();
    const query = db.query;
    const persistence = new DbSchedulePersistence(db, () => 42);
    persistence.save({ choreId: 'a', cronKey: '0 2 * * *|UTC', cursor: 10, outstanding: [5, 7], nextFireAt: 5 });
    persistence.save({ choreId: 'a', cronKey: '0 2 * * *|UTC', cursor: 11, outstanding: [7], nextFireAt: 7 });
    persistence.save({ choreId: 'b', cronKey: 'x|', cursor: 1, outstanding: [], nextFireAt: null });
    await persistence.flush();
    assert.equal(db.commits, 1);
    const again = new DbSchedulePersistence(db, () => 43);
    assert.deepEqual(again.loadAll(), [
      { choreId: 'a', cronKey: '0 2 * * *|UTC', cursor: 11, outstanding: [7], nextFireAt: 7 },
      { choreId: 'b', cronKey: 'x|', cursor: 1, outstanding: [], nextFireAt: null },
    ]);
    assert.deepEqual(query('SELECT updated_at FROM chores WHERE id = ?', ['a']), [{ updated_at: 42 }]);
    again.remove('a');
    assert.deepEqual(
      again.loadAll().map((r) => r.choreId),
      ['b'],
    );
    await db.close();
  });
});

describe('chores: a wall clock that jumps (the schedule follows the monotonic clock through an excursion)', () => {
  const MIN = 60_000;

  /** A scheduler on a fake wall clock with its own monotonic clock; `at(wall, mono)` sets both and ticks by hand. */
  async function jumpingScheduler(startIso: string, cron: string) {
    const clock = new FakeClock(T(startIso));
    let mono = 0;
    const store = new FakeTriggerStore();
    const dropped: string[] = [];
    const scheduler = new ChoreScheduler({
      triggers: store,
      clock,
      persistence: new InMemorySchedulePersistence(),
      logger: new MemoryLogger(),
      monotonic: () => mono,
      onDropped: async (_id, list) => void dropped.push(...list.map((d) => d.reason)),
    });
    scheduler.setChores([chore('c', cron)]);
    await scheduler.start();
    scheduler.stop(); // ticks are driven by hand below; the timers follow the fake wall clock
    const at = (wall: number, monoMs: number) => {
      clock.jump(wall - clock.now());
      mono = monoMs;
      return scheduler.tick();
    };
    return { store, dropped, at };
  }

  it('a day-ahead excursion at 01:30-02:15 runs that night under its own name, and the next night runs too', async () => {
    const { store, dropped, at } = await jumpingScheduler('2026-03-04T01:30:00Z', '0 2 * * *');
    await at(T('2026-03-05T02:00:00Z'), 30 * MIN); // 02:00 really, but the clock reads a day ahead
    await at(T('2026-03-04T02:15:00Z'), 45 * MIN); // NTP corrects it
    await at(T('2026-03-05T02:00:30Z'), 24 * 60 * MIN + 30 * MIN + 30_000); // the next night, really
    const keys = store.emitted.map((t) => t.dedupKey);
    assert.deepEqual(keys, ['chore:c:2026-03-04T02:00:00.000Z', 'chore:c:2026-03-05T02:00:00.000Z']);
    assert.deepEqual(dropped, [], 'an on-time fire was recorded as missed');
    assert.equal((store.emitted[0].payload as ChoreFirePayload).missed, false);
  });

  it('a forward step that lasts an hour is believed, and what it jumped over is said to be jumped over', async () => {
    const { store, dropped, at } = await jumpingScheduler('2026-03-04T10:00:00Z', '0 * * * *');
    const atStart = store.emitted.length; // the 10:00 fire, due as it started
    // The clock was five hours behind and is corrected forward at 10:10 (real time unknown to us).
    await at(T('2026-03-04T15:10:00Z'), 10 * MIN);
    assert.equal(store.emitted.length, atStart, 'not believed at once');
    await at(T('2026-03-04T16:00:00Z'), 60 * MIN); // the schedule's 11:00, by the monotonic clock
    assert.equal(store.emitted.length, atStart + 1);
    assert.equal(store.emitted.at(-1)!.dedupKey, 'chore:c:2026-03-04T11:00:00.000Z');
    await at(T('2026-03-04T16:15:00Z'), 75 * MIN); // it stayed: believed
    assert.ok(store.emitted.length > atStart + 1);
    assert.ok(dropped.length > 0 && dropped.every((r) => /system clock jumped forward/.test(r)), dropped.join('\n'));
    assert.ok(!dropped.some((r) => /VS Code was closed/.test(r)));
  });
});
