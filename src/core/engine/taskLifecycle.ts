/**
 * Creating, ending, pausing and waking tasks. Each task owns a session lane with the same id,
 * its event stream, its continuation triggers and a scratch dir.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { grantableSetsText, taskActionSets } from '../actions/actionSets';
import { taskPrefixText } from '../prompts/requestBuilder';
import { initialLimits, narrowedLimits } from './budgets';
import type { Trigger } from '../store/types';
import type { EngineEnv, TurnClaim } from './engineEnv';
import { USER_PRIORITY, WAIT_REARM_MS } from './engineEnv';
import { newId } from './engineState';
import { emptyTotals } from './records';
import type { TaskChecksVerdict } from '../../shared/taskState';
import type { ChoreLineage, TaskRecord } from './records';
import { contentKey } from './turnEffects';
import type { PauseReason, TaskMode } from './types';
import { describeTokens, totalTokens } from '../model/usage';
import { costText } from '../../shared/costText';

export interface CreateTaskSpec {
  id?: string;
  name: string;
  instruction: string;
  mode: TaskMode;
  skills?: string[];
  actionSets?: string[];
  source: string;
  origin?: Record<string, unknown>;
  /** The chore run it works for (inherited from the task that starts it). */
  chore?: ChoreLineage;
  /** Lower limits asked for by whoever queued it; each is clamped to the configured one (never raised). */
  limits?: { actions?: unknown; tokens?: unknown; cost?: unknown };
  /** The session that started it (gets a "started task" line). */
  fromSessionId?: string;
  /** Messages of the person that arrived in `fromSessionId` while the starting turn ran. */
  arrivedDuring?: number;
}

/** Reply idempotency keys kept per session: enough for any one turn's replies. */
const REPLY_KEYS_KEPT = 20;

export function scratchDirOf(storageDir: string, taskId: string): string {
  return path.join(storageDir, 'scratch', taskId);
}

export async function createTask(env: EngineEnv, spec: CreateTaskSpec): Promise<TaskRecord | undefined> {
  const now = env.clock.now();
  const id = spec.id ?? newId('t-', now);
  // Ids of started tasks derive from the turn and the content (turnEffects): a turn re-delivered
  // after a crash finds its task already there and does not start it twice.
  if (env.state.tasks.has(id) || env.state.sessions.has(id)) {
    env.logger.info('TASK', `start ${id} skipped: this task was already started by an earlier delivery of the same turn`);
    return env.state.tasks.get(id);
  }
  const known = new Map(env.skills().map((s) => [s.name, s]));
  const chosen = (spec.skills ?? []).filter((name) => known.has(name));
  // Exactly the sets it was granted, plus `task` and `read` (reads are automatic, docs/DESIGN.md §6).
  const actionSets = taskActionSets(spec.actionSets ?? []);
  const context = await env.prefixContext();
  // The task record is read by the sidebar, other agents (tasklane_status / tasklane_await), the
  // chat participant and the audit export: it goes through the same redactor as the events.
  const name = env.redact(spec.name);
  const instruction = env.redact(spec.instruction);
  const task: TaskRecord = {
    id,
    sessionId: id,
    name,
    instruction,
    mode: spec.mode,
    status: 'running',
    todos: [],
    actionSets,
    gatedSets: true,
    selectedSkills: chosen,
    source: spec.source,
    ...(spec.origin ? { origin: spec.origin } : {}),
    ...(spec.chore ? { chore: spec.chore } : {}),
    waitingForUser: false,
    paused: false,
    actionCount: 0,
    usage: emptyTotals(),
    limits: narrowedLimits(initialLimits(env.settings()), spec.limits),
    warned: { actions: false, tokens: false, cost: false },
    turns: 0,
    modelErrors: 0,
    prefix: taskPrefixText({
      ...context,
      name,
      instruction,
      mode: spec.mode,
      skills: chosen.map((name) => ({ name, body: known.get(name)?.body ?? '' })),
      actionSets: grantableSetsText(env.grantableSets()),
    }),
    historyFromSeq: 1,
    createdAt: now,
  };
  // The lane is the task's own; the conversation it came from is remembered for the list, which
  // nests the lane under it (a task a task started goes under the first task's conversation).
  const from = spec.fromSessionId && spec.fromSessionId !== id ? env.state.sessions.get(spec.fromSessionId) : undefined;
  const parentId = from ? (from.parentId ?? from.id) : undefined;
  env.state.createSession({ id, name, taskId: id, ...(parentId ? { parentId } : {}) });
  const session = env.state.sessions.get(id);
  if (session) {
    session.status = 'working';
    env.state.saveSession(session);
  }
  env.state.saveTask(task);
  await fs.mkdir(scratchDirOf(env.storageDir, id), { recursive: true });
  await env.state.appendEvent(id, 'task_start', {
    name: task.name,
    instruction: task.instruction,
    mode: task.mode,
    skills: chosen,
    actionSets,
    source: task.source,
  });
  // A chore's instruction is its prompt plus lines written for the model (unattended, how success
  // is judged): the thread opens with the chore's name and trigger instead (both in the name,
  // choreStartSpec.ts); Details keep the instruction (the task_start event).
  const opening = task.source.startsWith('chore:') ? `Chore run started: ${task.name}.` : `Task started (${task.mode}): ${task.instruction}`;
  await env.state.appendMessage(id, 'event', opening);
  if (spec.fromSessionId && spec.fromSessionId !== id) {
    await env.state.appendMessage(spec.fromSessionId, 'event', `Started task “${task.name}” (${task.mode}).`, {
      arrivedDuring: spec.arrivedDuring,
      taskId: id,
    });
  }
  env.logger.info('TASK', `start ${id} “${task.name}” mode=${task.mode} skills=[${chosen.join(', ')}] sets=[${actionSets.join(', ')}] source=${task.source}`);
  await env.triggers.emit({ source: 'task_continuation', sessionId: id, dedupKey: `start:${id}` });
  return task;
}

function setSessionStatus(env: EngineEnv, sessionId: string, status: 'idle' | 'working' | 'waiting' | 'error'): void {
  const session = env.state.sessions.get(sessionId);
  if (session && session.status !== status) {
    session.status = status;
    env.state.saveSession(session);
  }
}

export async function endTask(
  env: EngineEnv,
  task: TaskRecord,
  result: {
    status: 'completed' | 'error' | 'cancelled';
    summary: string;
    output?: Record<string, unknown>;
    checks?: TaskChecksVerdict;
    arrivedDuring?: number;
  },
): Promise<void> {
  const now = env.clock.now();
  task.status = result.status;
  task.endedAt = now;
  task.finalSummary = env.redact(result.summary);
  task.waitingForUser = false;
  task.paused = false;
  delete task.pauseReason;
  delete task.stopAfterStep;
  if (result.output) task.output = result.output;
  if (result.checks) task.checks = result.checks;
  await env.triggers.cancel(task.sessionId);
  env.state.saveTask(task);
  setSessionStatus(env, task.sessionId, 'idle');
  await env.state.appendEvent(task.sessionId, 'task_end', {
    status: result.status,
    summary: result.summary,
    ...(result.output ? { output: result.output } : {}),
  });
  await env.state.appendMessage(
    task.sessionId,
    result.status === 'completed' ? 'assistant' : 'event',
    result.status === 'completed' ? result.summary : `Task ${result.status}: ${result.summary}`,
    { arrivedDuring: result.arrivedDuring },
  );
  await fs.rm(scratchDirOf(env.storageDir, task.id), { recursive: true, force: true });
  await env.taskHistory.append(historyRecord(task, now));
  env.logger.info('TASK', `end ${task.id} status=${result.status} actions=${task.actionCount} tokens=${totalTokens(task.usage)}`);
  // Distil what the task taught into MEMORY.md, at most once an hour.
  await env.triggers.emit({ source: 'memory', sessionId: 'memory', fireAt: now + 60_000, priority: 200, dedupKey: `memory:${Math.floor(now / 3_600_000)}` });
}

function historyRecord(task: TaskRecord, now: number): string {
  const iso = (ms: number) => new Date(ms).toISOString();
  return [
    `## ${task.name} (${task.id})`,
    `- status: ${task.status}`,
    `- mode: ${task.mode}; source: ${task.source}`,
    `- started: ${iso(task.createdAt)}; ended: ${iso(now)}`,
    `- skills: ${task.selectedSkills.join(', ') || 'none'}; action sets: ${task.actionSets.join(', ')}`,
    `- actions: ${task.actionCount}; tokens: ${describeTokens(task.usage)}; cost: ${costText(task.usage.cost, task.usage.costEstimated, 4)}`,
    `- instruction: ${task.instruction.replace(/\s+/g, ' ')}`,
    `- summary: ${(task.finalSummary ?? '').replace(/\s+/g, ' ')}`,
    '',
    '',
  ].join('\n');
}

/** Pauses a task: `text` is English (transcript, log, model); the thread words its row from `data` where given. */
export async function pauseTask(env: EngineEnv, task: TaskRecord, reason: PauseReason, text: string, data: { invalidToolCalls?: string } = {}): Promise<void> {
  task.paused = true;
  task.status = 'paused';
  task.pauseReason = reason;
  // Whatever paused it, a Stop asked for is done: Continue starts afresh.
  delete task.stopAfterStep;
  env.state.saveTask(task);
  setSessionStatus(env, task.sessionId, 'waiting');
  await env.state.appendEvent(task.sessionId, 'pause', { reason, text, ...data, forModel: false });
  // Only a model failure is an error; a budget or a Stop is a notice. The page words `said` (a lane shown alone).
  const said = data.invalidToolCalls !== undefined ? { said: { code: 'invalid_tool_calls' as const, detail: data.invalidToolCalls } } : {};
  await env.state.appendMessage(task.sessionId, reason === 'model_error' ? 'error' : 'event', text, said);
  env.logger.warn('TASK', `pause ${task.id} (${reason}): ${text}`);
}

/** What a task paused by the person's Stop says in its thread (the block shows it as paused). */
export const STOPPED_BY_YOU = 'Stopped by you after its step. Continue resumes it from here; Cancel ends it.';

/**
 * Pauses a task whose Stop was asked for (stepStop.ts): paused `stopped`, its timed wakes settled
 * (Continue queues the next step), durable at once.
 */
export async function pauseAsAsked(env: EngineEnv, task: TaskRecord): Promise<void> {
  await pauseTask(env, task, 'stopped', STOPPED_BY_YOU);
  await settleWaits(env, task);
  await env.state.commit();
}

/** A trigger that only wakes a task (a continuation, a wait, a resume), carrying no input of the person. */
export function isTimerOnly(trigger: Trigger): boolean {
  if (trigger.source !== 'task_continuation' && trigger.source !== 'resume') return false;
  const p = trigger.payload && typeof trigger.payload === 'object' ? (trigger.payload as Record<string, unknown>) : {};
  return typeof p.text !== 'string' && p.wake !== 'reply';
}

/**
 * Wait triggers belong to their task: one at a time. Whatever wakes the task (a reply, an
 * approval, the wait itself) settles the others, so a stale 3 h re-arm cannot run an extra turn
 * or cut a later `wait` short. `keep` is the trigger being delivered now.
 */
export async function settleWaits(env: EngineEnv, task: TaskRecord, keep?: string): Promise<void> {
  const stale = env.triggers.pending(task.sessionId).filter((t) => t.status === 'pending' && t.id !== keep && isTimerOnly(t));
  if (!stale.length) return;
  const ids = new Set(stale.map((t) => t.id));
  await env.triggers.cancel(task.sessionId, (t) => ids.has(t.id));
  env.logger.info('TASK', `${task.id}: settled ${stale.length} superseded wait trigger(s)`);
}

/** Puts the task to sleep until a reply (or approval), re-arming every 3 h with no model call. */
export async function sleepUntilReply(env: EngineEnv, task: TaskRecord): Promise<void> {
  // A Stop asked for during the step that ended in a question or an approval is met: the task
  // takes no step until the person answers, and pausing it too would hide what it asks (the
  // answer, not Continue, is what moves it on).
  if (task.stopAfterStep) {
    delete task.stopAfterStep;
    env.state.saveTask(task);
  }
  setSessionStatus(env, task.sessionId, 'waiting');
  await settleWaits(env, task);
  await env.triggers.emit({
    source: 'task_continuation',
    sessionId: task.sessionId,
    fireAt: env.clock.now() + WAIT_REARM_MS,
    dedupKey: `wait:${task.id}:${task.turns}`,
    payload: { wait: 'reply' },
  });
}

/**
 * Queues the next turn of a task now (or at `fireAt`). The dedup key makes a retried turn harmless.
 * The turn's state and its next trigger are made durable together: the trigger's rows join the
 * journal write of the state's (one write, in order), and the event streams are synced alongside
 * it, instead of one sync after the other (each is a disk round trip of every turn). Called from
 * a turn with its `claim`, the same record acks the turn's trigger: the turn is settled exactly
 * when its continuation is durable, with no second write for the ack.
 */
export async function continueLater(
  env: EngineEnv,
  task: TaskRecord,
  fireAt?: number,
  reason = 'next',
  payload?: Record<string, unknown>,
  claim?: TurnClaim,
): Promise<void> {
  // Every next step of a task is queued here, so the Stop the person asked for is honoured here:
  // the task pauses instead (its claim, if any, is acked by the agent as for any rung).
  if (task.stopAfterStep) {
    await pauseAsAsked(env, task);
    return;
  }
  setSessionStatus(env, task.sessionId, 'working');
  await settleWaits(env, task);
  const next = {
    source: 'task_continuation' as const,
    sessionId: task.sessionId,
    ...(fireAt !== undefined ? { fireAt } : {}),
    ...(payload ? { payload } : {}),
    dedupKey: `cont:${task.id}:${task.turns}:${reason}`,
  };
  await Promise.all([
    claim && !claim.acked
      ? env.triggers.ackAndEmit(claim.token, next).then(({ acked }) => {
          claim.acked = acked;
        })
      : env.triggers.emit(next),
    env.state.commit(),
  ]);
}

/** A user message for a task: into its stream at once, and the task woken. */
export async function injectReply(env: EngineEnv, task: TaskRecord, text: string, note?: string, requestId?: string): Promise<void> {
  noteInput(env, task.sessionId);
  await env.state.appendMessage(task.sessionId, 'user', text, requestId ? { requestId } : {});
  await env.state.appendEvent(task.sessionId, 'user_message', { text: note ? `${note} ${text}` : text });
  const wasWaiting = task.waitingForUser;
  if (task.waitingForUser) {
    task.waitingForUser = false;
    if (task.endApprovalRequested) task.endApproved = true;
  }
  env.state.saveTask(task);
  await env.state.commit();
  env.logger.info('CHAT', `reply routed to task ${task.id}${wasWaiting ? ' (was waiting)' : ''}`);
  if (task.paused) {
    // Continue resumes it; the message is already in its stream. Say so, or it looks ignored.
    await env.state.appendMessage(task.sessionId, 'event', 'This task is paused: it will read your message when you press Continue.');
    return;
  }
  if (env.turns.has(task.sessionId)) {
    // The turn in flight keeps its results; the reply goes to the model right after them
    // (finalize continues instead of sleeping, or react's end-of-turn delivery picks it up).
    env.pendingWake.add(task.sessionId);
    return;
  }
  await wakeTask(env, task);
}

/** Makes a live task run a turn soon: its pending trigger is pulled forward, else a new one is queued. */
export async function wakeTask(env: EngineEnv, task: TaskRecord): Promise<void> {
  if (task.paused) return;
  // A task waiting for an approval still reads the reply now (the card stays live); its wait
  // trigger would only re-arm, so the wake carries the reply.
  if (task.waitingForApproval) {
    await continueLater(env, task, undefined, `woken${env.clock.now()}`, { wake: 'reply' });
    return;
  }
  if (env.triggers.pending(task.sessionId).some((t) => t.status === 'pending')) {
    await env.triggers.pullForward(task.sessionId);
  } else {
    await continueLater(env, task, undefined, `reply${env.clock.now()}`);
  }
}

/** Counts one input of the person in the session (conversation coalescing compares against it). */
export function noteInput(env: EngineEnv, sessionId: string): void {
  const session = env.state.sessions.get(sessionId);
  if (!session) return;
  session.inputs = (session.inputs ?? 0) + 1;
  env.state.saveSession(session);
}

/**
 * Input that arrived during a turn and was not consumed by its finalize (it landed after the
 * check, or the turn ended the task): a live task is woken, an ended task's session gets a
 * conversation turn that answers it. Never dropped.
 */
export async function deliverLateInput(env: EngineEnv, sessionId: string): Promise<void> {
  if (!env.pendingWake.delete(sessionId)) return;
  const task = env.state.taskOf(sessionId);
  if (task) {
    await wakeTask(env, task);
    return;
  }
  if (!env.state.sessions.has(sessionId)) return;
  env.logger.info('CHAT', `${sessionId}: a reply arrived while its task ended; a conversation turn answers it`);
  await env.triggers.emit({ source: 'user_message', sessionId, priority: USER_PRIORITY, payload: { wake: 'reply' } });
}

/**
 * Posts an assistant line once per content key (the turn's trigger + the text): a turn
 * re-delivered after a crash cannot post the same reply twice.
 */
export async function postReply(env: EngineEnv, sessionId: string, keyBase: string | undefined, text: string, arrivedDuring?: number): Promise<void> {
  const key = keyBase ? contentKey(keyBase, sessionId, text) : undefined;
  const session = env.state.sessions.get(sessionId);
  if (key && session?.replyKeys?.includes(key)) {
    env.logger.info('CHAT', `${sessionId}: reply skipped, the same turn already posted it before a restart`);
    return;
  }
  // The line first, then its key (saved with the session row, durable with the same commit): a
  // crash between them can repeat a reply, never lose one.
  await env.state.appendMessage(sessionId, 'assistant', text, { arrivedDuring });
  if (key && session) {
    session.replyKeys = [...(session.replyKeys ?? []), key].slice(-REPLY_KEYS_KEPT);
    env.state.saveSession(session);
  }
}
