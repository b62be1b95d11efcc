// History benchmark (issue #12), one JSON line per figure on stdout; progress on stderr.
// Builds a year of use through the store's own APIs (EngineState sessions and tasks, EventStreams
// appends, the chore run log's persistence, approvals through DurableDb, the archive mover running
// as the year goes), caches it under .vscode-test/, then opens it as the extension would in a
// fresh child process, next to an empty store opened the same way in the same run:
// - history.ready: ms from opening the store to the agent ready (restore done), median of 3
// - history.rss: MB of resident memory over the empty store after ready
// - history.fds: open descriptors after ready
// - history.search: ms for a history search that hits a session from 11 months ago
// - history.archive_move: records/s moved while a task runs turns, and those turns' overhead
//   against turns with no move in the same run
// - history.sidebar_open: ms from showing the view to the first painted session row, in
//   code-server + Chromium with the fixture as the store (bench/historySidebar.ts)
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DbRunPersistence } from '../src/core/chores/runLog';
import type { ChoreRunRecord } from '../src/core/chores/runLog';
import { createEngine } from '../src/core/createEngine';
import { Redactor } from '../src/core/security/redact';
import { EngineState } from '../src/core/engine/engineState';
import { AppendFile, EventStreams } from '../src/core/engine/eventLog';
import type { TaskRecord } from '../src/core/engine/records';
import type { TaskEventKind } from '../src/core/engine/types';
import type { Clock } from '../src/core/ports';
import { silentLogger, systemClock } from '../src/core/ports';
import { Archive, ARCHIVE_KINDS } from '../src/core/store/archive';
import { openDurableDb } from '../src/core/store/durableDb';
import { loadSqlJs } from '../src/core/store/sqlJs';
import { createTriggerStore } from '../src/core/store/triggerStore';
import { openStore } from '../src/core/store/openStore';
import { measureSidebarOpen } from './historySidebar';
import { ClaimTimingLogger, emitLine, median, progressFor, round as roundTo } from './support';
import { InstantModel } from '../test/fakes/instantModel';
import { MemoryWorkspace } from '../test/fakes/memoryWorkspace';

const SESSIONS = Number(process.env.HISTORY_SESSIONS ?? 10_000);
const EVENTS_PER_SESSION = 100;
const CHORE_RUNS = Number(process.env.HISTORY_CHORE_RUNS ?? 100_000);
const APPROVALS = Number(process.env.HISTORY_APPROVALS ?? 20_000);
const DAY = 86_400_000;
const YEAR_START = Date.UTC(2025, 11, 1);
const YEAR_END = YEAR_START + 365 * DAY;
/** The session from 11 months ago that the search must find. */
const NEEDLE = 'zanzibar';
const NEEDLE_SESSION = Math.floor(SESSIONS / 12);
const repoRoot = path.resolve(__dirname, '..');
const fixture = path.join(repoRoot, '.vscode-test', `history-fixture-v1-${SESSIONS}-${CHORE_RUNS}-${APPROVALS}`);

const progress = progressFor('history');
const round = (n: number) => roundTo(n, 2);

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

/** Child mode: open `dir` as the extension does; print ready ms, RSS, fds and (optionally) a search. */
async function openOnce(dir: string, search: boolean): Promise<void> {
  // From loading sql.js on: the extension's runtime opens the store with this same call. The
  // restart notice is off only so that the cached fixture does not gain a notice per run.
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const { db, triggers } = await openStore({ dir: path.join(dir, 'store'), triggers: { restartNoticeSession: false } });
  const { agent } = await createEngine({
    trusted: () => true,
    redactor: new Redactor(),
    db,
    triggers,
    model: async () => new InstantModel(),
    workspace: new MemoryWorkspace({}),
    clock: systemClock,
    logger: silentLogger,
    storageDir: path.join(dir, 'agent'),
    skillDirs: [],
    settings: () => ({ maxActionsPerTask: 50, maxTokensPerTask: 500_000 }),
  });
  await agent.whenReady();
  await agent.restore();
  const readyMs = performance.now() - t0;
  const c1 = process.cpuUsage(c0);
  const readyCpuMs = (c1.user + c1.system) / 1000;
  const rssMb = process.memoryUsage().rss / 1024 / 1024;
  const fds = fs.readdirSync('/proc/self/fd').length;
  let searchMs: number | undefined;
  let searchCpuMs: number | undefined;
  let hit: unknown;
  if (search) {
    const times: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const c = process.cpuUsage();
      const hits = await agent.history.search(NEEDLE);
      times.push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpu.push((used.user + used.system) / 1000);
      hit = hits[0] && { archived: hits[0].archived, monthsAgo: round((YEAR_END - hits[0].at) / (30.4 * DAY)), title: hits[0].title };
    }
    searchMs = median(times);
    searchCpuMs = median(cpu);
  }
  const hot = Number(db.query('SELECT COUNT(*) AS n FROM sessions')[0].n);
  process.stdout.write(`${JSON.stringify({ readyMs, readyCpuMs, rssMb, fds, searchMs, searchCpuMs, hit, hotSessions: hot })}\n`);
  await agent.shutdown();
  await triggers.close();
  await db.close();
}

interface OpenResult {
  readyMs: number;
  readyCpuMs: number;
  searchCpuMs?: number;
  rssMb: number;
  fds: number;
  searchMs?: number;
  hit?: { archived: boolean; monthsAgo: number; title: string };
  hotSessions: number;
}

function openInChild(dir: string, search: boolean): OpenResult {
  const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', __filename, '--open', dir, search ? '--search' : ''], { cwd: repoRoot, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`open child failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as OpenResult;
}

async function archiveMove(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-history-move-'));
  const db = await openDurableDb({ dir: path.join(root, 'store'), sqlJs: await loadSqlJs() });
  const triggers = await createTriggerStore(db, { restartNoticeSession: false });
  const runs = new DbRunPersistence(db);
  const ROWS = 20_000;
  const endedAt = Date.now() - 2 * DAY;
  for (let i = 0; i < ROWS; i++) {
    runs.upsert({
      runId: `run-${i}`,
      choreId: `c${i % 5}`,
      fireKey: `f${i}`,
      attempt: 0,
      cause: 'cron',
      startedAt: endedAt - 1000,
      endedAt,
      status: 'succeeded',
      reason: null,
      usage: {} as ChoreRunRecord['usage'],
      steps: [{ name: 'run_task', status: 'ok', args: '{}', result: 'x'.repeat(400), startedAt: endedAt, durationMs: 5 }] as unknown as ChoreRunRecord['steps'],
    });
  }
  await db.commit();
  const model = new InstantModel();
  const logger = new ClaimTimingLogger('history');
  const { agent } = await createEngine({
    trusted: () => true,
    redactor: new Redactor(),
    db,
    triggers,
    model: async () => model,
    workspace: new MemoryWorkspace({ 'src/a.ts': 'export const a = 1;\n' }),
    clock: systemClock,
    logger,
    storageDir: path.join(root, 'agent'),
    skillDirs: [],
    // The bench starts a task every few turns for as long as the move lasts: far more than the
    // runaway cap of 30 starts an hour, which would refuse them and leave the loop waiting.
    settings: () => ({ maxActionsPerTask: 1000, maxTokensPerTask: 10_000_000, caps: { maxTaskStartsPerHour: 1_000_000 } }),
  });
  const overhead: number[] = [];
  agent.onDidSettle(({ trigger }) => {
    if (trigger.source === 'task_continuation') overhead.push(performance.now() - logger.claimedAt);
  });
  await agent.whenReady();
  agent.start();
  const runTask = async (turns: number): Promise<number[]> => {
    const from = overhead.length;
    model.script([{ toolCalls: [{ name: 'task_start', arguments: { name: 'bench', instruction: 'read a file repeatedly', mode: 'complex' } }] }]);
    for (let t = 0; t < turns; t++) model.script([{ toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }] }]);
    model.script([{ toolCalls: [{ name: 'task_end', arguments: { status: 'error', summary: 'bench' } }] }]);
    const done = new Promise<void>((resolve) => {
      const sub = agent.views.onDidChange((c) => {
        if (c.type === 'task' && c.task.status !== 'running') {
          sub.dispose();
          resolve();
        }
      });
    });
    await agent.sendMessage('run the bench task');
    await done;
    return overhead.slice(from);
  };
  await runTask(10); // warm-up
  const quiet = await runTask(40);
  const t0 = performance.now();
  const during: number[] = [];
  let moved = 0;
  let moveMs = 0;
  const move = agent.history.moveAll(['chore_run']).then((n) => {
    moved = n;
    moveMs = performance.now() - t0;
  });
  while (moveMs === 0) during.push(...(await runTask(5)));
  await move;
  const quietMedian = median(quiet);
  const duringMedian = median(during);
  emitLine({
    name: 'history.archive_move',
    value: round(moved / (moveMs / 1000)),
    unit: 'records/s',
    moved,
    ms: round(moveMs),
    turnOverheadDuring: round(duringMedian),
    turnOverheadDuringP95: round([...during].sort((a, b) => a - b)[Math.floor(during.length * 0.95)]),
    turnsDuring: during.length,
    loadAverage: round(os.loadavg()[0]),
    baseline: round(quietMedian),
    baselineName: 'turn overhead with no move (same run)',
    ratio: round(duringMedian / quietMedian),
    target: { turnOverheadMedianMs: 10 },
  });
  await agent.shutdown();
  await triggers.close();
  await db.close();
  fs.rmSync(root, { recursive: true, force: true });
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(fixture, 'fixture.json'))) {
    progress(`building a year of history in ${path.relative(repoRoot, fixture)} (cached for later runs)`);
    await build(fixture);
  } else progress(`using the cached fixture ${path.relative(repoRoot, fixture)}`);
  const meta = JSON.parse(fs.readFileSync(path.join(fixture, 'fixture.json'), 'utf8')) as {
    sessions: number;
    events: number;
    choreRuns: number;
    approvals: number;
  };
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-history-empty-'));
  const emptyRuns: OpenResult[] = [];
  const fullRuns: OpenResult[] = [];
  // Interleaved so both share the machine's weather; the first open of each is a warm-up.
  for (let i = 0; i < 4; i++) {
    emptyRuns.push(openInChild(empty, false));
    fullRuns.push(openInChild(fixture, true));
  }
  const e = emptyRuns.slice(1);
  const f = fullRuns.slice(1);
  const readyBase = median(e.map((r) => r.readyMs));
  const ready = median(f.map((r) => r.readyMs));
  emitLine({
    name: 'history.ready',
    value: round(ready),
    unit: 'ms',
    sessions: meta.sessions,
    events: meta.events,
    choreRuns: meta.choreRuns,
    approvals: meta.approvals,
    hotSessions: f[0].hotSessions,
    baseline: round(readyBase),
    baselineName: 'empty store, same run',
    ratio: round(ready / readyBase),
    cpuMs: round(median(f.map((r) => r.readyCpuMs))),
    baselineCpuMs: round(median(e.map((r) => r.readyCpuMs))),
    cpuRatio: round(median(f.map((r) => r.readyCpuMs)) / median(e.map((r) => r.readyCpuMs))),
    loadAverage: round(os.loadavg()[0]),
    target: { ms: 300, ratio: 2 },
  });
  emitLine({
    name: 'history.rss',
    value: round(median(f.map((r) => r.rssMb)) - median(e.map((r) => r.rssMb))),
    unit: 'MB over empty',
    rss: round(median(f.map((r) => r.rssMb))),
    baseline: round(median(e.map((r) => r.rssMb))),
    target: 64,
  });
  emitLine({
    name: 'history.fds',
    value: Math.max(...f.map((r) => r.fds)),
    unit: 'open fds after ready',
    baseline: Math.max(...e.map((r) => r.fds)),
    sessions: meta.sessions,
    target: 32,
  });
  emitLine({
    name: 'history.search',
    value: round(median(f.map((r) => r.searchMs ?? NaN))),
    unit: 'ms',
    cpuMs: round(median(f.map((r) => r.searchCpuMs ?? NaN))),
    query: NEEDLE,
    hit: f[0].hit,
    target: 200,
  });
  fs.rmSync(empty, { recursive: true, force: true });
  await archiveMove();
  if (process.env.HISTORY_SKIP_UI) progress('history.sidebar_open skipped (HISTORY_SKIP_UI)');
  else {
    progress('history.sidebar_open: code-server + Chromium with the fixture as the store (a few minutes)');
    emitLine(await measureSidebarOpen(fixture, meta));
  }
}

if (process.argv[2] === '--open') {
  void openOnce(process.argv[3], process.argv[4] === '--search');
} else {
  main().catch((error) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
