/**
 * A cap pauses, never kills (issue 43): a chore run that reaches one of its own limits (iterations,
 * input tokens, cost) or the extension's per-task budget parks: its task is paused with its history
 * kept, the run stays `running` with `parked` set, and no model call is made while it waits.
 * Resuming (the chore's Resume, or Continue on its task) grants the run another budget of the
 * chore's size on top of what it has used and continues the same task from the step it reached.
 *
 * maxSeconds and the rolling spend caps still end the run: maxSeconds is the chore's promise about
 * wall time (the deadline fires whatever the task does), and a rolling cap pauses the whole chore
 * (spendLedger.ts), whose Resume lets the next run start afresh.
 *
 * A parked run is still the chore's active run, so its `concurrency` policy applies to new fires
 * (skip, queue, replace) as for any running run: resuming it is the person's call, and a fire
 * that replaced it would throw its state away only where the chore asked for that.
 */
import type { TaskView } from '../engine/types';
import type { GuardStop } from '../engine/taskHooks';
import type { LiveRuns } from './liveRuns';
import type { BudgetLimit } from './runBudget';
import type { ChoreRunLog, ChoreRunRecord } from './runLog';
import type { ChoreBudget } from './types';

const PAUSABLE: ReadonlySet<BudgetLimit> = new Set(['iterations', 'inputTokens', 'costUsd']);

/** The guard's stop for a spent limit: a pause for the run's own limits, an end for the others. */
export function budgetStop(check: { exhausted: BudgetLimit; message: string }, park = false): GuardStop {
  const text = `Chore budget exhausted: ${check.message}`;
  if (!park || !PAUSABLE.has(check.exhausted)) return text;
  return { pauseAtBudget: `${text}. Paused at budget: Resume the chore (Chores view) or Continue here to give it another budget; Cancel ends the run.` };
}

/**
 * Parks the run of a task that paused at a budget, or keeps it parked (after a reload the task is
 * still paused). `'parked'` when it parked just now (the transition a pause notice announces,
 * pauseNotice.ts), `'kept'` when it was parked already, false when the runner should end it.
 */
export async function parkAtBudget(
  runLog: ChoreRunLog,
  live: LiveRuns,
  run: ChoreRunRecord,
  task: Pick<TaskView, 'paused' | 'pauseReason'>,
): Promise<'parked' | 'kept' | false> {
  if (!task.paused || task.pauseReason !== 'budget') return false;
  if (run.parked) return 'kept';
  const side = live.peek(run.runId);
  if (side?.stopped && !PAUSABLE.has(side.stopped.exhausted)) return false;
  const message = side?.stopped?.message ?? "the task reached the extension's per-task budget (tasklane.budget.*)";
  // The live side goes: its deadline must not end a parked run; resuming rebuilds it with the raised limits.
  if (side) runLog.updateUsage(run.runId, side.budget.totals());
  live.take(run.runId);
  await runLog.park(run.runId, message);
  return 'parked';
}

/**
 * The limits a parked run resumes with: what it used plus a fresh budget of the chore's size for
 * each limit. Seconds count from the run's start, so the time it waited parked is granted too.
 */
export function resumedLimits(run: ChoreRunRecord, chore: ChoreBudget, now: number): ChoreBudget {
  const used = run.usage;
  return {
    maxIterations: used.iterations + chore.maxIterations,
    maxSeconds: Math.ceil((now - run.startedAt) / 1000) + chore.maxSeconds,
    maxInputTokens: used.inputTokens + used.cacheReadTokens + used.cacheWriteTokens + chore.maxInputTokens,
    maxCostUsd: used.costUsd + chore.maxCostUsd,
  };
}

/** The chore's run parked at a budget, if it has one. */
export function parkedRunOf(
  runLog: Pick<ChoreRunLog, 'active'>,
  choreId: string,
): (ChoreRunRecord & { taskId: string; parked: { message: string } }) | undefined {
  return runLog.active().find((r) => r.choreId === choreId && r.parked && r.taskId) as
    (ChoreRunRecord & { taskId: string; parked: { message: string } }) | undefined;
}

/**
 * The chore's Resume: continues its parked run's task (the guard then raises the run's limits, as
 * for Continue on the task). Says what it did, or undefined when nothing was parked.
 */
export async function resumeParkedRun(
  runLog: Pick<ChoreRunLog, 'active'>,
  choreId: string,
  continueTask: (taskId: string) => Promise<void>,
): Promise<string | undefined> {
  const run = parkedRunOf(runLog, choreId);
  if (!run) return undefined;
  await continueTask(run.taskId);
  return `Continued its run paused at budget (${run.parked.message}) with another budget of the chore's size.`;
}

/** Lifts a run's park with raised limits; its live side is rebuilt from them at the next guard. */
export function unpark(runLog: ChoreRunLog, live: LiveRuns, run: ChoreRunRecord, chore: ChoreBudget, now: number): void {
  live.take(run.runId);
  runLog.unpark(run.runId, resumedLimits(run, chore, now));
}
