// Store benchmark (docs/DESIGN.md §10, issue #3): durable commit and emit+claim+ack cycle at 1k, 100k
// and 1M triggers of history, each against better-sqlite3 (WAL, synchronous=FULL) doing the same
// in the same run; open time for a 10k-record journal; and the naive export-per-commit baseline.
// One JSON line per figure on stdout; progress on stderr.
import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openDurableDb } from '../src/core/store/durableDb';
import { MIGRATIONS } from '../src/core/store/schema';
import { loadSqlJs } from '../src/core/store/sqlJs';
import { writeFileAtomic } from '../src/core/store/storeFiles';
import { createTriggerStore } from '../src/core/store/triggerStore';

const HISTORY_SIZES = [1_000, 100_000, 1_000_000];
const SAMPLES = Number(process.env.STORE_BENCH_SAMPLES ?? 300);
const WARMUP = 30;
const BASELINE = 'better-sqlite3@12 WAL synchronous=FULL';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-bench-'));

function emitLine(figure: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(figure) + '\n');
}
function progress(message: string): void {
  process.stderr.write(`[store] ${message}\n`);
}
function stats(samples: number[]): { median: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: round(at(0.5)), p95: round(at(0.95)) };
}
function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function historyLine(i: number): string {
  return JSON.stringify({
    id: `h-${i}`,
    source: 'task_continuation',
    sessionId: `s${i % 50}`,
    payload: { n: i },
    fireAt: 1_700_000_000_000 + i,
    priority: 100,
    attempts: 1,
    status: 'done',
    doneAt: 1_700_000_000_000 + i,
  });
}

/** Acked triggers leave the hot db for history/triggers.jsonl; build that file in bulk. */
function writeHistoryFile(dir: string, count: number): void {
  fs.mkdirSync(path.join(dir, 'history'), { recursive: true });
  const fd = fs.openSync(path.join(dir, 'history', 'triggers.jsonl'), 'w');
  const chunk: string[] = [];
  for (let i = 0; i < count; i++) {
    chunk.push(historyLine(i));
    if (chunk.length === 10_000) fs.writeSync(fd, chunk.splice(0).join('\n') + '\n');
  }
  if (chunk.length) fs.writeSync(fd, chunk.join('\n') + '\n');
  // Flush the bulk write now, or its writeback would land on the timed commits of every contender.
  fs.fsyncSync(fd);
  fs.closeSync(fd);
}

interface Contender {
  /** emit one trigger and wait until it is durable */
  commit(i: number): Promise<void> | void;
  /** drain what commit() added, untimed, so the hot set stays the same size */
  drain(): Promise<void> | void;
  /** emit + claim + ack, each durable */
  cycle(i: number): Promise<void> | void;
  close(): Promise<void> | void;
}

async function tasklane(history: number): Promise<Contender & { hotDbBytes(): number }> {
  const sqlJs = await loadSqlJs();
  const dir = path.join(root, `tasklane-${history}`);
  fs.mkdirSync(dir, { recursive: true });
  writeHistoryFile(dir, history);
  const db = await openDurableDb({ dir, sqlJs });
  const store = await createTriggerStore(db, { restartNoticeSession: false });
  return {
    async commit(i) {
      await store.emit({ source: 'user_message', sessionId: `s${i % 8}`, payload: { text: `message ${i}` } });
    },
    async drain() {
      await store.ack((await store.next()).token);
    },
    async cycle(i) {
      await store.emit({ source: 'user_message', sessionId: `s${i % 8}`, payload: { text: `message ${i}` } });
      await store.ack((await store.next()).token);
    },
    hotDbBytes: () => (db.query('PRAGMA page_count')[0].page_count as number) * (db.query('PRAGMA page_size')[0].page_size as number),
    async close() {
      await store.close();
      await db.close();
    },
  };
}

const TRIGGER_DDL = MIGRATIONS[0].statements.filter((s) => /triggers/.test(s));

function betterSqlite(history: number): Contender {
  const file = path.join(root, `bsq-${history}.db`);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  for (const statement of TRIGGER_DDL) db.exec(statement);
  // A native store can keep its history in the same table: it commits O(change) anyway.
  const insertDone = db.prepare(
    `INSERT INTO triggers (id, source, session_id, payload, fire_at, priority, attempts, status, created_at, done_at) VALUES (?, 'task_continuation', ?, ?, ?, 100, 1, 'done', ?, ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < history; i++) insertDone.run(`h-${i}`, `s${i % 50}`, JSON.stringify({ n: i }), i, i, i);
  })();
  db.pragma('wal_checkpoint(TRUNCATE)'); // durable and out of the WAL before timing starts
  const insert = db.prepare(
    `INSERT INTO triggers (id, source, session_id, payload, fire_at, priority, attempts, status, created_at) VALUES (?, 'user_message', ?, ?, ?, 10, 0, 'pending', ?)`,
  );
  const due = db.prepare(`SELECT * FROM triggers WHERE status = 'pending' AND fire_at <= ? ORDER BY priority, fire_at, rowid LIMIT 1`);
  const claim = db.prepare(`UPDATE triggers SET status = 'claimed', lease_token = ?, lease_owner = 'bench', attempts = attempts + 1 WHERE id = ?`);
  const ack = db.prepare(`UPDATE triggers SET status = 'done', lease_token = NULL, done_at = ? WHERE lease_token = ? AND status = 'claimed'`);
  let n = 0;
  const emit = (i: number): void => {
    insert.run(`b-${n++}`, `s${i % 8}`, JSON.stringify({ text: `message ${i}` }), Date.now(), Date.now());
  };
  const claimAndAck = (): void => {
    const row = due.get(Date.now()) as { id: string };
    const token = `tok-${n}`;
    claim.run(token, row.id);
    ack.run(Date.now(), token);
  };
  return {
    commit: emit,
    drain: claimAndAck,
    cycle(i) {
      emit(i);
      claimAndAck();
    },
    close() {
      db.close();
    },
  };
}

/**
 * Samples rotate over every contender of every history size (and the order flips each round), so
 * all of them see the same disk and CPU weather: this machine is shared with other work, and
 * the targets are ratios (against better-sqlite3, and 1M history against 1k).
 */
async function interleaved(contenders: Contender[], op: 'commit' | 'cycle'): Promise<number[][]> {
  const out = contenders.map(() => [] as number[]);
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const order = contenders.map((_, k) => k);
    if (i % 2 === 1) order.reverse();
    for (const k of order) {
      const t0 = performance.now();
      await contenders[k][op](i);
      const elapsed = performance.now() - t0;
      if (op === 'commit') await contenders[k].drain();
      if (i >= WARMUP) out[k].push(elapsed);
    }
  }
  return out;
}

/** The naive way: history in the sql.js db, and export + atomic write of the whole db per commit. */
async function measureNaive(history: number): Promise<{ samples: number[]; dbBytes: number }> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  for (const statement of TRIGGER_DDL) db.run(statement);
  const insertDone = db.prepare(
    `INSERT INTO triggers (id, source, session_id, payload, fire_at, priority, attempts, status, created_at, done_at) VALUES (?, 'task_continuation', ?, ?, ?, 100, 1, 'done', ?, ?)`,
  );
  db.run('BEGIN');
  for (let i = 0; i < history; i++) insertDone.run([`h-${i}`, `s${i % 50}`, JSON.stringify({ n: i }), i, i, i]);
  db.run('COMMIT');
  insertDone.free();
  const file = path.join(root, `naive-${history}.db`);
  const runs = history >= 1_000_000 ? 3 : history >= 100_000 ? 10 : 50;
  const samples: number[] = [];
  let dbBytes = 0;
  for (let i = 0; i < runs + 1; i++) {
    const t0 = performance.now();
    db.run(
      `INSERT INTO triggers (id, source, session_id, payload, fire_at, priority, attempts, status, created_at) VALUES (?, 'user_message', 's', '{}', 0, 10, 0, 'pending', 0)`,
      [`n-${i}`],
    );
    const bytes = db.export();
    await writeFileAtomic(file, bytes);
    dbBytes = bytes.length;
    if (i > 0) samples.push(performance.now() - t0);
  }
  db.close();
  fs.rmSync(file, { force: true });
  return { samples, dbBytes };
}

async function measureOpen(records: number): Promise<{ samples: number[]; cpu: number[]; replayed: number; journalBytes: number }> {
  const sqlJs = await loadSqlJs();
  const dir = path.join(root, 'open');
  const db = await openDurableDb({ dir, sqlJs, snapshotEveryRecords: Number.MAX_SAFE_INTEGER, snapshotIdleMs: 3_600_000 });
  // One emit = one journal record (an INSERT of a realistic trigger row).
  const store = await createTriggerStore(db, { restartNoticeSession: false });
  const batch: Promise<unknown>[] = [];
  for (let i = 0; i < records - 1; i++) {
    batch.push(
      store.emit({ source: 'task_continuation', sessionId: `s${i}`, payload: { taskId: `t${i}`, note: 'continue the task' }, fireAt: Date.now() + 3_600_000 }),
    );
    if (batch.length === 500) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  await store.close();
  // Leave without close(): the next open must replay the whole journal (no snapshot was taken).
  fs.rmSync(path.join(dir, 'lease.json'));
  const journalBytes = fs
    .readdirSync(dir)
    .filter((f) => f.startsWith('journal-'))
    .reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);
  const samples: number[] = [];
  // CPU time as well as wall time: on a busy shared machine wall time mostly measures the queue.
  const cpu: number[] = [];
  let replayed = 0;
  for (let i = 0; i < 7; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const again = await openDurableDb({ dir, sqlJs, snapshotIdleMs: 3_600_000 });
    samples.push(performance.now() - t0);
    const used = process.cpuUsage(c0);
    cpu.push((used.user + used.system) / 1000);
    replayed = again.opened.journalRecordsReplayed;
    // Drop it like a crash so every sample replays the same journal.
    fs.rmSync(path.join(dir, 'lease.json'));
    fs.readdirSync(dir)
      .filter((f) => f.startsWith('journal-'))
      .forEach((f) => {
        if (fs.statSync(path.join(dir, f)).size === 0) fs.rmSync(path.join(dir, f));
      });
  }
  return { samples, cpu, replayed, journalBytes };
}

async function main(): Promise<void> {
  progress('setting up 1k, 100k and 1M histories (tasklane history file, better-sqlite3 table)');
  const ours = await Promise.all(HISTORY_SIZES.map((h) => tasklane(h)));
  const theirs = HISTORY_SIZES.map((h) => betterSqlite(h));
  const contenders = HISTORY_SIZES.flatMap((_, k) => [ours[k], theirs[k]]);
  progress('measuring commit');
  const commits = await interleaved(contenders, 'commit');
  progress('measuring cycle');
  const cycles = await interleaved(contenders, 'cycle');
  const commitStats = HISTORY_SIZES.map((_, k) => [stats(commits[2 * k]), stats(commits[2 * k + 1])]);
  const cycleStats = HISTORY_SIZES.map((_, k) => [stats(cycles[2 * k]), stats(cycles[2 * k + 1])]);
  for (const [k, history] of HISTORY_SIZES.entries()) {
    for (const [name, [mine, base]] of [
      ['store.commit', commitStats[k]],
      ['store.cycle', cycleStats[k]],
    ] as const) {
      const first = (name === 'store.commit' ? commitStats : cycleStats)[0][0];
      emitLine({
        name,
        value: mine.median,
        unit: 'ms',
        p95: mine.p95,
        history,
        runs: SAMPLES,
        baseline: base.median,
        baseline_p95: base.p95,
        baseline_name: BASELINE,
        ratio: round(mine.median / base.median),
        ...(k > 0 ? { vs_1k: round(mine.median / first.median) } : {}),
        ...(name === 'store.commit' ? { hot_db_bytes: ours[k].hotDbBytes() } : {}),
      });
    }
  }
  for (const contender of contenders) await contender.close();
  for (const history of HISTORY_SIZES) {
    const c = commitStats[HISTORY_SIZES.indexOf(history)][0];
    progress(`history ${history}: naive export`);
    const naive = await measureNaive(history);
    const n = stats(naive.samples);
    emitLine({
      name: 'store.naive_export',
      value: n.median,
      unit: 'ms',
      p95: n.p95,
      history,
      runs: naive.samples.length,
      db_bytes: naive.dbBytes,
      vs_store_commit: round(n.median / c.median),
    });
  }
  progress('open: 10k-record journal');
  const open = await measureOpen(10_000);
  const o = stats(open.samples);
  emitLine({
    name: 'store.open',
    value: o.median,
    unit: 'ms',
    p95: o.p95,
    cpu_ms: stats(open.cpu).median,
    runs: open.samples.length,
    journal_records: open.replayed,
    journal_bytes: open.journalBytes,
    target: 200,
    ratio: round(o.median / 200),
  });
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`[store] failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => fs.rmSync(root, { recursive: true, force: true }));
