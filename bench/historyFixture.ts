/**
 * The history benchmark's fixture: a year of use built through the store's own APIs (EngineState
 * sessions and tasks, EventStreams appends, the chore run log's persistence, approvals through
 * DurableDb, the archive mover running as the year goes), cached under .vscode-test/.
 *
 * The cache is keyed by what made it: the folder name carries the sizes, the store's schema
 * version and a hash of every source file this generator runs (this file and everything it imports
 * from src/, found by esbuild the way a bundle would find them). A change to the generator, the
 * store, the journal or the event streams therefore builds a new fixture instead of measuring one
 * an older version wrote.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { DbRunPersistence } from '../src/core/chores/runLog';
import type { ChoreRunRecord } from '../src/core/chores/runLog';
import { EngineState } from '../src/core/engine/engineState';
import { AppendFile, EventStreams } from '../src/core/engine/eventLog';
import type { TaskRecord } from '../src/core/engine/records';
import type { TaskEventKind } from '../src/core/engine/types';
import type { Clock } from '../src/core/ports';
import { silentLogger } from '../src/core/ports';
import { Archive, ARCHIVE_KINDS } from '../src/core/store/archive';
import { openDurableDb } from '../src/core/store/durableDb';
import { LATEST_SCHEMA_VERSION } from '../src/core/store/schema';
import { loadSqlJs } from '../src/core/store/sqlJs';
import { progressFor } from './support';

export const SESSIONS = Number(process.env.HISTORY_SESSIONS ?? 10_000);
const EVENTS_PER_SESSION = 100;
const CHORE_RUNS = Number(process.env.HISTORY_CHORE_RUNS ?? 100_000);
const APPROVALS = Number(process.env.HISTORY_APPROVALS ?? 20_000);
export const DAY = 86_400_000;
const YEAR_START = Date.UTC(2025, 11, 1);
export const YEAR_END = YEAR_START + 365 * DAY;
/** The session from 11 months ago that the search must find. */
export const NEEDLE = 'zanzibar';
const NEEDLE_SESSION = Math.floor(SESSIONS / 12);
const repoRoot = path.resolve(__dirname, '..');
const cacheRoot = path.join(repoRoot, '.vscode-test');
const PREFIX = 'history-fixture-';

const progress = progressFor('history');

/** What fixture.json records about a built fixture. */
export interface FixtureMeta {
  sessions: number;
  events: number;
  choreRuns: number;
  approvals: number;
  builtMs: number;
}

/** A fixture ready to open. */
export interface Fixture {
  dir: string;
  /** The folder name: sizes, schema version and the generator's source hash. */
  key: string;
  /** True when this run built it (no cached fixture with this key, or `fresh` was asked for). */
  built: boolean;
  meta: FixtureMeta;
}

/**
 * A hash of the source files the generator runs: this file and its imports from the repository,
 * transitively (packages are left out: the lockfile pins them, and sql.js is in the store's
 * snapshot format anyway).
 */
export function generatorSourceHash(): string {
  const result = buildSync({
    entryPoints: [__filename],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'cjs',
    packages: 'external',
    logLevel: 'silent',
  });
  const hash = createHash('sha256');
  for (const input of Object.keys(result.metafile.inputs).sort()) {
    hash
      .update(input)
      .update('\0')
      .update(fs.readFileSync(path.resolve(repoRoot, input)))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 12);
}

/** The cache folder name for today's generator and store. */
export function fixtureKey(): string {
  return `${PREFIX}${SESSIONS}-${CHORE_RUNS}-${APPROVALS}-schema${LATEST_SCHEMA_VERSION}-${generatorSourceHash()}`;
}

/**
 * The fixture built by today's code: the cached one when its key matches and `fresh` is false,
 * else built now (stale fixtures of the same sizes are removed: each is a few hundred MB).
 */
export async function ensureFixture(options: { fresh: boolean }): Promise<Fixture> {
  const key = fixtureKey();
  const dir = path.join(cacheRoot, key);
  const cached = !options.fresh && fs.existsSync(path.join(dir, 'fixture.json'));
  if (cached) progress(`using the cached fixture ${path.relative(repoRoot, dir)}`);
  else {
    // Older fixtures of the same sizes (and the unkeyed name of before) are stale: remove them.
    const stale = [`${PREFIX}${SESSIONS}-${CHORE_RUNS}-${APPROVALS}-`, `${PREFIX}v1-`];
    if (fs.existsSync(cacheRoot))
      for (const name of fs.readdirSync(cacheRoot))
        if (stale.some((prefix) => name.startsWith(prefix))) fs.rmSync(path.join(cacheRoot, name), { recursive: true, force: true });
    progress(`building a year of history in ${path.relative(repoRoot, dir)}${options.fresh ? ' (--fresh)' : ' (cached for later runs)'}`);
    await build(dir);
  }
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'fixture.json'), 'utf8')) as FixtureMeta;
  return { dir, key, built: !cached, meta };
}

class ManualClock implements Clock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  setTimeout(): { cancel(): void } {
    return { cancel() {} };
  }
}

function topic(i: number): string {
  if (i === NEEDLE_SESSION) return `plan the ${NEEDLE} payment migration`;
  return ['fix the flaky login test', 'refactor the parser', 'explain the build', 'update dependencies', 'review the API docs'][i % 5];
}

async function build(dir: string): Promise<void> {
  const started = Date.now();
  fs.rmSync(dir, { recursive: true, force: true });
  const clock = new ManualClock(YEAR_START);
  const db = await openDurableDb({ dir: path.join(dir, 'store'), sqlJs: await loadSqlJs(), clock, snapshotEveryRecords: 50_000, snapshotIdleMs: 3_600_000 });
  const streams = new EventStreams(path.join(dir, 'agent', 'events'));
  const state = new EngineState(db, streams, new AppendFile(path.join(dir, 'agent', 'EVENT.md')), clock, silentLogger);
  await state.load();
  const archive = new Archive({
    db,
    dir: path.join(dir, 'store', 'archive'),
    clock,
    logger: silentLogger,
    onMoved: (kind, ids) => kind === 'session' && ids.forEach((id) => state.forgetSession(id)),
  });
  const moveAll = () => {
    for (const kind of ARCHIVE_KINDS) while (archive.moveBatch(kind, 2000) === 2000);
  };
  const runs = new DbRunPersistence(db);
  const step = (365 * DAY) / SESSIONS;
  let events = 0;
  let runsMade = 0;
  let approvalsMade = 0;
  for (let i = 0; i < SESSIONS; i++) {
    clock.t = YEAR_START + Math.floor(i * step);
    const session = state.createSession({ name: `Session ${i}: ${topic(i)}` });
    const items: Array<{ kind: TaskEventKind; data: Record<string, unknown>; at: number }> = [];
    for (let k = 0; k < EVENTS_PER_SESSION; k++) {
      const at = clock.t + k * 1000;
      if (k % 10 === 0) items.push({ kind: 'message', data: { role: k % 20 === 0 ? 'user' : 'assistant', text: `${topic(i)} — step ${k}`, at }, at });
      else if (k % 2 === 1) items.push({ kind: 'action_start', data: { name: 'read_file', input: { path: `src/module${k}.ts` }, callId: `c${k}` }, at });
      else
        items.push({ kind: 'action_end', data: { name: 'read_file', output: `export const v${k} = ${k};`.repeat(4), durationMs: 3, callId: `c${k - 1}` }, at });
    }
    await streams.appendMany(session.id, items);
    events += items.length;
    const task: TaskRecord = {
      id: `t-${i}`,
      sessionId: session.id,
      name: topic(i),
      instruction: `Please ${topic(i)}.`,
      mode: 'simple',
      status: 'completed',
      todos: [],
      actionSets: ['core'],
      selectedSkills: [],
      source: 'user',
      waitingForUser: false,
      paused: false,
      actionCount: 45,
      usage: { inputTokens: 40_000, outputTokens: 2_000, cacheReadTokens: 0, cacheWriteTokens: 0, cost: 0.05 },
      limits: { actions: 50, tokens: 500_000 },
      warned: { actions: false, tokens: false, cost: false },
      turns: 12,
      modelErrors: 0,
      prefix: '',
      historyFromSeq: 1,
      createdAt: clock.t,
      endedAt: clock.t + 100_000,
      finalSummary: `Done: ${topic(i)}.`,
    };
    state.saveTask(task);
    // Chore runs and approvals spread over the same year.
    for (; runsMade < ((i + 1) * CHORE_RUNS) / SESSIONS; runsMade++) {
      const run: ChoreRunRecord = {
        runId: `run-${runsMade}`,
        choreId: `chore-${runsMade % 7}`,
        fireKey: `chore:chore-${runsMade % 7}:${clock.t + runsMade}`,
        attempt: 0,
        cause: 'cron',
        startedAt: clock.t,
        endedAt: clock.t + 30_000,
        status: runsMade % 13 === 0 ? 'failed' : 'succeeded',
        reason: null,
        usage: { inputTokens: 5000, outputTokens: 300, costUsd: 0.004 } as unknown as ChoreRunRecord['usage'],
        steps: [
          { name: 'run_task', status: 'ok', args: '{"task":"build"}', result: 'exit 0', startedAt: clock.t, durationMs: 20_000 },
        ] as unknown as ChoreRunRecord['steps'],
      };
      runs.upsert(run);
    }
    for (; approvalsMade < ((i + 1) * APPROVALS) / SESSIONS; approvalsMade++) {
      db.mutate('INSERT INTO approvals (id, task_id, session_id, status, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        `cs-${approvalsMade}`,
        task.id,
        session.id,
        'applied',
        JSON.stringify({ files: [{ path: 'src/a.ts', added: 3, removed: 1 }] }),
        clock.t,
        clock.t + 60_000,
      ]);
    }
    if (i % 250 === 249) {
      await state.commit();
      moveAll();
      await db.commit();
      if (i % 2500 === 2499)
        progress(`built ${i + 1}/${SESSIONS} sessions (${events} events, ${runsMade} chore runs) in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
  }
  clock.t = YEAR_END;
  await state.commit();
  moveAll();
  await db.commit();
  await streams.close();
  await db.close();
  fs.writeFileSync(
    path.join(dir, 'fixture.json'),
    JSON.stringify({ sessions: SESSIONS, events, choreRuns: runsMade, approvals: approvalsMade, builtMs: Date.now() - started }),
  );
  progress(`fixture built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
