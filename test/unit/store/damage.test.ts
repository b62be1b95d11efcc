import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Archive } from '../../../src/core/store/archive';
import type { OpenedDurableDb } from '../../../src/core/store/durableDb';
import type { JournalIo } from '../../../src/core/store/storeFiles';
import { listStoreDir, nodeJournalIo } from '../../../src/core/store/storeFiles';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { FakeClock, openedStores, removeTempDirs, tempDir } from './helpers';

/**
 * Damage at rest and failed rotations (../docs/STORAGE.md "Damage"): each case is a defect of the
 * fault review's round, and each test fails without its fix.
 */
const INSERT = `INSERT INTO sessions (id, status, data, updated_at) VALUES (?, 'a', '{}', 1)`;
const DAY = 86_400_000;

function ids(db: OpenedDurableDb): string[] {
  return db.query(`SELECT id FROM sessions ORDER BY rowid`).map((r) => String(r.id));
}

function flipByte(file: string, at: number): void {
  const bytes = fs.readFileSync(file);
  bytes[at] ^= 0x10;
  fs.writeFileSync(file, bytes);
}

describe('store: damage and failed rotations', function () {
  this.timeout(30_000);
  const stores = openedStores({ snapshotIdleMs: 60_000 });
  const { notices, crash } = stores;
  const openDb = stores.open;

  afterEach(async () => {
    await stores.closeAll();
    removeTempDirs();
  });

  it('a failed rotation keeps the writer on its segment: later commits are durable and the descriptor is never reused', async () => {
    // EISDIR is a real failure of the real open (a folder where the next segment goes); the others are injected.
    for (const code of ['EISDIR', 'EMFILE', 'EROFS', 'ENOENT']) {
      const dir = tempDir();
      let failOpen = false;
      const io: JournalIo = {
        ...nodeJournalIo,
        open(file, flags) {
          if (failOpen && code !== 'EISDIR') throw Object.assign(new Error(`${code}: simulated, open '${file}'`), { code });
          return nodeJournalIo.open(file, flags);
        },
      };
      const db = await openDb(dir, { io });
      db.mutate(INSERT, ['before']);
      await db.commit();
      const next = path.join(dir, `journal-${String(listStoreDir(dir).journals.at(-1)!.seq + 1).padStart(8, '0')}.log`);
      if (code === 'EISDIR') fs.mkdirSync(next);
      failOpen = true;
      await db.snapshot(); // rotates: the new segment's open fails
      failOpen = false;
      if (code === 'EISDIR') fs.rmdirSync(next);
      // The process opens another file right away, as the event log does for every turn. Had the
      // writer kept its closed descriptor, this file would get its number and the journal's records.
      const other = path.join(dir, 'events.jsonl');
      const otherFd = fs.openSync(other, 'w');
      try {
        db.mutate(INSERT, ['after-1']);
        await db.commit();
        db.mutate(INSERT, ['after-2']);
        await db.commit();
      } finally {
        fs.closeSync(otherFd);
      }
      assert.equal(fs.statSync(other).size, 0, `${code}: the journal wrote into another file`);
      crash(db);
      const again = await openDb(dir);
      assert.deepEqual(ids(again), ['before', 'after-1', 'after-2'], code);
      stores.forget(again);
      await again.close();
    }
  });

  it('close() releases the lease and frees the database even when the last save fails, and still tries a snapshot', async () => {
    const dir = tempDir();
    let failing = false;
    const io: JournalIo = {
      ...nodeJournalIo,
      write: (fd, data, position) =>
        failing ? Promise.reject(Object.assign(new Error('EIO: simulated'), { code: 'EIO' })) : nodeJournalIo.write(fd, data, position),
    };
    const db = await openDb(dir, { io });
    db.mutate(INSERT, ['a']);
    await db.commit();
    failing = true;
    db.mutate(INSERT, ['kept-by-the-snapshot']);
    await assert.rejects(db.commit());
    stores.forget(db);
    await db.close();
    assert.equal(fs.existsSync(path.join(dir, 'lease.json')), false, 'the lease was released');
    const again = await openDb(dir);
    assert.equal(again.readOnly, false);
    assert.deepEqual(ids(again), ['a', 'kept-by-the-snapshot']);
  });

  it('a flipped bit in the middle of a journal segment loses that record only, says so, and the segment is not cut', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    for (let i = 0; i < 100; i++) {
      db.mutate(INSERT, [`r${i}`]);
      await db.commit();
    }
    crash(db);
    const segment = listStoreDir(dir).journals.at(-1)!.file;
    const bytes = fs.readFileSync(segment);
    // Record r30's payload (each record is one INSERT; find its text).
    const at = bytes.indexOf(Buffer.from('"r30"'));
    assert.ok(at > 0);
    flipByte(segment, at + 2);
    const sizeBefore = fs.statSync(segment).size;
    const again = await openDb(dir);
    const kept = ids(again);
    assert.equal(kept.length, 99);
    assert.ok(!kept.includes('r30'));
    assert.equal(again.opened.damagedRecords, 1);
    assert.equal(again.opened.tornRecordIgnored, false);
    const notice = notices.find((n) => /damaged at rest/.test(n));
    assert.ok(notice, notices.join('\n'));
    assert.match(notice, /1 change\(s\) in it were lost and every other record was kept/);
    assert.doesNotMatch(notices.join('\n'), /crash or a full disk/);
    // The records after the damage are still on disk for the next open too.
    assert.ok(fs.statSync(segment).size >= sizeBefore - 1_048_576);
    crash(again);
    const third = await openDb(dir);
    assert.equal(ids(third).length, 99);
  });

  it('pruning never keeps a damaged snapshot as one of the two: a second damage still loses nothing', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    const snapshots = () => listStoreDir(dir).snapshots;
    for (let i = 0; i < 20; i++) db.mutate(INSERT, [`a${i}`]);
    await db.snapshot();
    for (let i = 0; i < 20; i++) db.mutate(INSERT, [`b${i}`]);
    await db.snapshot();
    crash(db);
    // The newest snapshot is damaged: the open falls back to the previous one (held before the fix too).
    flipByte(snapshots()[0].file, 100);
    const second = await openDb(dir);
    assert.equal(second.opened.snapshotFallback, true);
    assert.equal(ids(second).length, 40);
    for (let i = 0; i < 20; i++) second.mutate(INSERT, [`c${i}`]);
    await second.snapshot();
    for (let i = 0; i < 20; i++) second.mutate(INSERT, [`d${i}`]);
    await second.snapshot();
    crash(second);
    // The damaged one is out of the listing (kept as *.damaged); the two kept both check out.
    assert.ok(fs.readdirSync(dir).some((n) => n.endsWith('.damaged')));
    // A second damage, to the newest again: the older good snapshot and its journal are still there.
    flipByte(snapshots()[0].file, 100);
    const third = await openDb(dir);
    assert.equal(ids(third).length, 80, notices.join('\n'));
  });

  it('a flipped bit in an archive segment hides only that record, also from records archived after it', async () => {
    const dir = tempDir('archive');
    const clock = new FakeClock(Date.UTC(2026, 0, 10));
    const logger = new MemoryLogger();
    const db = await openDb(dir, { clock });
    const archive = new Archive({ db, dir: path.join(dir, 'archive'), clock, logger });
    archive.recover();
    const put = (id: string) =>
      db.mutate('INSERT INTO tasks (id, session_id, status, data, updated_at) VALUES (?, ?, ?, ?, ?)', [
        id,
        `s-${id}`,
        'completed',
        JSON.stringify({ name: `task ${id}`, instruction: `do ${id}` }),
        clock.now() - 2 * DAY,
      ]);
    for (let i = 0; i < 60; i++) put(`t${i}`);
    while (archive.moveBatch('task', 500) > 0);
    const [file] = fs.readdirSync(path.join(dir, 'archive', 'task')).map((n) => path.join(dir, 'archive', 'task', n));
    const bytes = fs.readFileSync(file);
    // One bit in record t20's length field, the worst place: the walk can no longer find the next frame by length.
    const payload = bytes.indexOf(Buffer.from('"id":"t20"'));
    const frameStart = bytes.lastIndexOf(Buffer.from('{"k":'), payload) - 8;
    flipByte(file, frameStart + 1);
    put('t-later');
    while (archive.moveBatch('task', 500) > 0);
    const found = archive.records('task').map((r) => r.id);
    assert.equal(found.length, 60, 'every record but the damaged one, and the one archived after the damage');
    assert.ok(!found.includes('t20'));
    assert.ok(found.includes('t40') && found.includes('t-later'));
    assert.equal(archive.search('task t-later').length, 1);
    assert.equal(archive.search('task t45').length, 1);
    const stats = archive.stats().find((s) => s.kind === 'task')!;
    assert.equal(stats.records, 60);
    assert.equal(stats.damaged, 1);
    assert.ok(
      logger.lines.some((l) => /damaged at bytes/.test(l)),
      logger.lines.join('\n'),
    );
    // Recovery after a crash reads past the damage too: it never cuts the good records after it.
    crash(db);
    const again = await openDb(dir, { clock });
    const archiveAgain = new Archive({ db: again, dir: path.join(dir, 'archive'), clock, logger });
    archiveAgain.recover();
    assert.equal(archiveAgain.records('task').length, 60);
  });
});
