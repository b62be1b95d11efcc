import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Archive } from '../../../src/core/store/archive';
import { openDurableDb } from '../../../src/core/store/durableDb';
import type { OpenedDurableDb } from '../../../src/core/store/durableDb';
import { silentLogger } from '../../../src/core/ports';
import { createTriggerStore } from '../../../src/core/store/triggerStore';
import { FakeClock, removeTempDirs, sqlJs, tempDir } from './helpers';
import { FsFaults } from './fsFaults';

const DAY = 86_400_000;

/**
 * SQLite's ioerr test, on the store: a workload is run once to count its file operations, then
 * once per operation with that one failing (ENOSPC once, then EIO for it and the next nine: a disk
 * that stays bad for a while), ending in a crash or a close; then the folder is opened without
 * faults and the promises are checked: nothing that resolved is lost, nothing acked comes back, no
 * task row is lost or in two places, and the store opens. (docs/STORAGE.md "Verified by")
 */
interface Promised {
  emitted: Set<string>;
  /** Acks that were tried: a rejected ack means "maybe" (its record stays queued and may be written later), so such a trigger may be gone. */
  ackTried: Set<string>;
  acked: Set<string>;
  tasks: Set<string>;
}

async function workload(dir: string, clock: FakeClock, promised: Promised, end: 'crash' | 'close'): Promise<void> {
  let db: OpenedDurableDb;
  try {
    db = await openDurableDb({
      dir,
      sqlJs: await sqlJs(),
      clock,
      snapshotEveryRecords: 12,
      snapshotIdleMs: 3_600_000,
      lease: { recheckMs: 1, heartbeatMs: 3_600_000 },
    });
  } catch {
    return; // the open itself failed: nothing was promised
  }
  const store = await createTriggerStore(db, { clock, restartNoticeSession: false, retry: { baseMs: 1, capMs: 2, maxAttempts: 1000 } }).catch(() => null);
  const archive = new Archive({ db, dir: path.join(dir, 'archive'), clock, logger: silentLogger });
  if (store) {
    for (let i = 0; i < 6; i++) {
      const emits = await Promise.allSettled([
        store.emit({ source: 'user_message', sessionId: `s${i % 2}`, payload: { i } }),
        store.emit({ source: 'scheduled', sessionId: 'c', payload: { i }, dedupKey: `fire-${i}` }),
      ]);
      for (const e of emits) if (e.status === 'fulfilled') promised.emitted.add(e.value.id);
      for (let k = 0; k < 2; k++) {
        // A claim whose write failed waits for its retry on the (still) fake clock: give up on it after 25 ms.
        let giveUp!: (value: null) => void;
        const timer = setTimeout(() => giveUp(null), 25);
        const lease = await Promise.race([store.next(), new Promise<null>((resolve) => (giveUp = resolve))]).catch(() => null);
        clearTimeout(timer);
        if (!lease) break;
        if (i % 3 === 2) await store.nack(lease.token, 'simulated').catch(() => undefined);
        else {
          promised.ackTried.add(lease.trigger.id);
          if (await store.ack(lease.token).catch(() => false)) promised.acked.add(lease.trigger.id);
        }
      }
      try {
        const id = `t${i}`;
        db.mutate('INSERT INTO tasks (id, session_id, status, data, updated_at) VALUES (?, ?, ?, ?, ?)', [
          id,
          's',
          'completed',
          '{"name":"x"}',
          clock.now() - 2 * DAY,
        ]);
        await db.commit();
        promised.tasks.add(id);
        archive.moveBatch('task', 10);
      } catch {
        // A failed write: not promised.
      }
      if (i % 2 === 1) await db.snapshot();
    }
  }
  if (end === 'close') await db.close().catch(() => undefined);
}

async function check(dir: string, clock: FakeClock, promised: Promised, context: string): Promise<void> {
  const notices: string[] = [];
  const db = await openDurableDb({ dir, sqlJs: await sqlJs(), clock, lease: { recheckMs: 1 }, onNotice: (m) => notices.push(m) });
  try {
    assert.equal(db.readOnly, false, `${context}: the store opened read-only`);
    const archive = new Archive({ db, dir: path.join(dir, 'archive'), clock, logger: silentLogger });
    archive.recover();
    const rows = new Map(db.query('SELECT id, status FROM triggers').map((r) => [String(r.id), String(r.status)]));
    const files = () => fs.readdirSync(dir).join(' ');
    for (const id of promised.emitted)
      assert.ok(rows.has(id) || promised.ackTried.has(id), `${context}: emitted ${id} lost; files ${files()}; notices ${notices.join(' | ')}`);
    // An acked trigger leaves the table (or stays `done` while its dedup key is kept): never pending or claimed again.
    for (const id of promised.acked) assert.ok(!rows.has(id) || rows.get(id) === 'done', `${context}: acked ${id} came back as ${rows.get(id)}`);
    const hot = db.query('SELECT id FROM tasks').map((r) => String(r.id));
    const archived = archive.records('task').map((r) => r.id);
    for (const id of promised.tasks)
      assert.equal(
        Number(hot.includes(id)) + Number(archived.includes(id)),
        1,
        `${context}: task ${id} hot ${hot.includes(id)}, archived ${archived.includes(id)}`,
      );
  } finally {
    await db.close();
  }
}

describe('store: a disk error at every file operation', function () {
  this.timeout(600_000);
  after(removeTempDirs);

  it('ENOSPC once and EIO for ten, at each operation, crash or close: nothing promised is lost, nothing acked comes back', async () => {
    const counting = tempDir('faults');
    const shim = new FsFaults(counting);
    shim.install();
    try {
      await workload(counting, new FakeClock(Date.UTC(2026, 0, 10)), { emitted: new Set(), ackTried: new Set(), acked: new Set(), tasks: new Set() }, 'close');
    } finally {
      shim.uninstall();
    }
    const points = shim.ops.length;
    const kinds = new Set(shim.ops);
    for (const kind of ['open', 'write', 'promises.rename', 'promises.open', 'handle.sync', 'writeSync', 'readdirSync'])
      assert.ok(kinds.has(kind), `the workload never does ${kind}: ${[...kinds].join(', ')}`);
    let trials = 0;
    let failed = 0;
    let acks = 0;
    for (let k = 0; k < points; k++) {
      for (const [errno, sticky, end] of [
        ['ENOSPC', 0, 'crash'],
        ['EIO', 9, 'close'],
      ] as const) {
        const dir = tempDir('faults');
        const clock = new FakeClock(Date.UTC(2026, 0, 10));
        const promised: Promised = { emitted: new Set(), ackTried: new Set(), acked: new Set(), tasks: new Set() };
        const faults = new FsFaults(dir);
        faults.failAt = k;
        faults.sticky = sticky;
        faults.errno = errno;
        faults.install();
        try {
          await workload(dir, clock, promised, end);
        } finally {
          faults.uninstall();
        }
        // The process ends here (a crash, or a close whose lease delete met the fault): the next
        // window finds a dead owner's lease, which is what removing it stands for in one process.
        fs.rmSync(path.join(dir, 'lease.json'), { force: true });
        await check(dir, clock, promised, `${errno} at operation ${k} (${shim.ops[k]}), ${end}`);
        trials += 1;
        acks += promised.acked.size;
        failed += faults.failed > 0 ? 1 : 0;
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    console.log(`      ${points} file operations, ${trials} trials, ${failed} with a failed operation, ${acks} acks`);
    assert.ok(failed > trials / 2, 'most trials met their fault');
    assert.ok(acks > trials * 4, `the workload acks (${acks} in ${trials} trials)`);
  });
});
