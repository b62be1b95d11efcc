/**
 * Carrying out a chore's failure policy once one of its runs has ended. What to do is decided by
 * `decideFailureAction` in runPolicy.ts (pure: retry with exponential backoff, escalate, stay
 * silent, or nothing for a success); this module does it. A retry becomes a durable fire of the
 * same fire key, armed for after its backoff and deduplicated per attempt (choreFires.ts), so a
 * crash while scheduling it cannot make two; an escalation goes to the chore's channels with the
 * ledger intent first. It lives apart from the runner, which only says when a run ended.
 */
import { recordRetry } from './choreFires';
import type { FireWriterDeps } from './choreFires';
import { buildEscalationPayload } from './escalationPayload';
import { channelsOf, sendRunEscalation, withRunLink } from './runEscalation';
import type { RunNoticeDeps } from './runEscalation';
import type { ChoreRunRecord } from './runLog';
import { decideFailureAction } from './runPolicy';
import type { ChoreDefinition } from './types';

/** What carrying out the failure policy needs (a part of the runner's options): writing the retry, sending the escalation. */
export interface FailurePolicyDeps extends FireWriterDeps, RunNoticeDeps {}

/** Follows `chore`'s onFailure for `run`, which just ended: schedules its retry, escalates it, or logs that it stays silent. */
export async function applyFailurePolicy(deps: FailurePolicyDeps, chore: ChoreDefinition, run: ChoreRunRecord, retryable = true): Promise<void> {
  const action = decideFailureAction(chore, run.status, run.attempt, retryable);
  if (action.kind === 'retry') {
    await recordRetry(deps, run, action.attempt, action.delayMs);
    deps.logger.info('CHORE', `run ${run.runId}: retry ${action.attempt} in ${Math.round(action.delayMs / 1000)} s`);
  } else if (action.kind === 'escalate') {
    await escalateFailure(deps, chore, run);
  } else if (action.kind === 'silent') {
    deps.logger.info('CHORE', `run ${run.runId} ended ${run.status}; onFailure is silent`);
  }
}

/** Tells the chore's channels (if it has any) how the run ended. */
async function escalateFailure(deps: FailurePolicyDeps, chore: ChoreDefinition, run: ChoreRunRecord): Promise<void> {
  const channels = channelsOf(deps, chore);
  if (!channels) {
    deps.logger.warn(
      'CHORE',
      `run ${run.runId} of ${chore.id} ended ${run.status}; it escalates, but names no channel and there is no default (tasklane.chores.escalate)`,
    );
    return;
  }
  const payload = await withRunLink(deps, buildEscalationPayload(chore, run, deps.workspaceName, deps.redact));
  const results = await sendRunEscalation(deps, channels, payload, 'chore_escalation', { choreId: chore.id, runId: run.runId });
  deps.onEscalated?.(run, results);
}
