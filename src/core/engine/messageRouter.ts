/**
 * The message routing ladder of docs/DESIGN.md §3, cheap rules first:
 * third-party notification → no session; explicit reply to a live task → that task; reply marker
 * whose task is gone → fresh session; an explicit session → that session (its task if live);
 * any task active → the router model decides (a zod-validated tool call, conservative); else a
 * fresh session. If the router fails for any reason the message stays in its fresh session.
 */
import * as z from 'zod/v4';
import type { ModelClient, ModelRequest } from '../model/types';
import { ROUTER_SYSTEM } from '../prompts/prompts';
import type { EngineState } from './engineState';
import type { TaskRecord } from './records';

export type CheapRoute =
  | { rung: 'notification' }
  | { rung: 'reply'; taskId: string }
  | { rung: 'reply_gone' }
  | { rung: 'session'; sessionId: string; taskId?: string; waiting?: string[] }
  /** Typed into a conversation whose one task started there waits for the person's answer: that task. */
  | { rung: 'answer'; sessionId: string; taskId: string }
  | { rung: 'router' }
  | { rung: 'fresh' };

/** Options of `Agent.sendMessage` that steer routing. */
export interface MessageOptions {
  sessionId?: string;
  replyToTaskId?: string;
  /** A message from a bot or integration, not the user: logged, never starts a session. */
  notification?: boolean;
  /**
   * The sender's id for this message (the sidebar's request id): a second send with the same id
   * is recognised and not answered twice (a re-send after a failure that may have been written).
   */
  requestId?: string;
}

export function routeCheap(state: EngineState, options: MessageOptions): CheapRoute {
  if (options.notification) return { rung: 'notification' };
  if (options.replyToTaskId) {
    const task = state.tasks.get(options.replyToTaskId);
    return task && (task.status === 'running' || task.status === 'paused') ? { rung: 'reply', taskId: task.id } : { rung: 'reply_gone' };
  }
  if (options.sessionId && state.sessions.has(options.sessionId)) {
    const task = state.taskOf(options.sessionId);
    if (task) return { rung: 'session', sessionId: options.sessionId, taskId: task.id };
    // The thread shows a task's question inside the conversation that started it, so what the
    // person types there is most likely the answer (seeds S31). One waiting task takes it; when
    // several wait, the router sees their questions and picks (conversation.ts `routeAnswer`).
    const waiting = waitingIn(state, options.sessionId);
    if (waiting.length === 1) return { rung: 'answer', sessionId: options.sessionId, taskId: waiting[0].id };
    return { rung: 'session', sessionId: options.sessionId, ...(waiting.length ? { waiting: waiting.map((t) => t.id) } : {}) };
  }
  if (options.sessionId) return { rung: 'fresh' };
  return state.activeTasks().length ? { rung: 'router' } : { rung: 'fresh' };
}

/** The running tasks started from conversation `sessionId` that wait for the person's answer (oldest first). */
export function waitingIn(state: EngineState, sessionId: string): TaskRecord[] {
  return state
    .activeTasks()
    .filter((t) => t.waitingForUser && !t.paused && state.sessions.get(t.sessionId)?.parentId === sessionId)
    .sort((a, b) => a.createdAt - b.createdAt);
}

export const routeDecisionSchema = z.object({
  decision: z.enum(['continue', 'modify', 'cancel', 'answer', 'new']),
  taskId: z.string().optional(),
  reason: z.string().optional(),
});
export type RouteDecision = z.infer<typeof routeDecisionSchema>;

const ROUTE_TOOL = {
  name: 'route_message',
  description: 'Say where the new message belongs.',
  inputSchema: {
    type: 'object',
    properties: {
      decision: { type: 'string', enum: ['continue', 'modify', 'cancel', 'answer', 'new'] },
      taskId: { type: 'string', description: 'The task, unless decision is new' },
      reason: { type: 'string' },
    },
    required: ['decision'],
    additionalProperties: false,
  },
};

/** What the router sees per running task (docs/DESIGN.md §3). */
export function describeTaskForRouter(task: TaskRecord, lastEvents: string[]): string {
  const done = task.todos.filter((t) => t.status === 'done').length;
  const waits = [
    task.waitingForUser ? "waiting for the user's reply" : '',
    task.waitingForApproval ? "waiting for the user's approval of a proposed change" : '',
    task.paused ? `paused (${task.pauseReason ?? 'by the user'})` : '',
  ].filter(Boolean);
  return [
    `## Task ${task.id}: ${task.name}`,
    `mode: ${task.mode}; source: ${task.source}; status: ${task.status}${waits.length ? `; ${waits.join('; ')}` : ''}`,
    `todos: ${task.todos.length ? `${done}/${task.todos.length} done` : 'none'}`,
    `instruction: ${task.instruction.slice(0, 600)}`,
    `last events:\n${lastEvents.map((e) => `- ${e}`).join('\n') || '- none'}`,
  ].join('\n');
}

/** Messages of the recent conversation the router sees, at most, and characters of each. */
export const ROUTER_RECENT_MESSAGES = 6;
const ROUTER_MESSAGE_CHARS = 300;

/**
 * The router's one request: the live tasks, then the last messages of the conversation the person
 * was in (so "yes, do that" or "stop it" has its referent), then the new message.
 */
export function routerRequest(text: string, tasks: string[], recent: ReadonlyArray<{ role: string; text: string }> = []): ModelRequest {
  const lines = recent.slice(-ROUTER_RECENT_MESSAGES).map((m) => `- ${m.role}: ${m.text.replace(/\s+/g, ' ').slice(0, ROUTER_MESSAGE_CHARS)}`);
  const conversation = lines.length ? `\n\n# Recent conversation\n${lines.join('\n')}` : '';
  return {
    system: ROUTER_SYSTEM,
    tools: [ROUTE_TOOL],
    messages: [{ role: 'user', content: `${tasks.join('\n\n')}${conversation}\n\n# New message\n${text}` }],
    toolChoice: 'required',
    maxOutputTokens: 200,
  };
}

/**
 * Asks the router model. Returns 'new' for anything not a valid decision about a live task:
 * a wrong guess costs more than a fresh session.
 */
export async function decideRoute(
  client: ModelClient,
  text: string,
  tasks: TaskRecord[],
  lastEvents: (task: TaskRecord) => Promise<string[]>,
  signal?: AbortSignal,
  recent: ReadonlyArray<{ role: string; text: string }> = [],
): Promise<RouteDecision> {
  const described = await Promise.all(tasks.map(async (t) => describeTaskForRouter(t, await lastEvents(t))));
  const response = await client.complete({ ...routerRequest(text, described, recent), signal });
  const call = response.toolCalls.find((c) => c.name === 'route_message');
  const parsed = routeDecisionSchema.safeParse(call?.arguments);
  if (!parsed.success) throw new Error(`router gave no valid route_message call (${call ? parsed.error?.issues[0]?.message : 'no tool call'})`);
  if (parsed.data.decision !== 'new' && !tasks.some((t) => t.id === parsed.data.taskId)) {
    throw new Error(`router chose unknown task '${parsed.data.taskId ?? ''}'`);
  }
  return parsed.data;
}
