/**
 * A chore run's `verify:` checks at task_end (issue 43: done means checked). The runner asks
 * {@link judgeRunChecks} once the run's output is accepted (successWhen met, or none declared):
 *  - a task that changed no file has nothing to check: the run ends `nothing_to_change`;
 *  - otherwise each check runs in order through the sealed command runner (the chore's consent
 *    covers them, as it covers `commands:`); each is a step of the run's trace, the round is
 *    recorded on the run durably (a reload resumes the count), and
 *  - a failure while rounds remain goes back to the model with the tail of its output; after the
 *    last round the run ends `checks_failed` saying which check failed and how.
 * Stop and Cancel abort the turn's signal, which kills the check running (no round is spent).
 */
import { checksFailedMessage, describeFailure, failedCheck, maxCheckMs, recordedChecks, runChecks } from '../checks/checkRun';
import { VERIFIED_REASON } from '../../shared/choreChartModel';
import type { TaskEventRecorder } from '../engine/taskHooks';
import type { CheckCommand, CheckResult } from '../checks/checkRun';
import type { Logger } from '../ports';
import type { SuccessVerdict } from './expressions';
import type { RunEnding } from './runPolicy';
import type { ChoreRunLog, ChoreRunRecord } from './runLog';
import type { ChoreDefinition } from './types';

/** What running a chore's checks needs from the engine (createEngine wires it). */
export interface ChoreChecksPort {
  /** The sealed runner the chore's `commands:` use: no shell, scrubbed environment, bounded output. */
  run: CheckCommand;
  /** Whether the task has changed a file (a change set of it that is not rejected or reverted). */
  changedFiles(taskId: string): Promise<boolean>;
}

/** How a run's checks judged its task_end. */
export type ChecksVerdict =
  /** Every check exited 0: the run is verified (`results` say which and how long). */
  | { kind: 'verified'; results: CheckResult[] }
  /** The task changed no file: nothing was run. */
  | { kind: 'nothing' }
  /** A check failed and a round remains: the task goes on told `message`. */
  | { kind: 'retry'; message: string }
  /** A check failed in the last round: the run ends `checks_failed` with `reason`. */
  | { kind: 'failed'; reason: string }
  /** Stop or Cancel ended the round: nothing is decided (the task is stopped). */
  | { kind: 'stopped' };

/**
 * Runs the checks of `chore` for the task of `run`. Undefined when the chore declares none (the
 * run is "not checked" and ends on successWhen alone).
 */
export async function judgeRunChecks(
  deps: { checks?: ChoreChecksPort; runLog: ChoreRunLog; logger: Logger },
  chore: ChoreDefinition,
  run: ChoreRunRecord,
  taskId: string,
  signal?: AbortSignal,
  record?: TaskEventRecorder,
): Promise<ChecksVerdict | undefined> {
  if (!chore.verify?.length) return undefined;
  const rounds = chore.verifyRounds ?? 1;
  if (!deps.checks)
    return {
      kind: 'failed',
      reason: "this host cannot run commands, so the chore's verify: checks could not run; run it where commands run (VS Code or the command line)",
    };
  if (!(await deps.checks.changedFiles(taskId))) return { kind: 'nothing' };
  const round = (run.checkRounds ?? 0) + 1;
  const steps = new Map<string, number>();
  // The run's steps (its record) and the task's rows in the thread, like an interactive task's.
  const shown = recordedChecks((command, options) => deps.checks!.run(command, options), { record, round, taskId });
  const traced: CheckCommand = async (command, options) => {
    steps.set(command, deps.runLog.stepStarted(run.runId, 'check', command));
    return shown(command, options);
  };
  const results = await runChecks(chore.verify, traced, {
    // The run's own deadline (maxSeconds) cancels the task, which aborts `signal`: this cap is for a
    // check that hangs in a long-budget run.
    timeoutMs: Math.min(maxCheckMs, chore.budget.maxSeconds * 1000),
    ...(signal ? { signal } : {}),
  });
  for (const r of results) {
    const step = steps.get(r.command);
    if (step !== undefined) deps.runLog.stepEnded(run.runId, step, r.ok ? 'ok' : 'error', checkStepText(r));
  }
  if (signal?.aborted) return { kind: 'stopped' };
  await deps.runLog.recordChecks(run.runId, results, round);
  const failed = failedCheck(results);
  if (!failed) {
    deps.logger.info('CHORE', `run ${run.runId}: checks passed in round ${round} (${results.map((r) => r.command).join(', ')})`);
    return { kind: 'verified', results };
  }
  deps.logger.info('CHORE', `run ${run.runId}: round ${round} of ${rounds}: ${describeFailure(failed)}`);
  if (round < rounds) return { kind: 'retry', message: checksFailedMessage(failed, round, rounds) };
  return { kind: 'failed', reason: checksFailedReason(failed, rounds) };
}

/**
 * How a run whose task completed ends, checks included: the checks failed (this run's verdict, or
 * the record's after a reload) → `checks_failed`; a chore with checks whose task changed nothing
 * and whose output is accepted → `nothing_to_change`; otherwise successWhen's verdict decides.
 */
export function checkedEnding(checked: ChecksVerdict | undefined, recordedFailure: string | undefined, verdict: SuccessVerdict | undefined): RunEnding {
  if (checked?.kind === 'failed') return { kind: 'checks_failed', failed: checked.reason };
  if (!checked && recordedFailure) return { kind: 'checks_failed', failed: recordedFailure };
  if (checked?.kind === 'nothing' && (!verdict || verdict.result === 'true')) return { kind: 'nothing_to_change' };
  const verified =
    checked?.kind === 'verified'
      ? `${VERIFIED_REASON}${checked.results.map((r) => `\`${r.command}\` (${(r.durationMs / 1000).toFixed(1)} s)`).join(', ')}`
      : undefined;
  return { kind: 'task_end', ...(verdict ? { verdict } : {}), ...(verified ? { verified } : {}) };
}

/** Why a run ended `checks_failed`, from its record (after a reload the live verdict is gone). */
export function recordedChecksFailure(chore: ChoreDefinition | undefined, run: ChoreRunRecord): string | undefined {
  if (!chore?.verify?.length || !run.verify) return undefined;
  const failed = failedCheck(run.verify);
  return failed && (run.checkRounds ?? 0) >= (chore.verifyRounds ?? 1) ? checksFailedReason(failed, chore.verifyRounds ?? 1) : undefined;
}

function checksFailedReason(failed: CheckResult, rounds: number): string {
  const last = failed.tail
    .split('\n')
    .filter((l) => l.trim())
    .pop();
  return `${describeFailure(failed)} after ${rounds} round${rounds === 1 ? '' : 's'} of checks${last ? `: ${last.trim().slice(0, 200)}` : ''}`;
}

/** A check's row in the run's trace: "exit 0 · 1.2 s", or the failure and the end of its output. */
function checkStepText(r: CheckResult): string {
  const took = `${(r.durationMs / 1000).toFixed(1)} s`;
  return r.ok ? `exit 0 · ${took}` : `${r.problem ?? `exit ${r.exitCode}`} · ${took}\n${r.tail}`;
}
