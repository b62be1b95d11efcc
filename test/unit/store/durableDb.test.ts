import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { OpenedDurableDb, OpenDurableDbOptions } from '../../../src/core/store/durableDb';
import { openDurableDb } from '../../../src/core/store/durableDb';
import type { JournalIo } from '../../../src/core/store/storeFiles';
import { nodeJournalIo } from '../../../src/core/store/storeFiles';
import { removeTempDirs, sqlJs, tempDir } from './helpers';

describe('store: durable db (journal + snapshot)', () => {
  const open: OpenedDurableDb[] = [];
  async function openDb(dir: string, extra: Partial<OpenDurableDbOptions> = {}): Promise<OpenedDurableDb> {
    const db = await openDurableDb({ dir, sqlJs: await sqlJs(), ...extra });
    open.push(db);
    return db;
  }
  async function closeAll(): Promise<void> {
    for (const db of open.splice(0)) await db.close();
  }
  afterEach(async () => {
    await closeAll();
    removeTempDirs();
  });

  it('migrates to the latest schema with every shared table on first open', async () => {
    const db = await openDb(tempDir());
    assert.equal(db.opened.restarted, false);
    assert.deepEqual(db.opened.migrated, [1, 2, 3]);
    assert.equal(db.query(`SELECT value FROM meta WHERE key = 'schema_version'`)[0].value, '3');
    const tables = db.query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).map((r) => r.name);
    assert.deepEqual(tables, ['approvals', 'chore_runs', 'chores', 'command_approvals', 'ledger', 'meta', 'sessions', 'tasks', 'triggers']);
    const runColumns = db.query(`PRAGMA table_info(chore_runs)`).map((r) => r.name);
    assert.ok(runColumns.includes('fire_key') && runColumns.includes('attempt'), runColumns.join(', '));
  });

  it('does not read the segments the snapshot in use covers, and falls back to them when it is damaged', async () => {
    const dir = tempDir();
    const db = await openDb(dir, { snapshotIdleMs: 60_000, snapshotEveryRecords: 1_000_000 });
    await db.snapshot(); // the older snapshot, the one the kept segment rolls forward
    for (let i = 0; i < 50; i++) db.mutate(`INSERT INTO sessions (id, status, data, updated_at) VALUES (?, 'active', '{}', ?)`, [`s${i}`, i]);
    await db.commit();
    await db.close();
    open.splice(0);
    const segments = () => fs.readdirSync(dir).filter((f) => f.startsWith('journal-') && fs.statSync(path.join(dir, f)).size > 0);
    const [kept] = segments();
    assert.ok(kept, 'a segment with the 50 rows is kept for the older snapshot');
    // Damage the kept segment where its records are: an open that read it would report a torn record.
    const file = path.join(dir, kept);
    const bytes = fs.readFileSync(file);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    fs.writeFileSync(file, bytes);
    const again = await openDb(dir);
    assert.equal(again.opened.tornRecordIgnored, false);
    assert.equal(again.query('SELECT COUNT(*) AS n FROM sessions')[0].n, 50);
    await closeAll();
    // With the newest snapshot damaged, the older one is rolled forward through that segment, finds the
    // damage, and loses only the record the flipped byte was in.
    const newest = fs
      .readdirSync(dir)
      .filter((f) => f.startsWith('snapshot-'))
      .sort()
      .at(-1)!;
    const snap = fs.readFileSync(path.join(dir, newest));
    snap[10] ^= 0xff;
    fs.writeFileSync(path.join(dir, newest), snap);
    const fallback = await openDb(dir);
    assert.equal(fallback.opened.snapshotFallback, true);
    assert.equal(fallback.opened.tornRecordIgnored, false);
    assert.equal(fallback.opened.damagedRecords, 1);
    assert.equal(fallback.query('SELECT COUNT(*) AS n FROM sessions')[0].n, 49);
  });

  it('replays committed mutations after a reopen, without re-running migrations', async () => {
    const dir = tempDir();
    const db = await openDb(dir, { snapshotIdleMs: 60_000 });
    db.mutate(`INSERT INTO sessions (id, status, data, updated_at) VALUES (?, ?, ?, ?)`, ['s1', 'active', '{"a":1}', 5]);
    db.transaction((tx) => {
      tx.mutate(`INSERT INTO tasks (id, session_id, status, data, updated_at) VALUES ('t1', 's1', 'running', '{}', 6)`);
      tx.mutate(`UPDATE sessions SET status = 'busy' WHERE id = 's1'`);
    });
    await db.commit();
    // Simulate a crash: no close(), no snapshot. Drop the lease so a second open may write.
    fs.rmSync(path.join(dir, 'lease.json'));
    open.splice(0);
    const again = await openDb(dir);
    assert.equal(again.opened.restarted, true);
    assert.deepEqual(again.opened.migrated, []);
    assert.equal(again.opened.snapshotLsn, 0);
    assert.equal(again.opened.journalRecordsReplayed, 5); // three migration txs, insert, tx
    assert.deepEqual(again.query(`SELECT status FROM sessions`), [{ status: 'busy' }]);
    assert.equal(again.query(`SELECT count(*) AS n FROM tasks`)[0].n, 1);
  });

  it('journals a rolled-back transaction as nothing', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    const before = db.lastLsn;
    assert.throws(
      () =>
        db.transaction((tx) => {
          tx.mutate(`INSERT INTO sessions (id, status, data, updated_at) VALUES ('x', 'a', '{}', 1)`);
          throw new Error('boom');
        }),
      /boom/,
    );
    assert.equal(db.lastLsn, before);
    assert.equal(db.query(`SELECT count(*) AS n FROM sessions`)[0].n, 0);
  });

  it('journals no record for a row statement that changed nothing, and still replays the ones that did', async () => {
    const dir = tempDir();
    const db = await openDb(dir, { snapshotIdleMs: 60_000 });
    const before = db.lastLsn;
    assert.equal(db.mutate(`DELETE FROM sessions WHERE id = 'absent'`).changes, 0);
    assert.equal(db.mutate(`UPDATE sessions SET status = 'x' WHERE id = 'absent'`).changes, 0);
    db.transaction((tx) => tx.mutate(`DELETE FROM tasks WHERE id = 'absent'`));
    assert.equal(db.lastLsn, before, 'a no-op statement or transaction wrote a journal record');
    db.transaction((tx) => {
      tx.mutate(`INSERT INTO sessions (id, status, data, updated_at) VALUES ('s1', 'active', '{}', 1)`);
      tx.mutate(`DELETE FROM sessions WHERE id = 'absent'`);
      tx.mutate(`UPDATE sessions SET status = 'busy' WHERE id = 's1'`);
    });
    // DDL reports no changed rows but has an effect: it is journaled.
    db.mutate(`CREATE TABLE scratch (x)`);
    assert.equal(db.lastLsn, before + 2);
    await db.commit();
    fs.rmSync(path.join(dir, 'lease.json'));
    open.splice(0);
    const again = await openDb(dir);
    assert.deepEqual(again.query(`SELECT status FROM sessions`), [{ status: 'busy' }]);
    assert.equal(again.query(`SELECT count(*) AS n FROM sqlite_master WHERE name = 'scratch'`)[0].n, 1);
  });

  it('refuses transaction control through mutate and async transaction bodies', async () => {
    const db = await openDb(tempDir());
    assert.throws(() => db.mutate('BEGIN'), /use db\.transaction/);
    assert.throws(() => db.transaction((() => Promise.resolve()) as never), /must be synchronous/);
    // The failed async body was rolled back; the db is usable.
    db.mutate(`INSERT INTO sessions (id, status, data, updated_at) VALUES ('ok', 'a', '{}', 1)`);
    await db.commit();
  });

  it('group-commits every mutation of one tick in a single write', async () => {
    let writes = 0;
    const io: JournalIo = { ...nodeJournalIo, write: (fd, data, pos) => (writes++, nodeJournalIo.write(fd, data, pos)), fdatasync: nodeJournalIo.fdatasync };
    const db = await openDb(tempDir(), { io });
    writes = 0;
    for (let i = 0; i < 50; i++) db.mutate(`INSERT INTO sessions (id, status, data, updated_at) VALUES (?, 'a', '{}', 1)`, [`s${i}`]);
    await db.commit();
    assert.equal(writes, 1);
    await db.commit(); // nothing new: resolves without writing
    assert.equal(writes, 1);
  });

  it('starts from the snapshot and replays only what came after it', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    db.mutate(`INSERT INTO chores (id, next_fire_at, data, updated_at) VALUES ('c1', 10, '{}', 1)`);
    await db.snapshot();
    db.mutate(`INSERT INTO chores (id, next_fire_at, data, updated_at) VALUES ('c2', 20, '{}', 2)`);
    await db.commit();
    fs.rmSync(path.join(dir, 'lease.json'));
    open.splice(0);
    const again = await openDb(dir);
    assert.equal(again.opened.snapshotLsn, 4); // three migrations and c1
    assert.equal(again.opened.journalRecordsReplayed, 1);
    assert.deepEqual(
      again.query(`SELECT id FROM chores ORDER BY id`).map((r) => r.id),
      ['c1', 'c2'],
    );
  });

  it('keeps statements and pragmas working after export (snapshot)', async () => {
    const db = await openDb(tempDir());
    const sql = `SELECT count(*) AS n FROM sessions WHERE status = ?`;
    assert.equal(db.query(sql, ['a'])[0].n, 0); // prepared and cached
    assert.equal(db.query('PRAGMA foreign_keys')[0].foreign_keys, 1);
    db.mutate(`INSERT INTO sessions (id, status, data, updated_at) VALUES ('s', 'a', '{}', 1)`);
    await db.snapshot(); // export() frees every statement and resets pragmas
    assert.equal(db.query(sql, ['a'])[0].n, 1);
    assert.equal(db.query('PRAGMA foreign_keys')[0].foreign_keys, 1);
    assert.equal(db.query('PRAGMA journal_mode')[0].journal_mode, 'memory');
    // One connection owns the in-memory file: SQLite keeps its lock and page cache between statements.
    assert.equal(db.query('PRAGMA locking_mode')[0].locking_mode, 'exclusive');
    db.mutate(`UPDATE sessions SET status = 'b'`);
    await db.commit();
  });

  it('gives a cached SELECT * the columns a later ALTER TABLE added (column names are cached per statement)', async () => {
    const db = await openDb(tempDir());
    db.mutate(`CREATE TABLE notes (id TEXT PRIMARY KEY)`);
    db.mutate(`INSERT INTO notes (id) VALUES ('n1')`);
    assert.deepEqual(db.query(`SELECT * FROM notes`), [{ id: 'n1' }]);
    db.mutate(`ALTER TABLE notes ADD COLUMN body TEXT NOT NULL DEFAULT 'x'`);
    assert.deepEqual(db.query(`SELECT * FROM notes`), [{ id: 'n1', body: 'x' }]);
    assert.deepEqual(db.query(`SELECT id AS a, id AS b FROM notes WHERE id = ?`, ['none']), []);
    await db.commit();
  });

  it('round-trips blob parameters through the journal', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    db.mutate(`CREATE TABLE blobs (id INTEGER PRIMARY KEY, b BLOB)`);
    db.mutate(`INSERT INTO blobs (b) VALUES (?)`, [new Uint8Array([0, 1, 254, 255])]);
    await db.commit();
    fs.rmSync(path.join(dir, 'lease.json'));
    open.splice(0);
    const again = await openDb(dir);
    assert.deepEqual(Array.from(again.query(`SELECT b FROM blobs`)[0].b as Uint8Array), [0, 1, 254, 255]);
  });

  it('removes the empty journal segments that opens which wrote nothing leave behind', async () => {
    const dir = tempDir();
    const first = await openDb(dir, { snapshotIdleMs: 60_000 });
    first.mutate(`INSERT INTO sessions (id, status, data, updated_at) VALUES ('s1', 'a', '{}', 1)`);
    await first.commit();
    // A crash, so the record stays in a segment rather than a snapshot.
    fs.rmSync(path.join(dir, 'lease.json'));
    open.splice(0);
    for (let round = 0; round < 5; round++) {
      const db = await openDb(dir);
      assert.equal(db.query(`SELECT count(*) AS n FROM sessions`)[0].n, 1);
      await closeAll();
    }
    const segments = fs.readdirSync(dir).filter((f) => f.startsWith('journal-'));
    // The segment with the record, and the last open's (empty) one.
    assert.equal(segments.length, 2, segments.join(' '));
    const again = await openDb(dir);
    assert.equal(again.query(`SELECT count(*) AS n FROM sessions`)[0].n, 1);
    assert.ok(Number(/journal-(\d+)/.exec(segments.sort().at(-1)!)![1]) >= 6, 'segment numbers went backwards');
  });

  it('prunes old snapshots and journal segments but keeps the previous good snapshot', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    for (let round = 0; round < 4; round++) {
      db.mutate(`INSERT INTO sessions (id, status, data, updated_at) VALUES (?, 'a', '{}', 1)`, [`s${round}`]);
      await db.commit();
      await db.snapshot();
    }
    const files = fs.readdirSync(dir).sort();
    assert.equal(files.filter((f) => f.startsWith('snapshot-')).length, 2);
    // Segments older than the previous snapshot are gone; what remains covers the fallback path.
    assert.ok(files.filter((f) => f.startsWith('journal-')).length <= 3, files.join(' '));
  });
});
