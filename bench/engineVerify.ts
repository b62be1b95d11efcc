// engine.verify_overhead (issue 43): Tasklane's time around a chore's check beyond the command's
// own run. One round of a `verify:` check as the runner does it at task_end (chores/runChecks.ts):
// ask whether the task changed a file (its change sets, in the durable store), open the check's
// step in the run's trace, run it through the sealed command-line runner, close the step and
// record the round on the run durably (journal + fsync). The command is a real `node` process;
// its own run is the runner's measured duration (spawn to exit), and the figure is the rest. The
// baseline is that duration itself (what the check costs anyway), measured in the same samples.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cliCommandRunner } from '../src/cli/commandRunner';
import { sandboxFor } from '../src/cli/commandSandbox';
import { hashContent } from '../src/core/approval/changes/changeSet';
import { DbChangeSetStore } from '../src/core/approval/changes/changeSetStore';
import { judgeRunChecks } from '../src/core/chores/runChecks';
import { ChoreRunLog, DbRunPersistence } from '../src/core/chores/runLog';
import type { ChoreDefinition } from '../src/core/chores/types';
import { choreChecksPort } from '../src/core/engineChores';
import { systemClock } from '../src/core/ports';
import { openDurableDb } from '../src/core/store/durableDb';
import { loadSqlJs } from '../src/core/store/sqlJs';
import { emitLine, median, p95, round } from './support';

const RUNS = 40;

export async function verifyOverhead(root: string): Promise<void> {
  const dir = path.join(root, 'verify');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'check.js'), "console.log('ok 1 answer');\n");
  const db = await openDurableDb({ dir: path.join(dir, 'store'), sqlJs: await loadSqlJs() });
  const changeSets = new DbChangeSetStore(db, systemClock);
  const now = systemClock.now();
  // The task changed one file (an applied change set), so the check runs.
  await changeSets.insert({
    id: 'cs-1',
    taskId: 'task-1',
    sessionId: 'task-1',
    status: 'applied',
    files: [{ path: 'src/app.js', kind: 'modify', before: 'a', after: 'b', beforeHash: hashContent('a'), added: 1, removed: 1 }],
    createdAt: now,
  });
  await db.commit();
  const runLog = new ChoreRunLog(new DbRunPersistence(db), systemClock);
  const runner = cliCommandRunner({ cwd: dir, env: process.env, maxCalls: RUNS * 2, sandbox: sandboxFor(false) });
  const checks = choreChecksPort(runner, changeSets);
  const chore = { id: 'bench', verify: ['node check.js'], verifyRounds: RUNS + 1, budget: { maxSeconds: 600 } } as ChoreDefinition;
  const logger = { info() {}, warn() {}, error() {}, debug() {} } as never;
  const overhead: number[] = [];
  const command: number[] = [];
  const { run } = await runLog.start({ choreId: 'bench', fireKey: 'bench@1', cause: 'manual' });
  await runLog.linkTask(run.runId, 'task-1');
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const verdict = await judgeRunChecks({ checks, runLog, logger }, chore, run, 'task-1');
    const wall = performance.now() - started;
    if (verdict?.kind !== 'verified') throw new Error(`the bench check did not pass: ${JSON.stringify(verdict)}`);
    const own = verdict.results[0]!.durationMs;
    // The warm-up round pays the first spawn and statement preparation: left out.
    if (i === 0) continue;
    overhead.push(wall - own);
    command.push(own);
  }
  await db.close();
  const value = median(overhead);
  const baseline = median(command);
  emitLine({
    name: 'engine.verify_overhead',
    value: round(value),
    unit: 'ms',
    p95: round(p95(overhead)),
    runs: overhead.length,
    baseline: round(baseline),
    baselineName: 'the check command itself (node check.js, spawn to exit)',
    ratio: round(value / baseline),
    target: { median: 20 },
  });
}
