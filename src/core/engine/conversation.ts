/**
 * Conversation mode: a session without a live task can only reply, start task(s) or ignore.
 * A message that arrived while tasks were running is first routed by the router model.
 */
import { ACTION_SETS } from '../actions/coreActions';
import { conversationRequest } from '../prompts/requestBuilder';
import { skillCatalog } from '../skills/skills';
import type { EngineEnv } from './engineEnv';
import type { LiveTurn } from './liveTurn';
import { decideRoute } from './messageRouter';
import { addTotals } from './records';
import type { SessionRecord } from './records';
import { runPipeline } from './pipeline';
import { createTask, endTask, injectReply } from './taskLifecycle';

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
    );
    env.logger.info('CHAT', `router: ${decision.decision}${decision.taskId ? ` ${decision.taskId}` : ''} (${decision.reason ?? ''})`);
    if (decision.decision === 'new' || !decision.taskId) return false;
    const task = env.state.tasks.get(decision.taskId);
    if (!task) return false;
    env.state.removeSession(session.id, task.sessionId);
    if (decision.decision === 'cancel') {
      await env.state.appendMessage(task.sessionId, 'user', text);
      await endTask(env, task, { status: 'cancelled', summary: 'Cancelled at your request.' });
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

/** One conversation turn; `live` streams it to the sidebar and lets the person stop it. */
export async function runConversationTurn(env: EngineEnv, session: SessionRecord, live?: LiveTurn): Promise<void> {
  const client = await env.model();
  const context = await env.prefixContext();
  const request = conversationRequest({
    ...context,
    tools: env.registry.tools([ACTION_SETS.conversation]),
    skillCatalog: skillCatalog(env.skills()),
    transcript: env.state.transcript(session.id),
  });
  const result = await runPipeline(env, {
    client, request, actionSets: [ACTION_SETS.conversation], sessionId: session.id,
    signal: live?.signal ?? env.signal,
    ...(live ? { onDelta: live.stream.onDelta } : {}),
  });
  // The bubble has shown all there is before the committed messages replace it.
  live?.stream.flush();
  session.usage = addTotals(session.usage, result.usage, result.cost);
  const fx = result.effects;
  for (const text of fx.said) await env.state.appendMessage(session.id, 'assistant', text);
  if (!fx.said.length && !fx.started.length && !fx.ignored && result.text.trim()) await env.state.appendMessage(session.id, 'assistant', result.text.trim());
  if (result.invalid) await env.state.appendMessage(session.id, 'error', `The model answered with invalid tool calls twice: ${result.invalid.slice(0, 300)}`, { retryable: true });
  for (const spec of fx.started) await createTask(env, { ...spec, source: 'user', fromSessionId: session.id });
  session.status = 'idle';
  delete session.retryPayload;
  env.state.saveSession(session);
  env.logger.info('CHAT', `${session.id}: ${fx.said.length} message(s), ${fx.started.length} task(s)${fx.ignored ? ', ignored' : ''}`);
}
