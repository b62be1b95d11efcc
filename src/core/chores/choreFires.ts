/**
 * The fires the runner writes as durable triggers: one from Run now or a workspace event (a file
 * burst, a task end, new problems, a HEAD move), dated now, and the retry of a failed run, armed
 * for after its backoff (failurePolicy.ts decides when). Each carries its dedup key (the chore id
 * and fire time, plus the attempt for a retry), so a crash between writing and claiming never
 * makes a second run. The cron schedule writes its own fires (choreScheduler.ts); the engine
 * claims them all and hands them to the runner.
 */
import type { ChoreFire } from '../engine/triggerPayloads';
import type { Clock, Logger } from '../ports';
import type { TriggerSource, TriggerStore } from '../store/types';
import { summarizeFireContext } from './fireContext';
import type { ChoreFireContext } from './fireContext';
import type { ChoreRunCause, ChoreRunRecord } from './runLog';
import { retryKey } from './runPolicy';
import { fireKey, fireTimeOf } from './schedule';

/** What writing a fire needs (a part of the runner's options). */
export interface FireWriterDeps {
  /** Where fires are recorded: durable triggers the engine claims. */
  triggers: Pick<TriggerStore, 'emit'>;
  clock: Pick<Clock, 'now'>;
  logger: Logger;
}

// Diagnostics and HEAD moves are workspace state changes, like file events.
const sourceOf: Record<ChoreRunCause, TriggerSource> = {
  cron: 'scheduled',
  files: 'file_event',
  task: 'task_event',
  diagnostics: 'file_event',
  git: 'file_event',
  manual: 'scheduled_immediate',
  retry: 'scheduled',
};

/** Records a fire of `choreId` now (Run now, a file burst, a task end); returns its dedup key (chore id + fire time). */
export async function recordFire(
  deps: FireWriterDeps,
  choreId: string,
  cause: Exclude<ChoreRunCause, 'cron' | 'retry'>,
  detailOrContext?: string | ChoreFireContext,
): Promise<string> {
  const now = deps.clock.now();
  const key = fireKey(choreId, now);
  const context = typeof detailOrContext === 'object' ? detailOrContext : undefined;
  const detail = context ? summarizeFireContext(context) : (detailOrContext as string | undefined);
  const payload: ChoreFire = {
    kind: 'chore_fire',
    choreId,
    fireTime: new Date(now).toISOString(),
    missed: false,
    cause,
    fireKey: key,
    ...(detail ? { detail } : {}),
    ...(context ? { context } : {}),
  };
  await deps.triggers.emit({ source: sourceOf[cause], sessionId: `chore:${choreId}`, payload, dedupKey: key });
  deps.logger.info('CHORE', `chore ${choreId}: fire (${cause}${detail ? `: ${detail}` : ''})`);
  return key;
}

/**
 * Records retry `attempt` of the fire `run` stood for, due `delayMs` from now. It keeps the run's
 * fire key and trigger context; its dedup key adds the attempt.
 */
export async function recordRetry(deps: FireWriterDeps, run: ChoreRunRecord, attempt: number, delayMs: number): Promise<void> {
  const payload: ChoreFire = {
    kind: 'chore_fire',
    choreId: run.choreId,
    fireTime: new Date(fireTimeOf(run)).toISOString(),
    missed: false,
    cause: 'retry',
    attempt,
    fireKey: run.fireKey,
    ...(run.context ? { context: run.context } : {}),
  };
  await deps.triggers.emit({
    source: sourceOf.retry,
    sessionId: `chore:${run.choreId}`,
    payload,
    fireAt: deps.clock.now() + delayMs,
    dedupKey: retryKey(run.fireKey, attempt),
  });
}
