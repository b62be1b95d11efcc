import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Archive, ARCHIVE_KINDS } from '../../../src/core/store/archive';
import { openDurableDb } from '../../../src/core/store/durableDb';
import type { OpenedDurableDb } from '../../../src/core/store/durableDb';
import { walkFrames } from '../../../src/core/store/journalFormat';
import { silentLogger } from '../../../src/core/ports';
import { FakeClock, removeTempDirs, sqlJs, tempDir } from './helpers';

const DAY = 86_400_000;

function archivedIds(dir: string): string[] {
  const ids: string[] = [];
  for (const kind of ARCHIVE_KINDS) {
    const kindDir = path.join(dir, 'archive', kind);
    if (!fs.existsSync(kindDir)) continue;
    for (const name of fs.readdirSync(kindDir).sort()) {
      const bytes = fs.readFileSync(path.join(kindDir, name));
      walkFrames(bytes, 0, (start, end) => void ids.push((JSON.parse(bytes.toString('utf8', start, end)) as { id: string }).id));
    }
  }
  return ids;
}

function hotIds(db: OpenedDurableDb): string[] {
  return [...db.query('SELECT id FROM tasks'), ...db.query('SELECT id FROM chore_runs'), ...db.query('SELECT id FROM sessions')].map((r) => String(r.id));
}

describe('store: archive of ended work', function () {
  this.timeout(120_000);
  after(removeTempDirs);

  async function open(dir: string, clock: FakeClock) {
    const db = await openDurableDb({ dir, sqlJs: await sqlJs(), clock, lease: { recheckMs: 20 } });
    const archive = new Archive({ db, dir: path.join(dir, 'archive'), clock, logger: silentLogger });
    archive.recover();
    return { db, archive };
  }

  it('moves only what its age rule says, keeps live work hot, and search finds archived sessions and tasks', async () => {
    const dir = tempDir('archive');
    const clock = new FakeClock(Date.UTC(2026, 0, 10));
    const { db, archive } = await open(dir, clock);
    const now = clock.now();
    const put = (id: string, status: string, name: string, updatedAt: number) =>
      db.mutate('INSERT INTO tasks (id, session_id, status, data, updated_at) VALUES (?, ?, ?, ?, ?)', [
        id,
        `s-${id}`,
        status,
        JSON.stringify({ name, instruction: `do ${name}` }),
        updatedAt,
      ]);
    put('old-done', 'completed', 'Fix the Webpack build', now - 2 * DAY);
    put('new-done', 'completed', 'recent', now - DAY / 2);
    put('old-running', 'running', 'still going', now - 30 * DAY);
    db.mutate("INSERT INTO sessions (id, status, data, updated_at) VALUES ('s-idle', 'idle', ?, ?)", [
      JSON.stringify({ name: 'Ask about Kubernetes' }),
      now - 8 * DAY,
    ]);
    db.mutate("INSERT INTO sessions (id, status, data, updated_at) VALUES ('s-old-running', 'idle', ?, ?)", [
      JSON.stringify({ name: 'has a live task' }),
      now - 8 * DAY,
    ]);
    db.mutate("INSERT INTO sessions (id, status, data, updated_at) VALUES ('s-fresh', 'idle', ?, ?)", [JSON.stringify({ name: 'fresh' }), now - DAY]);
    let moved = 0;
    for (const kind of ARCHIVE_KINDS) moved += archive.moveBatch(kind, 100);
    assert.equal(moved, 2);
    assert.deepEqual(hotIds(db).sort(), ['new-done', 'old-running', 's-fresh', 's-old-running']);
    assert.deepEqual(
      archive.search('webpack').map((r) => [r.kind, r.id]),
      [['task', 'old-done']],
    );
    assert.deepEqual(
      archive.search('KUBERNETES').map((r) => [r.kind, r.id]),
      [['session', 's-idle']],
    );
    assert.deepEqual(archive.search('nothing like this'), []);
    assert.equal(archive.bySession('s-old-done')[0].id, 'old-done');
    await db.close();
  });

  it('a crash between the archive write and the delete leaves each record in one place; a torn frame is cut', async () => {
    const dir = tempDir('archive');
    const clock = new FakeClock(Date.UTC(2026, 0, 10));
    let { db, archive } = await open(dir, clock);
    for (let i = 0; i < 10; i++)
      db.mutate("INSERT INTO chore_runs (id, chore_id, status, data, started_at, ended_at) VALUES (?, 'c', 'ok', '{}', 1, 1)", [`r${i}`]);
    await db.commit();
    assert.equal(archive.moveBatch('chore_run', 4), 4);
    // The delete never became durable: simulate by putting the rows back as a crash would leave them.
    for (let i = 0; i < 4; i++)
      db.mutate("INSERT INTO chore_runs (id, chore_id, status, data, started_at, ended_at) VALUES (?, 'c', 'ok', '{}', 1, 1)", [`r${i}`]);
    db.mutate("DELETE FROM meta WHERE key = 'archive:chore_run'");
    await db.commit();
    const [file] = archive.files('chore_run');
    fs.appendFileSync(file, Buffer.from([9, 0, 0, 0, 1, 2, 3, 4, 5]));
    await db.close();
    ({ db, archive } = await open(dir, clock));
    assert.deepEqual(hotIds(db).sort(), ['r4', 'r5', 'r6', 'r7', 'r8', 'r9']);
    assert.deepEqual(archivedIds(dir).sort(), ['r0', 'r1', 'r2', 'r3']);
    assert.equal(archive.moveBatch('chore_run', 100), 6);
    assert.deepEqual(archivedIds(dir).sort(), ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9']);
    await db.close();
  });

  it('recovery after a clean stop finds the watermark at the end and writes nothing', async () => {
    const dir = tempDir('archive');
    const clock = new FakeClock(Date.UTC(2026, 0, 10));
    let { db, archive } = await open(dir, clock);
    for (let i = 0; i < 3; i++)
      db.mutate("INSERT INTO chore_runs (id, chore_id, status, data, started_at, ended_at) VALUES (?, 'c', 'ok', '{}', 1, 1)", [`r${i}`]);
    assert.equal(archive.moveBatch('chore_run', 2), 2);
    await db.close();
    const before = await openDurableDb({ dir, sqlJs: await sqlJs(), clock });
    const lsn = before.lastLsn;
    await before.close();
    ({ db, archive } = await open(dir, clock));
    assert.deepEqual(archive.recover(), { deduplicated: 0, tornBytes: 0 });
    assert.equal(db.lastLsn, lsn, 'a clean start journaled a watermark it already had');
    assert.equal(archive.moveBatch('chore_run', 100), 1);
    assert.deepEqual(archivedIds(dir).sort(), ['r0', 'r1', 'r2']);
    await db.close();
  });

  it('a snapshot after a big move is compacted to the live rows (the next open loads only those)', async () => {
    const dir = tempDir('archive');
    const clock = new FakeClock(Date.UTC(2026, 0, 10));
    let { db, archive } = await open(dir, clock);
    db.transaction((tx) => {
      for (let i = 0; i < 3000; i++)
        tx.mutate("INSERT INTO chore_runs (id, chore_id, status, data, started_at, ended_at) VALUES (?, 'c', 'ok', ?, 1, 1)", [`r${i}`, 'x'.repeat(1000)]);
    });
    await db.snapshot();
    const snapshotSize = () =>
      Math.max(
        ...fs
          .readdirSync(dir)
          .filter((n) => n.startsWith('snapshot-'))
          .map((n) => fs.statSync(path.join(dir, n)).size),
      );
    const full = snapshotSize();
    while (archive.moveBatch('chore_run', 500) > 0);
    await db.snapshot();
    const after = Math.min(
      ...fs
        .readdirSync(dir)
        .filter((n) => n.startsWith('snapshot-'))
        .map((n) => fs.statSync(path.join(dir, n)).size),
    );
    assert.ok(full > 3_000_000, `full snapshot ${full}`);
    assert.ok(after < full / 10, `snapshot after the move: ${after} bytes (was ${full})`);
    await db.close();
    ({ db, archive } = await open(dir, clock));
    assert.equal(db.query('SELECT COUNT(*) AS n FROM chore_runs')[0].n, 0);
    assert.equal(archive.stats().find((x) => x.kind === 'chore_run')?.records, 3000);
    await db.close();
  });

  it('SIGKILL at random points (seeded) during moves loses and duplicates nothing', async () => {
    const seed = Number(process.env.ARCHIVE_SEED ?? Date.now() % 1_000_000);
    console.log(`      seed ${seed} (replay: ARCHIVE_SEED=${seed})`);
    let state = seed;
    const random = (): number => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const dir = tempDir('archive-crash');
    const promised = new Set<string>();
    let next = 0;
    for (let round = 0; round < 10; round++) {
      // Most rounds die after a random amount of progress (counted in durable inserts, so the
      // machine's load does not decide how far a worker gets); some die during open and recovery.
      const killAfter = random() < 0.2 ? null : { lines: 5 + Math.floor(random() * 150), jitterMs: Math.floor(random() * 30) };
      const lines = await runAndKill(dir, next, Math.floor(random() * 1e6), killAfter, Math.floor(random() * 300));
      for (const line of lines) if (line.startsWith('I ')) promised.add(line.slice(2));
      const clock = new FakeClock(Date.now());
      const { db } = await open(dir, clock);
      const archived = archivedIds(dir);
      const hot = hotIds(db);
      const context = `seed ${seed}, round ${round}`;
      assert.equal(new Set(archived).size, archived.length, `${context}: an id is archived twice`);
      const both = hot.filter((id) => archived.includes(id));
      assert.deepEqual(both, [], `${context}: rows both hot and archived`);
      const all = new Set([...hot, ...archived]);
      const lost = [...promised].filter((id) => !all.has(id));
      assert.deepEqual(lost, [], `${context}: durable rows lost`);
      next = Math.max(next, ...[...all].map((id) => Number(id.slice(1)) + 1));
      await db.close();
    }
    assert.ok(promised.size > 50, `the worker made progress (${promised.size} rows)`);
    assert.ok(archivedIds(dir).length > 0, 'some rows were archived');
  });
});

function runAndKill(
  dir: string,
  startAt: number,
  workerSeed: number,
  killAfter: { lines: number; jitterMs: number } | null,
  killAfterSpawnMs: number,
): Promise<string[]> {
  const child = spawn(
    process.execPath,
    ['--require', 'tsx/cjs', path.join(__dirname, 'fixtures', 'archiveWorker.ts'), dir, String(startAt), String(workerSeed + 1)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines: string[] = [];
  let buffer = '';
  return new Promise((resolve, reject) => {
    const kill = (): boolean => child.kill('SIGKILL');
    const early = killAfter === null ? setTimeout(kill, 400 + killAfterSpawnMs) : null;
    let armed = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const line of parts) if (line && line !== 'R') lines.push(line);
      if (killAfter && !armed && lines.length >= killAfter.lines) {
        armed = true;
        setTimeout(kill, killAfter.jitterMs);
      }
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (early) clearTimeout(early);
      if (signal !== 'SIGKILL') reject(new Error(`archive worker exited by itself (code ${code})`));
      else resolve(lines);
    });
  });
}
