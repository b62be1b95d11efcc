/**
 * Conversation mode: a session without a live task can only reply, start task(s) or ignore.
 * A message that arrived while tasks were running is first routed by the router model.
 */
import { ACTION_SETS, DEFAULT_TASK_SETS, grantableSetsText } from '../actions/actionSets';
import { conversationRequest } from '../prompts/requestBuilder';
import { skillCatalog } from '../skills/skills';
import type { EngineEnv } from './engineEnv';
import type { LiveTurn } from './liveTurn';
import { decideRoute, ROUTER_RECENT_MESSAGES } from './messageRouter';
import { addTotals } from './records';
import type { SessionRecord, TaskRecord } from './records';
import { runPipeline } from './pipeline';
import { createTask, endTask, injectReply, noteInput, postReply } from './taskLifecycle';

/** Runs the router for a message that arrived while tasks were active. Returns true when it moved the message to a task. */
export async function routeIncoming(env: EngineEnv, session: SessionRecord, text: string): Promise<boolean> {
  const tasks = env.state.activeTasks();
  if (!tasks.length) return false;
  try {
    const client = await env.model();
    const decision = await decideRoute(
      client,
      text,
      tasks,
      async (t) => (await env.state.streams.read(t.sessionId, { limit: 10 })).map((e) => `${e.kind} ${JSON.stringify(e.data).slice(0, 160)}`),
      env.signal,
      await recentConversation(env, session.id),
    );
    env.logger.info('CHAT', `router: ${decision.decision}${decision.taskId ? ` ${decision.taskId}` : ''} (${decision.reason ?? ''})`);
    if (decision.decision === 'new' || !decision.taskId) return false;
    const task = env.state.tasks.get(decision.taskId);
    if (!task) return false;
    env.state.removeSession(session.id, task.sessionId);
    if (decision.decision === 'cancel') {
      noteInput(env, task.sessionId);
      await env.state.appendMessage(task.sessionId, 'user', text);
      await endTask(env, task, { status: 'cancelled', summary: 'Cancelled at your request.' });
      await env.stopTaskWork(task.id);
    } else {
      await injectReply(env, task, text, decision.decision === 'modify' ? 'Change of plan from the user:' : undefined);
    }
    return true;
  } catch (error) {
    // Any failure: the message simply stays in its own fresh session.
    env.logger.warn('CHAT', `routing failed, keeping the message in a fresh session: ${(error as Error).message}`);
    return false;
  }
}

/**
 * A message typed into a conversation while several of its tasks wait for the person's answer
 * (sendPath.ts takes the one-task case without a model call): the router sees each task with its
 * question and the conversation, and picks one, or none (then the conversation answers it).
 * Returns true when a task took it; the conversation says which.
 */
export async function routeAnswer(env: EngineEnv, session: SessionRecord, text: string, among: readonly string[]): Promise<boolean> {
  const tasks = among.map((id) => env.state.tasks.get(id)).filter((t): t is TaskRecord => !!t && t.status === 'running' && t.waitingForUser);
  if (!tasks.length) return false;
  try {
    const client = await env.model();
    const recent = (await env.state.loadTranscript(session.id)).filter((m) => m.role === 'user' || m.role === 'assistant');
    const decision = await decideRoute(
      client,
      text,
      tasks,
      async (t) => {
        const question = (await env.state.loadTranscript(t.sessionId)).filter((m) => m.role === 'assistant').at(-1)?.text;
        const events = (await env.state.streams.read(t.sessionId, { limit: 10 })).map((e) => `${e.kind} ${JSON.stringify(e.data).slice(0, 160)}`);
        return [...(question ? [`asked the user: ${question.slice(0, 400)}`] : []), ...events];
      },
      env.signal,
      recent.slice(-ROUTER_RECENT_MESSAGES - 1, -1),
    );
    env.logger.info('CHAT', `answer router: ${decision.decision}${decision.taskId ? ` ${decision.taskId}` : ''} (${decision.reason ?? ''})`);
    const task = decision.decision === 'new' ? undefined : tasks.find((t) => t.id === decision.taskId);
    if (!task) return false;
    await env.state.appendMessage(session.id, 'event', answerLine(task));
    session.answered = Math.max(session.answered ?? 0, session.inputs ?? 0);
    session.status = 'idle';
    env.state.saveSession(session);
    await injectReply(env, task, text, decision.decision === 'modify' ? 'Change of plan from the user:' : undefined);
    return true;
  } catch (error) {
    env.logger.warn('CHAT', `answer routing failed, the conversation answers the message: ${(error as Error).message}`);
    return false;
  }
}

/** The line a conversation shows when a task took what the person typed there. */
export function answerLine(task: Pick<TaskRecord, 'name'>): string {
  return `Sent to “${task.name}” as its answer.`;
}

/** The last messages of the conversation the person was last in (not a task's own session, not `except`). */
async function recentConversation(env: EngineEnv, except: string): Promise<Array<{ role: string; text: string }>> {
  const latest = [...env.state.sessions.values()]
    .filter((s) => s.id !== except && !s.taskId)
    .reduce<SessionRecord | undefined>((best, s) => (!best || s.lastActivity > best.lastActivity ? s : best), undefined);
  if (!latest) return [];
  const transcript = await env.state.loadTranscript(latest.id);
  return transcript.filter((m) => m.role === 'user' || m.role === 'assistant').slice(-ROUTER_RECENT_MESSAGES);
}

/** A conversation turn's stop signal, its live stream and the id that keys its effects (its trigger). */
export interface ConversationTurnOptions {
  signal?: AbortSignal;
  keyBase?: string;
  /** `session.inputs` when the turn began: what it saw. */
  seen?: number;
  /** Streams the turn to the sidebar. */
  live?: LiveTurn;
}

export async function runConversationTurn(env: EngineEnv, session: SessionRecord, options: ConversationTurnOptions = {}): Promise<void> {
  const client = await env.model();
  const context = await env.prefixContext();
  const transcript = await env.state.loadTranscript(session.id);
  const request = conversationRequest({
    ...context,
    tools: env.registry.tools([ACTION_SETS.conversation]),
    skillCatalog: skillCatalog(env.skills()),
    actionSets: grantableSetsText(env.grantableSets()),
    transcript,
  });
  const live = options.live;
  const result = await runPipeline(env, {
    client,
    request,
    actionSets: [ACTION_SETS.conversation],
    sessionId: session.id,
    signal: options.signal ?? live?.signal ?? env.signal,
    keyBase: options.keyBase,
    ...(live ? { onDelta: live.stream.onDelta } : {}),
  });
  // The bubble has shown all there is before the committed messages replace it.
  live?.stream.flush();
  session.usage = addTotals(session.usage, result.usage, result.cost, result.costEstimated);
  const fx = result.effects;
  // Messages that arrived while this turn ran stand before its answer in the transcript.
  const arrivedDuring = options.seen !== undefined ? (session.inputs ?? 0) - options.seen : undefined;
  for (const text of fx.said) await postReply(env, session.id, options.keyBase, text, arrivedDuring);
  if (!fx.said.length && !fx.started.length && !fx.ignored && result.text.trim())
    await postReply(env, session.id, options.keyBase, result.text.trim(), arrivedDuring);
  if (result.invalid) {
    // The page words the line from `said` (the English text is the transcript's and the model's).
    const detail = result.invalid.slice(0, 300);
    await env.state.appendMessage(session.id, 'error', `The model answered with invalid tool calls twice: ${detail}`, {
      retryable: true,
      said: { code: 'invalid_tool_calls', detail },
    });
  }
  // A task a person asked for: the sets task_start named, else edits and commands (actionSets.ts).
  for (const spec of fx.started)
    await createTask(env, { ...spec, actionSets: spec.actionSets ?? [...DEFAULT_TASK_SETS], source: 'user', fromSessionId: session.id, arrivedDuring });
  session.status = 'idle';
  delete session.retryPayload;
  env.state.saveSession(session);
  env.logger.info('CHAT', `${session.id}: ${fx.said.length} message(s), ${fx.started.length} task(s)${fx.ignored ? ', ignored' : ''}`);
}
