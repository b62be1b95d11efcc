import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { OpenedDurableDb, OpenDurableDbOptions } from '../../../src/core/store/durableDb';
import { openDurableDb } from '../../../src/core/store/durableDb';
import { decodeJournal } from '../../../src/core/store/journalFormat';
import { readLease } from '../../../src/core/store/lease';
import type { LeaseTimers } from '../../../src/core/store/lease';
import type { JournalIo } from '../../../src/core/store/storeFiles';
import { listStoreDir, nodeJournalIo } from '../../../src/core/store/storeFiles';
import { createTriggerStore } from '../../../src/core/store/triggerStore';
import { FakeClock, removeTempDirs, settle, sqlJs, tempDir } from './helpers';

const INSERT = `INSERT INTO sessions (id, status, data, updated_at) VALUES (?, 'a', '{}', 1)`;

function ids(db: OpenedDurableDb): string[] {
  return db.query(`SELECT id FROM sessions ORDER BY rowid`).map((r) => String(r.id));
}

/** Fails writes with the given errno while `failing` is set. */
function faultyIo(): JournalIo & { failing: string | null } {
  const io = {
    ...nodeJournalIo,
    failing: null as string | null,
    write(fd: number, data: Buffer, position: number): Promise<void> {
      if (!io.failing) return nodeJournalIo.write(fd, data, position);
      const error = Object.assign(new Error(`${io.failing}: simulated`), { code: io.failing });
      // A full disk often lets part of the write through: leave a torn tail behind.
      return nodeJournalIo.write(fd, data.subarray(0, Math.floor(data.length / 2)), position).then(() => Promise.reject(error));
    },
    fdatasync: nodeJournalIo.fdatasync,
  };
  return io;
}

describe('store: faults', function () {
  this.timeout(30_000);
  const opened: OpenedDurableDb[] = [];
  const children: ChildProcess[] = [];
  const notices: string[] = [];

  async function openDb(dir: string, extra: Partial<OpenDurableDbOptions> = {}): Promise<OpenedDurableDb> {
    const db = await openDurableDb({ dir, sqlJs: await sqlJs(), onNotice: (m) => notices.push(m), lease: { recheckMs: 20 }, ...extra });
    opened.push(db);
    return db;
  }

  /** Forget a db as a crash would (no close), letting a new open take the store. */
  function crash(db: OpenedDurableDb): void {
    opened.splice(opened.indexOf(db), 1);
    fs.rmSync(path.join(db.dir, 'lease.json'), { force: true });
  }

  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    for (const db of opened.splice(0)) await db.close();
    notices.length = 0;
    removeTempDirs();
  });

  it('ignores a torn last journal record, keeps everything before it, and writes cleanly after it', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    for (const id of ['a', 'b', 'c']) db.mutate(INSERT, [id]);
    await db.commit();
    crash(db);
    const segment = listStoreDir(dir).journals.at(-1)!.file;
    // The crash cut the last record short (segments carry zero-filled room past their end).
    fs.truncateSync(segment, decodeJournal(fs.readFileSync(segment)).validBytes - 5);

    const again = await openDb(dir);
    assert.equal(again.opened.tornRecordIgnored, true);
    assert.ok(again.opened.ignoredBytes > 0);
    assert.deepEqual(ids(again), ['a', 'b']);
    assert.ok(
      notices.some((n) => /cut short.*everything before them kept/.test(n)),
      notices.join('\n'),
    );
    again.mutate(INSERT, ['d']);
    await again.commit();
    crash(again);
    notices.length = 0;
    const third = await openDb(dir);
    assert.equal(third.opened.tornRecordIgnored, false); // the torn tail was cut off at the previous open
    assert.deepEqual(ids(third), ['a', 'b', 'd']);
  });

  it('stops at a corrupt (bit-flipped) record and keeps the records before it', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    db.mutate(INSERT, ['a']);
    await db.commit();
    db.mutate(INSERT, ['b']);
    await db.commit();
    crash(db);
    const segment = listStoreDir(dir).journals.at(-1)!.file;
    const bytes = fs.readFileSync(segment);
    bytes[decodeJournal(bytes).validBytes - 3] ^= 0xff;
    fs.writeFileSync(segment, bytes);
    const again = await openDb(dir);
    assert.equal(again.opened.tornRecordIgnored, true);
    assert.deepEqual(ids(again), ['a']);
  });

  it('falls back to the previous good snapshot when the newest is corrupt, and says so', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    db.mutate(INSERT, ['a']);
    await db.snapshot();
    db.mutate(INSERT, ['b']);
    await db.snapshot();
    db.mutate(INSERT, ['c']);
    await db.commit();
    crash(db);
    const newest = listStoreDir(dir).snapshots[0].file;
    const bytes = fs.readFileSync(newest);
    bytes[100] ^= 0x55;
    fs.writeFileSync(newest, bytes);

    const again = await openDb(dir);
    assert.equal(again.opened.snapshotFallback, true);
    assert.match(again.opened.corruptSnapshots[0], /checksum mismatch/);
    assert.deepEqual(ids(again), ['a', 'b', 'c']); // previous snapshot + the journal it still needs
    assert.ok(
      notices.some((n) => /damaged; it recovered from the previous good snapshot/.test(n)),
      notices.join('\n'),
    );
  });

  it('rejects commit on ENOSPC with a clear error, is not durable until a later commit succeeds, and loses nothing', async () => {
    const dir = tempDir();
    const io = faultyIo();
    const db = await openDb(dir, { io });
    db.mutate(INSERT, ['a']);
    await db.commit();
    assert.equal(db.durable, true);

    io.failing = 'ENOSPC';
    db.mutate(INSERT, ['b']);
    await assert.rejects(db.commit(), (error: Error) => {
      assert.match(error.message, /the disk is full \[ENOSPC\]/);
      assert.match(error.message, /Free disk space/);
      assert.match(error.message, /no irreversible action/);
      return true;
    });
    assert.equal(db.durable, false);
    assert.ok(notices.some((n) => /ENOSPC/.test(n)));
    await assert.rejects(db.commit(), /ENOSPC/); // still failing: still rejected

    io.failing = null;
    db.mutate(INSERT, ['c']);
    await db.commit();
    assert.equal(db.durable, true);
    crash(db);
    const again = await openDb(dir);
    assert.deepEqual(ids(again), ['a', 'b', 'c']); // the failed batch was rewritten, once, in order
  });

  it('reports EACCES on commit, and a trigger emit rejects instead of claiming durability', async () => {
    const dir = tempDir();
    const io = faultyIo();
    const db = await openDb(dir, { io });
    const store = await createTriggerStore(db, { restartNoticeSession: false });
    io.failing = 'EACCES';
    await assert.rejects(store.emit({ source: 'user_message', sessionId: 's' }), /permission was denied \[EACCES\]/);
    assert.equal(db.durable, false);
    io.failing = null;
    await db.commit();
    assert.equal(db.durable, true);
    await store.close();
  });

  it('a failed claim write does not stop the consumer: it waits, claims again when space returns, and delivers once', async () => {
    const dir = tempDir();
    const io = faultyIo();
    const db = await openDb(dir, { io });
    const clock = new FakeClock(Date.now());
    const store = await createTriggerStore(db, { restartNoticeSession: false, clock });
    const emitted = await store.emit({ source: 'user_message', sessionId: 's', payload: { text: 'question 1' } });
    io.failing = 'ENOSPC';
    let settled: unknown = undefined;
    const claimed = store.next().then(
      (lease) => (settled = lease),
      (error) => (settled = error),
    );
    // The claim's write fails and the claim is given back; next() keeps waiting (before the fix it
    // rejected, and the agent's loop ended until a reload).
    const status = () => db.query(`SELECT status FROM triggers WHERE id = ?`, [emitted.id])[0].status;
    // Bounded by time, not by ticks: on a busy machine the failed write takes many ticks.
    for (const end = Date.now() + 10_000; !(status() === 'pending' && !db.durable) && Date.now() < end;) await settle(1);
    assert.equal(status(), 'pending');
    assert.equal(db.durable, false);
    await settle(5);
    assert.equal(settled, undefined, `next() settled while the disk was full: ${String(settled)}`);
    io.failing = null;
    clock.advance(1_000);
    const lease = (await claimed) as Awaited<ReturnType<typeof store.next>>;
    assert.equal(lease.trigger.id, emitted.id);
    assert.equal(lease.trigger.attempts, 1);
    assert.equal(await store.ack(lease.token), true);
    crash(db);
    const again = await openDb(dir);
    const rows = again.query(`SELECT status FROM triggers WHERE id = ?`, [emitted.id]);
    assert.ok(rows.length === 0 || rows[0].status === 'done', 'acked once, never pending again');
  });

  it('never exports inside a transaction: a snapshot asked for mid-transaction sees the committed result', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    let snap: Promise<void> = Promise.resolve();
    db.transaction((tx) => {
      tx.mutate(INSERT, ['in-tx-1']);
      snap = db.snapshot();
      tx.mutate(INSERT, ['in-tx-2']);
    });
    await snap;
    assert.deepEqual(ids(db), ['in-tx-1', 'in-tx-2']); // an export inside would have rolled this back
    db.mutate(INSERT, ['after']); // statements re-prepared after export
    await db.commit();
    crash(db);
    const again = await openDb(dir);
    assert.ok(again.opened.snapshotLsn >= 2);
    assert.deepEqual(ids(again), ['in-tx-1', 'in-tx-2', 'after']);
  });

  it('a second open in the same process is read-only and names the owner pid', async () => {
    const dir = tempDir();
    const owner = await openDb(dir);
    owner.mutate(INSERT, ['a']);
    await owner.commit();
    const second = await openDb(dir);
    assert.equal(second.readOnly, true);
    assert.equal(second.durable, false);
    assert.equal(second.opened.owner?.pid, process.pid);
    assert.deepEqual(ids(second), ['a']); // it can still read
    assert.throws(() => second.mutate(INSERT, ['b']), new RegExp(`in use by another process \\(pid ${process.pid}`));
    await assert.rejects(second.commit(), /read-only/);
    assert.ok(notices.some((n) => n.includes(`pid ${process.pid}`)));
  });

  it('a real second process: read-only while it lives, stale lease taken over after it is killed', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, 'fixtures', 'holdStore.ts'), dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const hello = await new Promise<{ pid: number; readOnly: boolean }>((resolve, reject) => {
      child.stdout!.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString())));
      child.once('exit', (code) => reject(new Error(`holder exited early (${code})`)));
    });
    assert.equal(hello.readOnly, false);
    assert.equal(readLease(dir)?.pid, child.pid);

    const second = await openDb(dir);
    assert.equal(second.readOnly, true);
    assert.equal(second.opened.owner?.pid, child.pid);
    await second.close();
    opened.splice(opened.indexOf(second), 1);

    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const taker = await openDb(dir);
    assert.equal(taker.readOnly, false);
    assert.equal(taker.opened.tookOverFrom?.pid, child.pid);
    assert.equal(readLease(dir)?.pid, process.pid);
    taker.mutate(INSERT, ['mine']);
    await taker.commit();
  });

  it('does not take over a lease that changes between the two checks', async () => {
    const dir = tempDir();
    // A lease with a dead pid that "comes alive" (is rewritten by a live owner) during the pause.
    fs.mkdirSync(dir, { recursive: true });
    const leaseFile = path.join(dir, 'lease.json');
    fs.writeFileSync(leaseFile, JSON.stringify({ pid: 999_999_999, ownerId: 'ghost', hostname: 'h', heartbeatAt: 1 }));
    // The rewrite happens exactly in the pause between the two checks (no race with a timer).
    let pauses = 0;
    const timers: LeaseTimers = {
      pause: async () => {
        pauses += 1;
        fs.writeFileSync(leaseFile, JSON.stringify({ pid: process.pid, ownerId: 'live', hostname: 'h', heartbeatAt: Date.now() }));
      },
      every: () => ({ cancel() {} }),
    };
    const db = await openDb(dir, { lease: { recheckMs: 100, timers } });
    assert.equal(pauses, 1, 'the first check saw a dead lease and paused once');
    assert.equal(db.readOnly, true);
    assert.equal(db.opened.owner?.ownerId, 'live');
  });

  it('stops writing and says so when another process took the lease over', async () => {
    const dir = tempDir();
    // The heartbeat is driven by hand: the tick after the takeover is the one that must notice it.
    const ticks: Array<() => void> = [];
    const timers: LeaseTimers = { pause: async () => undefined, every: (_ms, tick) => (ticks.push(tick), { cancel() {} }) };
    const db = await openDb(dir, { lease: { heartbeatMs: 20, timers } });
    assert.equal(ticks.length, 1, 'one heartbeat timer');
    ticks[0]();
    assert.equal(db.readOnly, false, 'its own lease: still writable after a heartbeat');
    fs.writeFileSync(path.join(dir, 'lease.json'), JSON.stringify({ pid: process.pid, ownerId: 'usurper', hostname: 'h', heartbeatAt: Date.now() }));
    ticks[0]();
    assert.equal(db.readOnly, true);
    assert.throws(() => db.mutate(INSERT, ['x']), /taken over by another process/);
    assert.ok(notices.some((n) => /took over this workspace's storage/.test(n)));
  });
});
