/**
 * How a message the person sends becomes durable work (docs/ARCHITECTURE.md "A chat message, end
 * to end"). The promise is: once `sendMessage` resolves the message is answered exactly once,
 * whatever crashes; when it rejects, sending it again with the same request id is still answered
 * exactly once (the first try may have been written after all: a full disk keeps the batch and
 * writes it when space returns).
 *
 * A message to a conversation is ONE durable commit: the session row (created, its input
 * counted, marked working) and the `user_message` trigger, keyed `send:<requestId>`, go to disk
 * in the trigger store's one journal write. The person's line in the transcript is written after
 * it and is idempotent (`ensureUserLine`, keyed by the request id): the turn writes it itself
 * when a crash came between the two, so the line is never missing and never doubled.
 *
 * A message to a task (Reply, or an answer typed in the conversation its question shows in) is a
 * line and an event in the task's stream, then a wake; a task that is running is re-armed at
 * every start (restore.ts), so a crash before the wake loses nothing.
 */
import { answerLine } from './conversation';
import type { EngineEnv } from './engineEnv';
import { USER_PRIORITY } from './engineEnv';
import { newId } from './engineState';
import { routeCheap, type MessageOptions } from './messageRouter';
import type { TaskRecord } from './records';
import { injectReply, noteInput } from './taskLifecycle';

/** Where a sent message went: its session, and the task that took it as its answer, if any. */
export interface SendResult {
  sessionId: string;
  /** The task that received the message (a reply, or an answer typed into its conversation). */
  taskId?: string;
}

/** Lines being written per request id: the send and a turn that races it write one line between them. */
const writing = new WeakMap<object, Map<string, Promise<void>>>();

/**
 * Writes the person's line for `requestId` into `sessionId`'s transcript unless it is there
 * already. Called by the send after its commit and by the turn that answers it (a crash between
 * the commit and the line leaves the turn to write it).
 */
export function ensureUserLine(env: EngineEnv, sessionId: string, text: string, requestId: string): Promise<void> {
  let inFlight = writing.get(env.state);
  if (!inFlight) writing.set(env.state, (inFlight = new Map()));
  const known = inFlight.get(requestId);
  if (known) return known;
  const done = (async () => {
    const lines = await env.state.loadTranscript(sessionId);
    if (lines.some((m) => m.requestId === requestId)) return;
    await env.state.appendMessage(sessionId, 'user', text, { requestId });
  })();
  inFlight.set(requestId, done);
  void done.finally(() => inFlight.delete(requestId)).catch(() => undefined);
  return done;
}

/** The trigger an earlier send of `requestId` wrote (any state, done ones within the store's retention). */
function earlierSend(env: EngineEnv, dedupKey: string): { id: string; sessionId: string; status: string } | undefined {
  // Read-only look-up of the trigger store's own table: its dedup key is the send's identity.
  const row = env.state.db.query('SELECT id, session_id, status FROM triggers WHERE dedup_key = ?', [dedupKey])[0];
  return row ? { id: String(row.id), sessionId: String(row.session_id), status: String(row.status) } : undefined;
}

export async function sendMessage(env: EngineEnv, text: string, options: MessageOptions = {}): Promise<SendResult> {
  const route = routeCheap(env.state, options);
  env.logger.info('CHAT', `message → ${route.rung}`);
  if (route.rung === 'notification') {
    await env.state.mirror('-', 'notification', text);
    return { sessionId: '' };
  }
  const requestId = options.requestId ?? newId('m-', env.clock.now());
  const taskId = route.rung === 'reply' || route.rung === 'answer' || route.rung === 'session' ? route.taskId : undefined;
  const task = taskId ? env.state.tasks.get(taskId) : undefined;
  if (task) {
    if (route.rung === 'answer') await tellConversation(env, route.sessionId, task, text, requestId);
    // A re-send of a reply already in the task's lane is not injected twice.
    const lane = await env.state.loadTranscript(task.sessionId);
    if (!lane.some((m) => m.requestId === requestId)) await injectReply(env, task, text, undefined, requestId);
    return route.rung === 'answer' ? { sessionId: route.sessionId, taskId: task.id } : { sessionId: task.sessionId, taskId: task.id };
  }
  const dedupKey = `send:${requestId}`;
  const earlier = earlierSend(env, dedupKey);
  if (earlier) {
    // Sent before (its first try failed after its write was queued): make sure its line is there.
    if (env.state.sessions.has(earlier.sessionId)) await ensureUserLine(env, earlier.sessionId, text, requestId);
    await env.state.commit();
    // A first try whose emit failed never woke the loop: re-arming it now (it is due) does.
    if (earlier.status === 'pending') await env.triggers.rearm(earlier.id, env.clock.now());
    return { sessionId: earlier.sessionId };
  }
  let session = route.rung === 'session' ? env.state.sessions.get(route.sessionId) : undefined;
  if (!session) session = env.state.createSession({ name: text.replace(/\s+/g, ' ').slice(0, 48) });
  noteInput(env, session.id);
  session.status = 'working';
  env.state.saveSession(session);
  // The one durable commit: the trigger store's write carries the session row mutated above.
  await env.triggers.emit({
    source: 'user_message',
    sessionId: session.id,
    priority: USER_PRIORITY,
    dedupKey,
    payload: {
      text,
      requestId,
      ...(route.rung === 'router' ? { route: true } : {}),
      ...(route.rung === 'session' && route.waiting ? { answerAmong: route.waiting } : {}),
    },
  });
  try {
    await ensureUserLine(env, session.id, text, requestId);
    await env.state.commit();
  } catch (error) {
    // The message is durable (its trigger is): the turn writes the line if it is still missing.
    env.logger.warn('CHAT', `${session.id}: the message is queued, but its line was not written yet: ${(error as Error).message}`);
  }
  return { sessionId: session.id };
}

/**
 * The person typed an answer into the conversation where the task's question shows: their line
 * stays there, with a line saying which task it went to (the thread shows where it went).
 */
export async function tellConversation(env: EngineEnv, sessionId: string, task: TaskRecord, text: string, requestId: string): Promise<void> {
  const lines = await env.state.loadTranscript(sessionId);
  if (lines.some((m) => m.requestId === requestId)) return;
  await env.state.appendMessage(sessionId, 'user', text, { requestId });
  await env.state.appendMessage(sessionId, 'event', answerLine(task));
}
