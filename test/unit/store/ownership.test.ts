import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { OpenedDurableDb } from '../../../src/core/store/durableDb';
import { openDurableDb } from '../../../src/core/store/durableDb';
import { encodeRecord } from '../../../src/core/store/journalFormat';
import { readLease } from '../../../src/core/store/lease';
import { listStoreDir } from '../../../src/core/store/storeFiles';
import { openedStores, removeTempDirs, sqlJs, tempDir } from './helpers';

/** One owner, always (docs/STORAGE.md "One owner"), and a folder that vanishes or loses a file. */
const INSERT = `INSERT INTO sessions (id, status, data, updated_at) VALUES (?, 'a', '{}', 1)`;
const DEAD_PID = 999_999_999;

function ids(db: OpenedDurableDb): string[] {
  return db.query(`SELECT id FROM sessions ORDER BY rowid`).map((r) => String(r.id));
}

function spawnTs(file: string, args: string[]): ChildProcess {
  return spawn(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, 'fixtures', file), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
}

/** Reads a child's stdout as JSON lines, from its start: `next()` is the next line not yet taken. */
function jsonLines(child: ChildProcess): { next(): Promise<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const waiting: Array<(line: Record<string, unknown>) => void> = [];
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
      const line = JSON.parse(buffer.slice(0, at)) as Record<string, unknown>;
      buffer = buffer.slice(at + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  return {
    next: () =>
      lines.length > 0
        ? Promise.resolve(lines.shift()!)
        : new Promise((resolve, reject) => {
            waiting.push(resolve);
            child.once('exit', (code) => reject(new Error(`child exited before it spoke (${code})`)));
          }),
  };
}

/** Lets real (monotonic) time pass, as a frozen or idle process would. */
function freeze(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits (bounded) until `condition` holds; the caller asserts it afterwards. */
async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !condition() && Date.now() < end;) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('store: one owner, fencing, a vanished folder', function () {
  this.timeout(120_000);
  const children: ChildProcess[] = [];
  const stores = openedStores({ snapshotIdleMs: 60_000 });
  const { notices, forget } = stores;
  const openDb = stores.open;

  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await stores.closeAll();
    removeTempDirs();
  });

  it('a live owner frozen past the stale time is not taken over (its process, not its heartbeat, says it lives)', async () => {
    const dir = tempDir();
    const holder = spawnTs('holdStore.ts', [dir]);
    children.push(holder);
    assert.equal((await jsonLines(holder).next()).readOnly, false);
    holder.kill('SIGSTOP');
    // Its heartbeat (every 200 ms) stops; wait until the lease is older than the opener's stale time.
    const staleMs = 300;
    const lease = readLease(dir)!;
    while (Date.now() - lease.heartbeatAt <= staleMs * 2) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(readLease(dir)!.heartbeatAt, lease.heartbeatAt, 'the frozen owner did not heartbeat');
    const second = await openDb(dir, { lease: { recheckMs: 20, staleMs } });
    assert.equal(second.readOnly, true, 'a frozen but live owner was taken over');
    assert.equal(second.opened.owner?.pid, holder.pid);
    holder.kill('SIGCONT');
  });

  it('an owner whose lease was taken refuses to write (fencing) and says so, instead of reporting a durable commit', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    db.mutate(INSERT, ['before']);
    await db.commit();
    // Another host took the store (what a frozen owner on a shared folder would find on waking:
    // the freeze is what makes its next write look at the lease again; a steadily writing owner
    // looks at most every 200 ms, docs/STORAGE.md "One owner").
    const mine = readLease(dir)!;
    await freeze(250);
    fs.writeFileSync(
      path.join(dir, 'lease.json'),
      JSON.stringify({ ...mine, ownerId: 'newer', hostname: 'other-host', epoch: mine.epoch + 1, heartbeatAt: Date.now() }),
    );
    db.mutate(INSERT, ['after']);
    await assert.rejects(db.commit(), /taken over by another process/);
    assert.equal(db.readOnly, true);
    assert.ok(notices.some((n) => /took over this workspace's storage/.test(n)));
    const segment = listStoreDir(dir).journals.at(-1)!.file;
    assert.ok(!fs.readFileSync(segment).includes(Buffer.from('"after"')), 'the fenced record reached the journal');
  });

  it('at replay, records a replaced owner wrote after the takeover are discarded and the new owner’s kept', async () => {
    const dir = tempDir();
    const a = await openDb(dir);
    a.mutate(INSERT, ['a1']);
    await a.commit();
    const aSegment = listStoreDir(dir).journals.at(-1)!.file;
    const aEpoch = readLease(dir)!.epoch;
    forget(a); // A "freezes": no close; its lease names a dead process so B takes it over
    fs.writeFileSync(path.join(dir, 'lease.json'), JSON.stringify({ ...readLease(dir)!, pid: DEAD_PID }));
    const b = await openDb(dir);
    assert.equal(b.readOnly, false);
    assert.equal(b.opened.tookOverFrom?.pid, DEAD_PID);
    assert.ok(readLease(dir)!.epoch > aEpoch);
    b.mutate(INSERT, ['b1']);
    await b.commit();
    // A wakes and its queued write lands at the same record number as B's fence (D8 of the fault round).
    const aLsn = b.lastLsn - 1; // B's fence record
    const late = encodeRecord({ lsn: aLsn, epoch: aEpoch, statements: [{ sql: INSERT, params: ['a-late'] }] });
    const bytes = fs.readFileSync(aSegment);
    let end = bytes.length;
    while (end > 0 && bytes[end - 1] === 0) end--;
    fs.writeFileSync(aSegment, Buffer.concat([bytes.subarray(0, end), late]));
    forget(b); // B crashes too: the next open replays both journals (a snapshot would hold B's truth already)
    fs.rmSync(path.join(dir, 'lease.json'), { force: true });
    const c = await openDb(dir);
    assert.deepEqual(ids(c), ['a1', 'b1']);
    assert.equal(c.opened.staleRecords, 1);
    assert.ok(
      notices.some((n) => /after another had taken over the store were discarded/.test(n)),
      notices.join('\n'),
    );
  });

  it('takes over only under the takeover lock: a live taker holding it wins, a dead one’s lock is cleared', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'lease.json'), JSON.stringify({ pid: DEAD_PID, ownerId: 'ghost', hostname: 'h', heartbeatAt: 1, epoch: 3 }));
    fs.writeFileSync(path.join(dir, 'lease.json.takeover'), JSON.stringify({ pid: process.pid }));
    const blocked = await openDb(dir, { lease: { recheckMs: 1 } });
    assert.equal(blocked.readOnly, true, 'took over while another taker held the lock');
    await blocked.close();
    forget(blocked);
    fs.writeFileSync(path.join(dir, 'lease.json.takeover'), JSON.stringify({ pid: DEAD_PID }));
    const taker = await openDb(dir, { lease: { recheckMs: 1 } });
    assert.equal(taker.readOnly, false);
    assert.equal(readLease(dir)!.epoch, 4);
    assert.equal(fs.existsSync(path.join(dir, 'lease.json.takeover')), false);
  });

  it('two processes taking over a dead owner at the same moment: exactly one owner, every round (a busy core beside them)', async () => {
    const busy = spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
    children.push(busy);
    const rounds = Number(process.env.TASKLANE_RACE_ROUNDS ?? 6);
    for (let round = 0; round < rounds; round++) {
      const dir = tempDir('race');
      fs.writeFileSync(path.join(dir, 'lease.json'), JSON.stringify({ pid: DEAD_PID, ownerId: 'dead', hostname: 'h', heartbeatAt: 1, epoch: 1 }));
      const racers = [spawnTs('raceLease.ts', [dir]), spawnTs('raceLease.ts', [dir])];
      children.push(...racers);
      // Both have loaded everything; then both are told to go at once.
      const outputs = racers.map(jsonLines);
      await Promise.all(outputs.map((o) => o.next()));
      for (const racer of racers) racer.stdin!.write('go\n');
      const said = await Promise.all(outputs.map((o) => o.next()));
      const owners = said.filter((s) => s.owner);
      assert.equal(owners.length, 1, `round ${round}: ${JSON.stringify(said)}`);
      assert.equal(readLease(dir)?.ownerId, owners[0].ownerId);
      await Promise.all(racers.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))));
    }
  });

  it('a storage folder deleted while running: the commit is durable only once the folder is made again, and a reload finds everything', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    db.mutate(INSERT, ['before']);
    await db.commit();
    await freeze(250); // past the writer's last look at its segment (it looks at most every 200 ms)
    fs.rmSync(dir, { recursive: true, force: true });
    db.mutate(INSERT, ['gone-1']);
    await db.commit();
    assert.ok(fs.existsSync(dir), 'the folder was made again before the commit resolved');
    db.mutate(INSERT, ['gone-2']);
    await db.commit();
    assert.ok(
      notices.some((n) => /storage folder .* was removed while Tasklane was running/.test(n)),
      notices.join('\n'),
    );
    assert.ok(!notices.some((n) => /took over/.test(n)), 'blamed another process');
    assert.equal(db.readOnly, false);
    forget(db); // a crash: no close, no final snapshot
    fs.rmSync(path.join(dir, 'lease.json'), { force: true });
    const again = await openDb(dir);
    assert.deepEqual(ids(again), ['before', 'gone-1', 'gone-2']);
  });

  it('a storage folder deleted while idle is noticed at the next heartbeat and saved again', async () => {
    const dir = tempDir();
    const ticks: Array<() => void> = [];
    const db = await openDb(dir, {
      lease: { recheckMs: 20, timers: { pause: async () => undefined, every: (_ms, tick) => (ticks.push(tick), { cancel() {} }) } },
    });
    db.mutate(INSERT, ['kept']);
    await db.commit();
    fs.rmSync(dir, { recursive: true, force: true });
    ticks[0]();
    await until(() => notices.some((n) => /was removed while/.test(n)));
    assert.ok(
      notices.some((n) => /was removed while/.test(n)),
      notices.join('\n'),
    );
    forget(db);
    fs.rmSync(path.join(dir, 'lease.json'), { force: true });
    const again = await openDb(dir);
    assert.deepEqual(ids(again), ['kept']);
  });

  it('a missing newest journal segment is reported, not silently lost', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    db.mutate(INSERT, ['in-snapshot']);
    await db.snapshot();
    db.mutate(INSERT, ['only-in-the-newest-segment']);
    await db.commit();
    forget(db);
    fs.rmSync(path.join(dir, 'lease.json'), { force: true });
    const newest = listStoreDir(dir).journals.at(-1)!;
    fs.rmSync(newest.file);
    const again = await openDb(dir);
    assert.deepEqual(ids(again), ['in-snapshot']);
    assert.equal(again.opened.missingSegment, newest.seq);
    assert.ok(
      notices.some((n) => /newest journal file .* is missing/.test(n)),
      notices.join('\n'),
    );
  });

  it('a failed open lets go of the lease, and a fresh store that cannot be made says why in words', async () => {
    const dir = tempDir();
    // A snapshot that is a folder makes recovery throw after the lease was taken.
    fs.mkdirSync(path.join(dir, 'journal-00000001.log'));
    await assert.rejects(openDurableDb({ dir, sqlJs: await sqlJs(), lease: { recheckMs: 20 } }));
    assert.equal(fs.existsSync(path.join(dir, 'lease.json')), false, 'the failed open kept the lease');
    const file = path.join(tempDir(), 'a-file');
    fs.writeFileSync(file, '');
    await assert.rejects(openDurableDb({ dir: path.join(file, 'store'), sqlJs: await sqlJs() }), /cannot create its storage folder .*Check the folder/);
  });
});
