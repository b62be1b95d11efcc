// History benchmark (issue #12), one JSON line per figure on stdout; progress on stderr.
// Opens a year of use (bench/historyFixture.ts: built by today's code, cached under .vscode-test/
// by a key of what made it; `npm run bench -- history --fresh` always rebuilds it) as the
// extension would, in a fresh child process, next to an empty store opened the same way in the
// same run. `history.ready` says whether the fixture was built in this run (`fixtureBuilt`):
// - history.ready: ms from opening the store to the agent ready (restore done), median of 3
// - history.rss: MB of resident memory over the empty store after ready
// - history.fds: open descriptors after ready
// - history.search: ms for a history search that hits a session from 11 months ago
// - history.archive_move: records/s moved while a task runs turns, and those turns' overhead
//   against turns with no move in the same run
// - history.sidebar_open: ms from showing the Chat view to the first paint of its thread (the last
//   conversation), in code-server + Chromium with the fixture as the store (bench/historySidebar.ts)
// - history.pick_open: ms from the History title action to its quick pick's rows shown, same run
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DbRunPersistence } from '../src/core/chores/runLog';
import type { ChoreRunRecord } from '../src/core/chores/runLog';
import { createEngine } from '../src/core/createEngine';
import { Redactor } from '../src/core/security/redact';
import { silentLogger, systemClock } from '../src/core/ports';
import { openDurableDb } from '../src/core/store/durableDb';
import { loadSqlJs } from '../src/core/store/sqlJs';
import { createTriggerStore } from '../src/core/store/triggerStore';
import { openStore } from '../src/core/store/openStore';
import { DAY, ensureFixture, NEEDLE, YEAR_END } from './historyFixture';
import { measureSidebarOpen } from './historySidebar';
import { ClaimTimingLogger, emitLine, median, progressFor, round as roundTo } from './support';
import { InstantModel } from '../test/fakes/instantModel';
import { MemoryWorkspace } from '../test/fakes/memoryWorkspace';

const repoRoot = path.resolve(__dirname, '..');
const progress = progressFor('history');
const round = (n: number) => roundTo(n, 2);

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
  const { dir: fixture, key, built, meta } = await ensureFixture({ fresh: process.argv.includes('--fresh') });
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
    fixture: key,
    fixtureBuilt: built,
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
  if (process.env.HISTORY_SKIP_UI) {
    progress('history.sidebar_open skipped (HISTORY_SKIP_UI)');
    emitLine({ name: 'history.sidebar_open', skipped: 'HISTORY_SKIP_UI is set' });
    emitLine({ name: 'history.pick_open', skipped: 'HISTORY_SKIP_UI is set' });
  } else {
    progress('history.sidebar_open, history.pick_open: code-server + Chromium with the fixture as the store (a few minutes)');
    for (const figure of await measureSidebarOpen(fixture, meta)) emitLine(figure);
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
