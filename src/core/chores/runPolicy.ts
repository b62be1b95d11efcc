/**
 * The decisions of a chore run, pure so they are tested alone: how a run ended and what status
 * that gives it, what onFailure does next (retry with exponential backoff, escalate, stay silent),
 * and what a fire does while another run of its chore is active. The runner (choreRunner.ts)
 * observes and asks; failurePolicy.ts carries out the failure action.
 */
import type { TaskView } from '../engine/types';
import type { SuccessVerdict } from './expressions';
import type { BudgetLimit } from './runBudget';
import type { ChoreDefinition, ConcurrencyPolicy } from './types';

/**
 * Status of an occurrence in a chore's history. `skipped` is a fire that was not run on purpose
 * (concurrency, queue limit, disabled, paused, untrusted, drift: skip); `missed` is a scheduled
 * occurrence that passed while VS Code was closed and the drift policy does not replay.
 * `checks_failed`: the chore's `verify:` checks still failed after its rounds; `nothing_to_change`:
 * a chore with checks ended well without changing a file, so there was nothing to check.
 */
export const CHORE_RUN_STATUSES = [
  'running',
  'succeeded',
  'failed',
  'checks_failed',
  'nothing_to_change',
  'budget_exhausted',
  'awaiting_review',
  'cancelled',
  'skipped',
  'missed',
] as const;
export type ChoreRunStatus = (typeof CHORE_RUN_STATUSES)[number];

/** How a run's last turn ended, as the runner observed it. */
export type RunEnding =
  /** The agent called task_end; `verdict` is undefined when the chore has no successWhen. */
  | { kind: 'task_end'; verdict?: SuccessVerdict; verified?: string }
  | { kind: 'error'; message: string }
  | { kind: 'budget_exhausted'; limit: BudgetLimit; message: string }
  /** An approval (edit, command) was still pending when maxSeconds ran out. */
  | { kind: 'approval_timeout'; pendingApprovals: number }
  | { kind: 'cancelled'; reason: string }
  /** The chore's checks (`verify:`) still failed after its last round; `failed` says which and how. */
  | { kind: 'checks_failed'; failed: string }
  /** A chore with checks ended well and changed no file: nothing was checked, nothing is proposed. */
  | { kind: 'nothing_to_change' }
  /** The agent's output gave up (`status: needs_human`, turnEndings.ts): failed, never retried. */
  | { kind: 'gave_up'; answer: string; cause?: string };

/**
 * How a chore task that stopped ended, before any success condition is judged: the guard stopped
 * it (`stopped`), it paused (the extension's per-task budget, or the model failing repeatedly),
 * it was cancelled or it failed. Undefined for a task that completed: its verdict decides.
 */
export function stoppedTaskEnding(
  task: Pick<TaskView, 'status' | 'paused' | 'pauseReason' | 'finalSummary'>,
  stopped: { exhausted: BudgetLimit; message: string } | undefined,
): RunEnding | undefined {
  if (stopped) return { kind: 'budget_exhausted', limit: stopped.exhausted, message: stopped.message };
  if (task.paused)
    return task.pauseReason === 'budget'
      ? { kind: 'budget_exhausted', limit: 'iterations', message: "the task reached the extension's per-task budget (tasklane.budget.*)" }
      : task.pauseReason === 'stopped'
        ? { kind: 'cancelled', reason: 'stopped by you (Stop)' }
        : { kind: 'error', message: 'the model failed repeatedly; the task was stopped (see the log)' };
  if (task.status === 'cancelled') return { kind: 'cancelled', reason: task.finalSummary ?? 'cancelled' };
  if (task.status === 'error') return { kind: 'error', message: task.finalSummary ?? 'the task ended with an error' };
  return undefined;
}

export type OutcomeDecision =
  /** Give the agent one more turn with `message` (successWhen was falsy and iterations remain). */
  { kind: 'continue'; message: string } | { kind: 'end'; status: Exclude<ChoreRunStatus, 'running' | 'skipped' | 'missed'>; reason?: string };

/**
 * Decides how a run ends. A falsy successWhen is not a failure while iterations remain: the agent
 * gets another turn with the reason, so a near miss can be fixed instead of escalated.
 */
export function decideRunOutcome(ending: RunEnding, iterationsLeft: number): OutcomeDecision {
  switch (ending.kind) {
    case 'task_end': {
      const verdict = ending.verdict;
      // A run its checks verified says so (which checks, how long) wherever its reason is shown.
      if (!verdict || verdict.result === 'true') return { kind: 'end', status: 'succeeded', ...(ending.verified ? { reason: ending.verified } : {}) };
      if (verdict.result === 'error') return { kind: 'end', status: 'failed', reason: verdict.reason };
      if (iterationsLeft > 0) {
        return {
          kind: 'continue',
          message: `Your output does not meet this chore's success condition: ${verdict.reason}. Check what is missing, finish the work, and call task_end again with an output that satisfies it.`,
        };
      }
      return { kind: 'end', status: 'failed', reason: verdict.reason };
    }
    case 'error':
      return { kind: 'end', status: 'failed', reason: ending.message };
    case 'budget_exhausted':
      return { kind: 'end', status: 'budget_exhausted', reason: ending.message };
    case 'approval_timeout':
      return {
        kind: 'end',
        status: 'awaiting_review',
        reason: `${ending.pendingApprovals} approval(s) were not given within the run's maxSeconds; the proposals wait in the review inbox`,
      };
    case 'cancelled':
      return { kind: 'end', status: 'cancelled', reason: ending.reason };
    case 'checks_failed':
      return { kind: 'end', status: 'checks_failed', reason: ending.failed };
    case 'nothing_to_change':
      return { kind: 'end', status: 'nothing_to_change', reason: 'the run changed no file, so its checks did not run' };
    case 'gave_up':
      return { kind: 'end', status: 'failed', reason: `the agent answered ${ending.answer}${ending.cause ? `: ${ending.cause}` : ''}; a person needs to act` };
  }
}

export type FailureAction = { kind: 'none' } | { kind: 'retry'; attempt: number; delayMs: number } | { kind: 'escalate' } | { kind: 'silent' };

/**
 * What to do after a run ended with `status`. `attempt` is 0 for the first run of a fire, 1 for its
 * first retry, and so on. Retries back off exponentially from retryDelaySeconds. A budget
 * exhaustion is not retried (the next attempt would hit the same wall), and when retries run out
 * the failure is escalated if there is a channel, so a retrying chore never fails quietly forever.
 * A run that is not `retryable` (the agent said a person must act) goes straight to that fallback.
 */
export function decideFailureAction(
  chore: Pick<ChoreDefinition, 'onFailure' | 'maxRetries' | 'retryDelaySeconds' | 'escalate'>,
  status: ChoreRunStatus,
  attempt: number,
  retryable = true,
): FailureAction {
  if (status === 'succeeded' || status === 'nothing_to_change' || status === 'cancelled' || status === 'running' || status === 'skipped' || status === 'missed')
    return { kind: 'none' };
  const fallback: FailureAction = chore.escalate ? { kind: 'escalate' } : { kind: 'silent' };
  switch (chore.onFailure) {
    case 'silent':
      return { kind: 'silent' };
    case 'escalate':
      return { kind: 'escalate' };
    case 'retry':
      // A fresh attempt may fix what the rounds of checks did not: checks_failed retries like failed.
      if ((status === 'failed' || status === 'checks_failed') && retryable && attempt < chore.maxRetries) {
        return { kind: 'retry', attempt: attempt + 1, delayMs: chore.retryDelaySeconds * 1000 * 2 ** attempt };
      }
      // awaiting_review is not retried either: the proposals already wait for a person.
      return fallback;
  }
}

/** Dedup key of a retry of a fire, so a crash while scheduling the retry cannot make two. */
export function retryKey(fireKey: string, attempt: number): string {
  return `${fireKey}:retry${attempt}`;
}

export type ConcurrencyDecision =
  | { kind: 'start' }
  /** Policy `skip`: record the fire as skipped and do not run it. */
  | { kind: 'skip'; reason: string }
  /** Policy `queue`: re-arm the fire's trigger for `recheckAt` (or wake it when the active run ends). */
  | { kind: 'wait'; recheckAt: number }
  /** Policy `queue`, but the fire waited longer than queueMaxWaitSeconds: record it as skipped. */
  | { kind: 'drop'; reason: string }
  /** Policy `replace`: cancel the active run, then start this one. */
  | { kind: 'replace'; cancelRunId: string };

/**
 * What to do with a fire when it is claimed. Stateless on purpose: a queued fire is just its
 * durable trigger re-armed, so the queue survives a reload like every other trigger.
 */
export function decideConcurrency(
  chore: { concurrency: ConcurrencyPolicy; queueMaxWaitSeconds: number },
  activeRun: { runId: string } | undefined,
  fire: { firedAt: number },
  now: number,
  recheckMs = 5_000,
): ConcurrencyDecision {
  if (!activeRun) return { kind: 'start' };
  switch (chore.concurrency) {
    case 'skip':
      return { kind: 'skip', reason: `run ${activeRun.runId} was still active (concurrency: skip)` };
    case 'replace':
      return { kind: 'replace', cancelRunId: activeRun.runId };
    case 'queue': {
      const deadline = fire.firedAt + chore.queueMaxWaitSeconds * 1000;
      if (now >= deadline)
        return {
          kind: 'drop',
          reason: `waited ${Math.round((now - fire.firedAt) / 1000)} s for run ${activeRun.runId} to end (queueMaxWaitSeconds: ${chore.queueMaxWaitSeconds})`,
        };
      return { kind: 'wait', recheckAt: Math.min(now + recheckMs, deadline) };
    }
  }
}
