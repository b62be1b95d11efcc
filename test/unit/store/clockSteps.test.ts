import * as assert from 'node:assert/strict';
import type { OpenedDurableDb } from '../../../src/core/store/durableDb';
import { openDurableDb } from '../../../src/core/store/durableDb';
import { createTriggerStore } from '../../../src/core/store/triggerStore';
import type { Lease } from '../../../src/core/store/types';
import { FakeClock, removeTempDirs, sqlJs, tempDir } from './helpers';

const HOUR = 3_600_000;

/**
 * A wall clock that steps (docs/STORAGE.md "Time that jumps"): `clock` is the wall clock (a test
 * sets it back), `mono` the monotonic one that only moves forward with real waiting.
 */
describe('store: the wall clock set back', function () {
  this.timeout(20_000);
  const opened: OpenedDurableDb[] = [];
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
    removeTempDirs();
  });

  async function setUp() {
    const clock = new FakeClock(Date.UTC(2026, 11, 6, 12));
    let mono = 0;
    const db = await openDurableDb({ dir: tempDir(), sqlJs: await sqlJs(), clock, lease: { recheckMs: 20 } });
    opened.push(db);
    const store = await createTriggerStore(db, { clock, restartNoticeSession: false, monotonic: () => mono });
    const pass = (ms: number) => {
      mono += ms;
      clock.advance(ms);
    };
    return { clock, db, store, pass };
  }

  /** The lease, if next() delivers without the fake wall clock moving (bounded by 5 s of real time for its disk write). */
  async function resolvesNow(promise: Promise<Lease>): Promise<Lease | undefined> {
    let giveUp!: (value: undefined) => void;
    const bound = new Promise<undefined>((resolve) => (giveUp = resolve));
    const timer = setTimeout(() => giveUp(undefined), 5_000);
    try {
      return await Promise.race([promise, bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  it('a message queued behind a running turn is delivered when the turn ends, not an hour later', async () => {
    const { clock, store, pass } = await setUp();
    await store.emit({ source: 'user_message', sessionId: 's1', payload: { text: 'first' } });
    const first = await store.next();
    await store.emit({ source: 'user_message', sessionId: 's2', payload: { text: 'second' } });
    pass(500);
    clock.time -= HOUR; // NTP corrects a clock that ran an hour ahead, during the turn
    await store.ack(first.token);
    const second = await resolvesNow(store.next());
    assert.ok(second, 'the queued message waits for the wall clock to catch up');
    assert.equal((second.trigger.payload as { text: string }).text, 'second');
  });

  it('a retry keeps its delay from now: a 2 s backoff stays 2 s, not 2 s plus the step', async () => {
    const { clock, db, store, pass } = await setUp();
    await store.emit({ source: 'user_message', sessionId: 's', payload: { text: 'q' } });
    const lease = await store.next();
    await store.nack(lease.token, 'model overloaded');
    const retryAt = Number(db.query('SELECT fire_at FROM triggers WHERE id = ?', [lease.trigger.id])[0].fire_at);
    const delay = retryAt - clock.now();
    assert.ok(delay > 0 && delay < 60_000, `backoff ${delay} ms`);
    clock.time -= 24 * HOUR; // a day-ahead clock corrected
    const next = store.next();
    pass(delay + 10);
    const again = await resolvesNow(next);
    assert.ok(again, 'the retry waits a day for the wall clock');
    assert.equal(again.trigger.id, lease.trigger.id);
  });
});
