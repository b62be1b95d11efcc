import { sendEscalation } from './escalation';
import type { EscalationChannel, EscalationResult, SecretPort } from './escalation';
import type { EscalationPayload } from './escalationPayload';
import type { Logger } from '../ports';
import type { ChoreRunRecord } from './runLog';
import type { EscalationChannels } from './types';

/** The irreversible-action ledger (escalations are recorded before they are sent). */
export interface ChoreLedgerPort {
  intent(taskId: string, action: string, input: unknown): Promise<string>;
  outcome(id: string, status: 'done' | 'failed', outcome: unknown): Promise<void>;
}

/** What sending a run's escalation needs (a part of the runner's options). */
export interface RunEscalationDeps {
  secrets: SecretPort;
  logger: Logger;
  ledger?: ChoreLedgerPort;
  escalationTimeoutMs?: number;
}

/**
 * What telling a person about a run needs (a failure escalation, failurePolicy.ts; a review
 * notice, reviewNotice.ts): sending it, and what its payload may show.
 */
export interface RunNoticeDeps extends RunEscalationDeps {
  /** Workspace folder name for escalations. */
  workspaceName?: string;
  /** Applied to escalation payloads (security/redact.ts); default: credential shapes. */
  redact?: (text: string) => string;
  /** Told after each escalation (tests, the log). */
  onEscalated?: (run: ChoreRunRecord, results: EscalationResult[]) => void;
  /**
   * A link that opens the run where it ran: VS Code's `vscode://tasklane.tasklane/run?id=…` (the
   * host's URI handler shows its trace), the Actions run page on CI. Every escalation carries it.
   */
  runLink?: (runId: string) => Promise<string | undefined>;
  /**
   * The person's default channel (VS Code's `tasklane.chores.escalate`), for a chore whose
   * onFailure is escalate but that names no `escalate:` of its own; the chore's own always wins.
   */
  defaultEscalation?: () => EscalationChannels | undefined;
}

/** Where `chore`'s escalations go: its own channels, else the person's default, else nowhere. */
export function channelsOf(deps: RunNoticeDeps, chore: { escalate?: EscalationChannels }): EscalationChannels | undefined {
  return chore.escalate ?? deps.defaultEscalation?.();
}

/** `payload` with the run's link, when the host has one (a failure to make it loses only the link). */
export async function withRunLink(deps: RunNoticeDeps, payload: EscalationPayload): Promise<EscalationPayload> {
  const link = await deps.runLink?.(payload.runId).catch(() => undefined);
  return link ? { ...payload, runLink: link } : payload;
}

/**
 * Sends one escalation of a run (a failure, a review it waits for, a pause at its budget) to the
 * chore's channels.
 * Sending is irreversible: the intent is durable first, so a crash mid-send is reported, not
 * replayed; the outcome per channel is recorded after.
 */
export async function sendRunEscalation(
  deps: RunEscalationDeps,
  channels: EscalationChannels,
  payload: EscalationPayload,
  action: 'chore_escalation' | 'chore_review_notice' | 'chore_budget_notice',
  input: Record<string, unknown>,
): Promise<EscalationResult[]> {
  const intent = await deps.ledger?.intent(payload.runId, action, { ...input, channels: Object.keys(channels) });
  const results = await sendEscalation(channels, payload, {
    secrets: deps.secrets,
    logger: deps.logger,
    ...(deps.escalationTimeoutMs ? { timeoutMs: deps.escalationTimeoutMs } : {}),
  });
  if (intent)
    await deps.ledger?.outcome(
      intent,
      results.every((r) => r.ok) ? 'done' : 'failed',
      results.map((r) => ({ channel: r.channel, ok: r.ok, ...(r.error ? { error: r.error.message } : {}) })),
    );
  return results;
}

/**
 * Tells the chore's channels that `run` waits for a person (a review, a pause at budget): sends
 * the notice through the ledger, logs who was told (`waits` says for what) and reports it.
 */
export async function sendWaitingNotice(
  deps: RunNoticeDeps,
  run: ChoreRunRecord,
  channels: EscalationChannels,
  payload: EscalationPayload,
  action: 'chore_review_notice' | 'chore_budget_notice',
  input: Record<string, unknown>,
  waits: string,
): Promise<void> {
  const results = await sendRunEscalation(deps, channels, payload, action, input);
  const told: EscalationChannel[] = results.filter((r) => r.ok).map((r) => r.channel);
  deps.logger.info('CHORE', `run ${run.runId} of ${payload.chore.id} ${waits}; told ${told.join(', ') || 'no channel'}`);
  deps.onEscalated?.(run, results);
}
