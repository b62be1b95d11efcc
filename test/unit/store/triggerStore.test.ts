import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { OpenedDurableDb } from '../../../src/core/store/durableDb';
import { openDurableDb } from '../../../src/core/store/durableDb';
import type { StartingTriggerStore, TriggerStoreOptions } from '../../../src/core/store/triggerStore';
import { createTriggerStore, startTriggerStore } from '../../../src/core/store/triggerStore';
import type { Trigger } from '../../../src/core/store/types';
import { FakeClock, removeTempDirs, settle, sqlJs, tempDir } from './helpers';

describe('store: trigger store', () => {
  let clock: FakeClock;
  let dir: string;
  let db: OpenedDurableDb;
  let store: StartingTriggerStore;
  const dead: Trigger[] = [];

  async function openStore(options: TriggerStoreOptions = {}): Promise<StartingTriggerStore> {
    db = await openDurableDb({ dir, sqlJs: await sqlJs(), clock });
    store = await createTriggerStore(db, { random: () => 0.5, onDeadLetter: (t) => dead.push(t), ...options });
    return store;
  }

  /** Crash: forget the process without closing anything, release its lease file. */
  async function crashAndReopen(options: TriggerStoreOptions = {}): Promise<StartingTriggerStore> {
    await db.commit();
    fs.rmSync(path.join(dir, 'lease.json'));
    return openStore(options);
  }

  beforeEach(async () => {
    clock = new FakeClock();
    dir = tempDir('triggers');
    dead.length = 0;
    await openStore();
  });

  afterEach(async () => {
    await store.close();
    await db.close();
    removeTempDirs();
  });

  it('is durable when emit resolves (visible after a crash)', async () => {
    const t = await store.emit({ source: 'user_message', sessionId: 's1', payload: { text: 'hi' } });
    assert.equal(t.priority, 10);
    await crashAndReopen();
    assert.deepEqual(
      store.pending('s1').map((p) => [p.id, p.payload]),
      [[t.id, { text: 'hi' }]],
    );
  });

  it('claims by priority, then fire_at, then emit order', async () => {
    const now = clock.now();
    await store.emit({ source: 'scheduled', sessionId: 'a', fireAt: now - 10, priority: 100, payload: 'late-low' });
    await store.emit({ source: 'scheduled', sessionId: 'b', fireAt: now - 20, priority: 100, payload: 'early-low' });
    await store.emit({ source: 'user_message', sessionId: 'c', payload: 'user' });
    await store.emit({ source: 'scheduled', sessionId: 'd', fireAt: now - 20, priority: 100, payload: 'early-low-2' });
    await store.emit({ source: 'scheduled', sessionId: 'e', fireAt: now + 1000, priority: 1, payload: 'future' });
    const order: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      const lease = await store.next();
      order.push(lease.trigger.payload);
      assert.ok(await store.ack(lease.token));
    }
    assert.deepEqual(order, ['user', 'early-low', 'early-low-2', 'late-low']);
  });

  it('waits on one timer for the earliest future trigger and is woken early by emit', async () => {
    await store.emit({ source: 'scheduled_once', sessionId: 's', fireAt: clock.now() + 5000, payload: 'later' });
    let got: unknown = null;
    const waiting = store.next().then((l) => (got = l.trigger.payload));
    await settle();
    assert.equal(got, null);
    assert.deepEqual(clock.pendingTimers(), [5000]); // one timer, no polling
    clock.advance(4999);
    await settle();
    assert.equal(got, null);
    clock.advance(1);
    await waiting;
    assert.equal(got, 'later');

    let second: unknown = null;
    const waiting2 = store.next().then((l) => (second = l.trigger.payload));
    await settle();
    assert.deepEqual(clock.pendingTimers(), []); // nothing pending: no timer at all
    await store.emit({ source: 'user_message', sessionId: 's', payload: 'now' });
    await waiting2;
    assert.equal(second, 'now');
  });

  it('next() can be aborted', async () => {
    const controller = new AbortController();
    const waiting = store.next(controller.signal);
    await settle();
    controller.abort();
    await assert.rejects(waiting, { name: 'AbortError' });
  });

  it('only the current lease token acks or nacks', async () => {
    await store.emit({ source: 'user_message', sessionId: 's', payload: 1 });
    const lease = await store.next();
    assert.equal(lease.trigger.attempts, 1);
    assert.equal(await store.ack('not-a-token'), false);
    assert.equal(await store.nack('not-a-token', 'x'), false);
    assert.equal(store.pending('s')[0].status, 'claimed');
    assert.equal(await store.ack(lease.token), true);
    assert.equal(await store.ack(lease.token), false); // second ack is stale
    assert.deepEqual(store.pending(), []);
    // Acked without a dedup key: it left the hot db for the history file.
    assert.equal(db.query(`SELECT count(*) AS n FROM triggers`)[0].n, 0);
    await store.close();
    const history = fs
      .readFileSync(path.join(dir, 'history', 'triggers.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      history.map((h) => [h.payload, h.status]),
      [[1, 'done']],
    );
  });

  it('ackAndEmit settles a claim and queues its successor in one journal record: a crash keeps both', async () => {
    await store.emit({ source: 'task_continuation', sessionId: 't', dedupKey: 'cont:t:0:next' });
    const lease = await store.next();
    const before = db.lastLsn;
    const { acked, trigger } = await store.ackAndEmit(lease.token, { source: 'task_continuation', sessionId: 't', dedupKey: 'cont:t:1:next' });
    assert.equal(acked, true);
    assert.equal(db.lastLsn, before + 1, 'the ack and the successor are one record');
    await crashAndReopen({ restartNoticeSession: false });
    assert.deepEqual(
      store.pending('t').map((t) => [t.id, t.status]),
      [[trigger.id, 'pending']],
    );
    assert.equal(db.query(`SELECT status FROM triggers WHERE id = ?`, [lease.trigger.id])[0].status, 'done');
    assert.equal(store.recovery.redelivered.length, 0);
    // A stale token acks nothing; the emit still happens (dedup rules as for emit).
    const again = await store.ackAndEmit(lease.token, { source: 'task_continuation', sessionId: 't', dedupKey: 'cont:t:2:next' });
    assert.equal(again.acked, false);
    assert.equal(store.pending('t').length, 2);
  });

  it('ackAndEmit whose record never reached the disk keeps neither: the claim is re-delivered, no successor', async () => {
    await store.emit({ source: 'task_continuation', sessionId: 't', dedupKey: 'cont:t:0:next' });
    const lease = await store.next();
    await db.commit();
    // Everything up to the claim is on disk; the process dies before the next write is durable.
    const onDisk = tempDir('triggers-crash');
    fs.cpSync(dir, onDisk, { recursive: true });
    await store.ackAndEmit(lease.token, { source: 'task_continuation', sessionId: 't', dedupKey: 'cont:t:1:next' });
    await store.close();
    await db.close();
    dir = onDisk;
    fs.rmSync(path.join(dir, 'lease.json'));
    await openStore({ restartNoticeSession: false });
    assert.deepEqual(store.recovery.redelivered, [lease.trigger.id]);
    assert.deepEqual(
      store.pending('t').map((t) => [t.id, t.status, t.dedupKey]),
      [[lease.trigger.id, 'pending', 'cont:t:0:next']],
    );
  });

  it('a stale token from before a re-delivery changes nothing', async () => {
    await store.emit({ source: 'task_event', sessionId: 's', payload: 'x' });
    const first = await store.next();
    await crashAndReopen({ restartNoticeSession: false });
    const second = await store.next();
    assert.equal(second.trigger.id, first.trigger.id);
    assert.equal(second.trigger.attempts, 2); // attempts kept across the crash
    assert.equal(await store.ack(first.token), false);
    assert.equal(await store.ack(second.token), true);
  });

  it('nack backs off exponentially within the jitter bounds, then dead-letters visibly', async () => {
    await store.close();
    await db.close();
    const randoms = [0, 0.999999, 0.5, 0];
    let r = 0;
    await openStore({
      retry: { baseMs: 1000, capMs: 3000, maxAttempts: 4, jitter: 0.25 },
      random: () => randoms[r++ % randoms.length],
      restartNoticeSession: false,
    });
    const t = await store.emit({ source: 'task_continuation', sessionId: 's', payload: 'flaky' });
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const lease = await store.next();
      assert.equal(lease.trigger.attempts, attempt);
      const before = clock.now();
      assert.ok(await store.nack(lease.token, `fail ${attempt}`));
      const pending = store.pending('s')[0];
      assert.equal(pending.lastError, `fail ${attempt}`);
      delays.push(pending.fireAt - before);
      clock.advance(pending.fireAt - before);
    }
    // attempt 1: 1000 * (1 - 0.25); attempt 2: 2000 * (1 + ~0.25); attempt 3: min(3000, 4000) * 1
    assert.equal(delays[0], 750);
    assert.ok(delays[1] >= 2499 && delays[1] <= 2500, String(delays[1]));
    assert.equal(delays[2], 3000);
    const last = await store.next();
    assert.equal(last.trigger.attempts, 4);
    assert.ok(await store.nack(last.token, 'still failing'));
    assert.deepEqual(store.pending(), []);
    assert.deepEqual(
      store.deadLetters().map((d) => [d.id, d.status, d.lastError]),
      [[t.id, 'dead', 'still failing']],
    );
    assert.deepEqual(
      dead.map((d) => d.id),
      [t.id],
    );

    const retried = await store.retryDead(t.id);
    assert.equal(retried.status, 'pending');
    assert.equal(retried.attempts, 0);
    assert.deepEqual(store.deadLetters(), []);
    await assert.rejects(store.retryDead(t.id), /not a dead letter/);
  });

  describe('dedup keys, per state of the existing trigger', () => {
    it('pending: returns the existing trigger', async () => {
      const a = await store.emit({ source: 'scheduled', sessionId: 's', dedupKey: 'chore:x@1', payload: 1 });
      const b = await store.emit({ source: 'scheduled', sessionId: 's', dedupKey: 'chore:x@1', payload: 2 });
      assert.equal(b.id, a.id);
      assert.equal(b.payload, 1);
      assert.equal(store.pending().length, 1);
    });

    it('claimed: returns the existing (claimed) trigger', async () => {
      const a = await store.emit({ source: 'resume', sessionId: 's', dedupKey: 'resume:t1' });
      await store.next();
      const b = await store.emit({ source: 'resume', sessionId: 's', dedupKey: 'resume:t1' });
      assert.equal(b.id, a.id);
      assert.equal(b.status, 'claimed');
    });

    it('done within retention: returns the done trigger; past retention: a new one', async () => {
      const a = await store.emit({ source: 'scheduled', sessionId: 's', dedupKey: 'k' });
      assert.ok(await store.ack((await store.next()).token));
      clock.advance(24 * 3_600_000 - 1);
      const b = await store.emit({ source: 'scheduled', sessionId: 's', dedupKey: 'k' });
      assert.equal(b.id, a.id);
      assert.equal(b.status, 'done');
      assert.deepEqual(store.pending(), []);
      clock.advance(1);
      const c = await store.emit({ source: 'scheduled', sessionId: 's', dedupKey: 'k' });
      assert.notEqual(c.id, a.id);
      assert.equal(c.status, 'pending');
    });

    it('dead: returns the dead letter (retryDead re-runs it), so a poison pill is not re-armed by a re-emit', async () => {
      await store.close();
      await db.close();
      await openStore({ retry: { maxAttempts: 1 }, restartNoticeSession: false });
      const a = await store.emit({ source: 'resume', sessionId: 's', dedupKey: 'resume:t9' });
      await store.nack((await store.next()).token, 'bad');
      const b = await store.emit({ source: 'resume', sessionId: 's', dedupKey: 'resume:t9' });
      assert.equal(b.id, a.id);
      assert.equal(b.status, 'dead');
      assert.deepEqual(store.pending(), []);
    });

    it('cancelled: the key is free again', async () => {
      const a = await store.emit({ source: 'scheduled', sessionId: 's', dedupKey: 'c' });
      assert.equal(await store.cancel('s'), 1);
      const b = await store.emit({ source: 'scheduled', sessionId: 's', dedupKey: 'c' });
      assert.notEqual(b.id, a.id);
    });
  });

  describe('coalescing', () => {
    it('collapses pending continuations of one session, keeping the earliest fire time', async () => {
      const now = clock.now();
      const a = await store.emit({ source: 'task_continuation', sessionId: 's', fireAt: now + 100 });
      const b = await store.emit({ source: 'task_continuation', sessionId: 's', fireAt: now + 50 });
      const other = await store.emit({ source: 'task_continuation', sessionId: 'other' });
      assert.equal(b.id, a.id);
      assert.equal(b.fireAt, now + 50);
      assert.deepEqual(
        store
          .pending()
          .map((t) => t.id)
          .sort(),
        [a.id, other.id].sort(),
      );
    });

    it('never coalesces user messages', async () => {
      await store.emit({ source: 'user_message', sessionId: 's', payload: 'one' });
      await store.emit({ source: 'user_message', sessionId: 's', payload: 'two' });
      assert.deepEqual(
        store.pending('s').map((t) => t.payload),
        ['one', 'two'],
      );
    });

    it('a newer continuation does not swallow a pending retry, and the retry does not replace it', async () => {
      await store.emit({ source: 'task_continuation', sessionId: 's', payload: 'old' });
      const lease = await store.next();
      await store.nack(lease.token, 'turn failed');
      const fresh = await store.emit({ source: 'task_continuation', sessionId: 's', payload: 'new' });
      assert.notEqual(fresh.id, lease.trigger.id);
      const pending = store.pending('s');
      assert.deepEqual(pending.map((t) => t.payload).sort(), ['new', 'old']);
      // The fresh one is due now; the retry waits out its backoff.
      const next = await store.next();
      assert.equal(next.trigger.payload, 'new');
    });
  });

  it('rearm, pullForward and cancel', async () => {
    const now = clock.now();
    const waiting = await store.emit({ source: 'task_event', sessionId: 'w', payload: 'wait' });
    const lease = await store.next();
    assert.equal(lease.trigger.id, waiting.id);
    await store.rearm(waiting.id, now + 3 * 3_600_000); // waiting for the user: re-arm 3 h later
    const rearmed = store.pending('w')[0];
    assert.equal(rearmed.status, 'pending');
    assert.equal(rearmed.attempts, 0);
    assert.equal(rearmed.fireAt, now + 3 * 3_600_000);
    assert.equal(await store.ack(lease.token), false); // its lease ended with the re-arm

    let got: unknown = null;
    const next = store.next().then((l) => (got = l.trigger.payload));
    await settle();
    assert.equal(got, null);
    await store.pullForward('w'); // the user replied
    await next;
    assert.equal(got, 'wait');

    await store.emit({ source: 'task_continuation', sessionId: 'x', fireAt: now + 10 });
    await store.emit({ source: 'user_message', sessionId: 'x' });
    await store.emit({ source: 'user_message', sessionId: 'y' });
    assert.equal(await store.cancel('x'), 2);
    assert.deepEqual(
      store
        .pending()
        .map((t) => t.sessionId)
        .sort(),
      ['w', 'y'],
    );
    await assert.rejects(store.rearm('nope', 1), /unknown; only a pending or claimed/);
  });

  describe('drained(now)', () => {
    /** Watches a drained() promise; settle() runs its callbacks, since only an ack, nack, rearm or cancel can resolve it. */
    const watch = (promise: Promise<void>) => {
      const seen = { drained: false, error: undefined as Error | undefined };
      promise.then(
        () => (seen.drained = true),
        (error: Error) => (seen.error = error),
      );
      return seen;
    };

    it('resolves at once with nothing claimed or due, a future trigger included', async () => {
      await store.drained(clock.now());
      await store.emit({ source: 'scheduled', sessionId: 'later', fireAt: clock.now() + 60_000 });
      await store.drained(clock.now());
    });

    it('waits for a due trigger to be claimed and acked, not just claimed', async () => {
      const now = clock.now();
      await store.emit({ source: 'user_message', sessionId: 's', payload: 'due' });
      const seen = watch(store.drained(now));
      await settle();
      assert.equal(seen.drained, false, 'a trigger is due');
      const lease = await store.next();
      await settle();
      assert.equal(seen.drained, false, 'claimed, still being handled');
      await store.ack(lease.token);
      await settle();
      assert.equal(seen.drained, true, 'acked: nothing left at now');
    });

    it('is told by a nack into backoff, a re-arm and a cancel too; a later `now` still sees what falls due by then', async () => {
      const now = clock.now();
      await store.emit({ source: 'task_continuation', sessionId: 'a' });
      const failing = watch(store.drained(now));
      await store.nack((await store.next()).token, 'model down');
      await settle();
      assert.equal(failing.drained, true, 'the retry waits out its backoff');
      const retryAt = store.pending('a')[0].fireAt;
      const atRetry = watch(store.drained(retryAt));
      await settle();
      assert.equal(atRetry.drained, false, 'the retry is due at its own time');

      await store.emit({ source: 'task_event', sessionId: 'b' });
      await store.cancel('a');
      const rearming = watch(store.drained(now));
      const lease = await store.next();
      await store.rearm(lease.trigger.id, now + 3_600_000);
      await settle();
      assert.equal(rearming.drained, true, 're-armed for later');
      assert.equal(atRetry.drained, true, 'the cancel took the retry away');

      await store.emit({ source: 'user_message', sessionId: 'c' });
      const cancelled = watch(store.drained(now));
      await settle();
      assert.equal(cancelled.drained, false);
      assert.equal(await store.cancel('c'), 1);
      await settle();
      assert.equal(cancelled.drained, true);
    });

    it('rejects its waiters when the store closes first', async () => {
      await store.emit({ source: 'user_message', sessionId: 's' });
      const seen = watch(store.drained(clock.now()));
      await store.close();
      await settle();
      assert.match(seen.error?.message ?? '', /closed before it drained/);
      await assert.rejects(store.drained(clock.now()), /closed before it drained/);
    });
  });

  describe('start-up recovery', () => {
    it("re-delivers a dead owner's claims with attempts kept and emits one restart notice", async () => {
      const t = await store.emit({ source: 'user_message', sessionId: 's', payload: 'in flight' });
      await store.next();
      await crashAndReopen();
      assert.deepEqual(store.recovery.redelivered, [t.id]);
      const pending = store.pending();
      assert.deepEqual(
        pending.map((p) => p.source),
        ['restart_notice', 'user_message'],
      );
      assert.equal(pending[1].attempts, 1);
      assert.equal(pending[1].status, 'pending');
      // A second store on the same db (same owner) adds no second notice.
      const again = await createTriggerStore(db, {});
      assert.equal(again.recovery.restartNotice, null);
      assert.equal(store.pending().filter((p) => p.source === 'restart_notice').length, 1);
    });

    it('collapses restart notices of restarts that were never delivered', async () => {
      await crashAndReopen();
      await crashAndReopen();
      const notices = store.pending().filter((p) => p.source === 'restart_notice');
      assert.equal(notices.length, 1);
      assert.equal((notices[0].payload as { restarts: number }).restarts, 2);
    });

    it('dead-letters a poison pill that crashed the process at every delivery', async () => {
      await store.close();
      await db.close();
      await openStore({ retry: { maxAttempts: 3 }, restartNoticeSession: false });
      const pill = await store.emit({ source: 'task_continuation', sessionId: 's', payload: 'poison' });
      for (let crash = 1; crash <= 3; crash++) {
        const lease = await store.next(); // deliver... and "crash" before ack/nack
        assert.equal(lease.trigger.attempts, crash);
        await crashAndReopen({ retry: { maxAttempts: 3 }, restartNoticeSession: false });
      }
      assert.deepEqual(store.recovery.deadLettered, [pill.id]);
      assert.deepEqual(store.pending(), []);
      assert.equal(store.deadLetters()[0].id, pill.id);
      assert.match(store.deadLetters()[0].lastError ?? '', /stopped .* 3 time/);
      assert.deepEqual(
        dead.map((d) => d.id),
        [pill.id],
      );
    });

    it('emits made while recovery runs are neither lost nor doubled', async () => {
      const claimed = await store.emit({ source: 'resume', sessionId: 's', dedupKey: 'resume:t1', payload: 'resume' });
      await store.next();
      await db.commit();
      fs.rmSync(path.join(dir, 'lease.json'));
      db = await openDurableDb({ dir, sqlJs: await sqlJs(), clock });
      store = startTriggerStore(db, { restartNoticeSession: false });
      // Activation re-queues the resume trigger while recovery re-delivers it, and a user message arrives.
      const [resume, message] = await Promise.all([
        store.emit({ source: 'resume', sessionId: 's', dedupKey: 'resume:t1', payload: 'resume again' }),
        store.emit({ source: 'user_message', sessionId: 's', payload: 'hello' }),
        store.ready,
      ]);
      assert.equal(resume.id, claimed.id);
      const pending = store.pending('s');
      assert.deepEqual(
        pending.map((p) => p.payload),
        ['hello', 'resume'],
      );
      assert.equal(pending.find((p) => p.id === message.id)?.status, 'pending');
      const delivered = [await store.next(), await store.next()].map((l) => l.trigger.id);
      assert.deepEqual(delivered.sort(), [claimed.id, message.id].sort());
    });
  });
});
