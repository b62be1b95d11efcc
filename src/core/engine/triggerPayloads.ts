/**
 * The payloads triggers carry, as zod schemas: the one home of the contracts between whoever
 * emits a trigger (the agent, the task lifecycle, the approval flows, the chore scheduler and
 * runner, the store's restart notice) and react(), which reads them. react() parses a claimed
 * trigger's payload here before choosing what to run (readPayload). A payload that does not fit
 * is a bug or a damaged row that retrying cannot fix, so it is dead-lettered at once with a
 * message naming the field (InvalidTriggerPayload, `nack(..., { final: true })` in agent.ts),
 * never cast and half-used.
 *
 * Every field that exists today is declared; objects are strict about their known fields and
 * drop unknown ones, except the proactive prompt payload, which is open on purpose (its other
 * fields come back on the task's `origin`).
 *
 * This module imports no engine module, so the engine (react, taskHooks) and the modules around
 * it (chores, approvals) can all depend on it without a cycle.
 */
import * as z from 'zod/v4';
import type { ChoreFireContext } from '../chores/fireContext';
import type { Trigger } from '../store/types';

/** The marker of a wake that carries no text: "the person answered (look at the stream)". */
const wakeReply = z.literal('reply', { error: 'wake must be "reply"' });

/**
 * user_message: a message of the person (`text`; `route` when the router model decides where it
 * belongs; `retry` when Retry re-queued it after a failed turn), or a wake of a task whose reply
 * is already in its stream (`wake: 'reply'`, no text).
 */
export const userMessagePayloadSchema = z
  .object({
    text: z.string({ error: 'text must be a string' }).optional(),
    route: z.boolean({ error: 'route must be true or false' }).optional(),
    retry: z.boolean({ error: 'retry must be true or false' }).optional(),
    wake: wakeReply.optional(),
    /** The sender's request id: the turn writes the person's line under it if the send could not (engine/sendPath.ts). */
    requestId: z.string({ error: 'requestId must be a string' }).optional(),
    /** Tasks of this conversation waiting for the person's answer: the router picks among them (or none). */
    answerAmong: z.array(z.string(), { error: 'answerAmong must be a list of task ids' }).optional(),
  })
  .refine((p) => p.text !== undefined || p.wake !== undefined, { error: 'text must be a string (or wake must be "reply")', path: ['text'] });
export type UserMessagePayload = z.infer<typeof userMessagePayloadSchema>;

/** approval: a decision on a change set or a command (edits, commands, MCP calls); wakes the task waiting for it. */
export const approvalPayloadSchema = z.object({
  approvalId: z.string({ error: 'approvalId must be a string' }).min(1, { error: 'approvalId must not be empty' }),
  decision: z.enum(['approved', 'rejected'], { error: 'decision must be approved or rejected' }),
  note: z.string({ error: 'note must be a string' }).optional(),
  /** A change set gone stale: the files that changed on disk, which the thread words (the note is English). */
  stale: z
    .array(z.object({ path: z.string(), change: z.enum(['modified', 'created', 'deleted']) }), { error: 'stale must be a list of changed files' })
    .optional(),
});
export type ApprovalPayload = z.infer<typeof approvalPayloadSchema>;

/**
 * How a decision reaches the waiting task: a line of its conversation with the model. One place,
 * because a scripted model (the demo `npm start` plays) reads the decision back from it.
 */
export function approvalMessage(payload: ApprovalPayload): string {
  return `Approval ${payload.approvalId}: ${payload.decision}${payload.note ? ` (${payload.note})` : ''}`;
}

/**
 * task_continuation and resume: nothing (the next turn), a wait for the person's reply
 * (`wait: 'reply'`, re-armed every 3 h), or a wake after a reply arrived (`wake: 'reply'`).
 */
export const continuationPayloadSchema = z
  .object({
    wait: z.literal('reply', { error: 'wait must be "reply"' }).optional(),
    wake: wakeReply.optional(),
    text: z.string({ error: 'text must be a string' }).optional(),
  })
  .nullish();
export type ContinuationPayload = z.infer<typeof continuationPayloadSchema>;

/**
 * A proactive trigger that says what to start (a resolved chore fire, an emitter with a prompt):
 * a task in a session of its own. Open: other fields come back on the task's `origin`.
 */
export const proactivePayloadSchema = z.looseObject({
  prompt: z.string({ error: 'prompt must be a string' }).refine((p) => p.trim().length > 0, { error: 'prompt must not be empty' }),
  name: z.string({ error: 'name must be a string' }).optional(),
  mode: z.enum(['simple', 'complex'], { error: 'mode must be simple or complex' }).optional(),
  /** Exactly the sets the task gets, plus task and read (actions/actionSets.ts). */
  actionSets: z.array(z.string(), { error: 'actionSets must be a list of names' }).optional(),
  skills: z.array(z.string(), { error: 'skills must be a list of names' }).optional(),
  choreId: z.string().optional(),
  runId: z.string().optional(),
  /**
   * Budget the emitter asks for (another VS Code agent through `tasklane_start_task`, the
   * `@tasklane` participant). It can only lower the person's per-task limits, never raise them
   * (`narrowedLimits`): the caller is not the person who set them. Loose: a nonsense value is
   * ignored there rather than failing the whole trigger.
   */
  limits: z.object({ actions: z.unknown().optional(), tokens: z.unknown().optional(), cost: z.unknown().optional() }).optional(),
});
export type ProactivePayload = z.infer<typeof proactivePayloadSchema>;

/** Why a chore fired. */
export const CHORE_RUN_CAUSES = ['cron', 'files', 'task', 'diagnostics', 'git', 'manual', 'retry'] as const;
export type ChoreRunCause = (typeof CHORE_RUN_CAUSES)[number];

const fireContextSchema = z.custom<ChoreFireContext>((v) => typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string', {
  error: 'context must be an object with a kind',
});

/**
 * A chore fire (the scheduler's cron fire, a files/task/diagnostics/git trigger, Run now, a
 * retry). It carries no prompt: the runner decides at claim time what, if anything, starts
 * (TaskHooks.resolveProactive).
 */
export const choreFireSchema = z.object({
  kind: z.literal('chore_fire'),
  choreId: z.string({ error: 'choreId must be a string' }).min(1, { error: 'choreId must not be empty' }),
  /** The time this fire stands for (ISO), also the tail of its dedup key. */
  fireTime: z.string({ error: 'fireTime must be a string' }).refine((t) => !Number.isNaN(Date.parse(t)), { error: 'fireTime must be an ISO date' }),
  /** True when the fire was missed (editor closed or asleep) and is run by the drift policy. */
  missed: z.boolean({ error: 'missed must be true or false' }),
  /** Default `cron`. */
  cause: z.enum(CHORE_RUN_CAUSES, { error: `cause must be one of ${CHORE_RUN_CAUSES.join(', ')}` }).optional(),
  /** 0 for the fire itself, n for its n-th retry. */
  attempt: z.number({ error: 'attempt must be a number' }).int().min(0).optional(),
  /** The original fire's key (retries keep it, so the run history groups them). */
  fireKey: z.string({ error: 'fireKey must be a string' }).optional(),
  /** What caused a files/task fire, for the log ("3 files changed", "build exited 2"). */
  detail: z.string({ error: 'detail must be a string' }).optional(),
  /** What caused the fire, told to the model in the run's first message (chores/fireContext.ts). */
  context: fireContextSchema.optional(),
});
export type ChoreFire = z.infer<typeof choreFireSchema>;

/** What the scheduler itself puts in a cron fire (the runner's causes add the rest). */
export type ChoreFirePayload = Pick<ChoreFire, 'kind' | 'choreId' | 'fireTime' | 'missed'>;

/** Sources whose trigger starts a task of its own (react's proactive rung). */
export const PROACTIVE_SOURCES: ReadonlySet<string> = new Set(['scheduled', 'scheduled_once', 'scheduled_immediate', 'proactive', 'file_event', 'task_event']);

/** A claimed trigger's payload, parsed for the rung that reads it. */
export type TriggerPayload =
  | { kind: 'user_message'; payload: UserMessagePayload }
  | { kind: 'approval'; payload: ApprovalPayload }
  | { kind: 'continuation'; payload: ContinuationPayload }
  | { kind: 'proactive'; payload: ProactivePayload }
  | { kind: 'chore_fire'; payload: ChoreFire }
  /** restart_notice, memory: the engine reads nothing from the payload. */
  | { kind: 'none' };

/** A task id derived from the trigger, so a retried proactive trigger cannot start a second task. */
export function proactiveTaskId(trigger: Pick<Trigger, 'id'>): string {
  return `t-${trigger.id.replace(/[^A-Za-z0-9_.-]/g, '')}`;
}

/** A payload that does not fit its source's schema; the agent dead-letters the trigger at once. */
export class InvalidTriggerPayload extends Error {
  override readonly name = 'InvalidTriggerPayload';
}

function parse<T>(trigger: Trigger, schema: z.ZodType<T>, what: string): T {
  const parsed = schema.safeParse(trigger.payload);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'payload'}: ${issue.message}`).join('; ');
  throw new InvalidTriggerPayload(
    `${trigger.source} trigger ${trigger.id} has an invalid ${what} payload (${problems.slice(0, 300)}); it was set aside without running. Whoever emitted it must send a valid payload.`,
  );
}

/** The chore fire a trigger carries; throws InvalidTriggerPayload when it is not a valid one. */
export function readChoreFire(trigger: Trigger): ChoreFire {
  return parse(trigger, choreFireSchema, 'chore fire');
}

/** Parses the payload of a claimed trigger by its source; throws InvalidTriggerPayload when it does not fit. */
export function readPayload(trigger: Trigger): TriggerPayload {
  switch (trigger.source) {
    case 'user_message':
      return { kind: 'user_message', payload: parse(trigger, userMessagePayloadSchema, 'user message') };
    case 'approval':
      return { kind: 'approval', payload: parse(trigger, approvalPayloadSchema, 'approval') };
    case 'task_continuation':
    case 'resume':
      return { kind: 'continuation', payload: parse(trigger, continuationPayloadSchema, 'continuation') };
    case 'restart_notice':
    case 'memory':
      return { kind: 'none' };
    default: {
      if (!PROACTIVE_SOURCES.has(trigger.source)) return { kind: 'none' };
      const marked = trigger.payload !== null && typeof trigger.payload === 'object' && (trigger.payload as { kind?: unknown }).kind === 'chore_fire';
      if (marked) return { kind: 'chore_fire', payload: readChoreFire(trigger) };
      return { kind: 'proactive', payload: parse(trigger, proactivePayloadSchema, 'proactive (prompt)') };
    }
  }
}
