/**
 * One turn of a running task: budget check, request from the stable prefix + history rebuilt
 * from the event stream + a small status tail, the pipeline, then finalize (end, ask, wait,
 * approval, or queue the continuation).
 */
import { throwIfStopped } from './stopping';
import type { TaskEventRecorder } from './taskHooks';
import type { ModelError } from '../model/types';
import { historyFromEvents, taskRequest } from '../prompts/requestBuilder';
import { renderSummary, summarizeDropped } from './historySummary';
import { checkBudget, describeBudget, describeBudgetStep } from './budgets';
import type { EngineEnv, TurnClaim } from './engineEnv';
import type { LiveTurn } from './liveTurn';
import { runPipeline } from './pipeline';
import { addTotals } from './records';
import type { ChoreLineage, TaskRecord } from './records';
import { continueLater, createTask, endTask, pauseAsAsked, pauseTask, postReply, sleepUntilReply } from './taskLifecycle';
import type { TaskEvent } from './types';
import { describeTokens } from '../model/usage';
import { costText } from '../../shared/costText';

/**
 * History above this many characters (about 80k tokens) is cut at a turn boundary near its middle,
 * in one step, so the prefix stays stable between cuts. Large enough that a turn's new bytes are a
 * small share of a request (the cached prefix is most of it); a model with a smaller window
 * answers "context too long", and the task then lowers its own bound (`historyMaxChars`) and
 * retries once (handleTaskModelError).
 */
const HISTORY_MAX_CHARS = 320_000;

export function statusTail(task: TaskRecord): string {
  const budget = [
    describeBudgetStep(task, 'actions'),
    describeBudgetStep(task, 'tokens'),
    ...(task.limits.cost !== undefined ? [describeBudgetStep(task, 'cost')] : []),
  ].join(', ');
  const todos = task.todos.length
    ? task.todos.map((t) => `[${t.status === 'done' ? 'x' : t.status === 'in_progress' ? '>' : ' '}] ${t.text}`).join('; ')
    : 'none';
  return `[status] used ${budget}; todos: ${todos}`;
}

/** The status line this turn adds to the prompt: none when it says what the last one said. */
function freshStatus(task: TaskRecord): string | undefined {
  const status = statusTail(task);
  return status === task.lastStatus ? undefined : status;
}

/** Moves `historyFromSeq` to a turn near the middle when the history is too big; returns the dropped range. */
function cutHistory(task: TaskRecord, events: TaskEvent[]): { from: number; to: number } | undefined {
  const size = events.filter((e) => e.seq >= task.historyFromSeq).reduce((n, e) => n + JSON.stringify(e.data).length, 0);
  task.historyChars = size;
  if (size <= (task.historyMaxChars ?? HISTORY_MAX_CHARS)) return undefined;
  let acc = 0;
  for (const event of events) {
    if (event.seq < task.historyFromSeq) continue;
    acc += JSON.stringify(event.data).length;
    if (acc > size / 2 && event.kind === 'turn') {
      const from = task.historyFromSeq;
      task.historyFromSeq = event.seq;
      task.historyChars = size - acc + JSON.stringify(event.data).length;
      return { from, to: event.seq };
    }
  }
  return undefined;
}

/**
 * Builds the request a task sends now, and the status line it ends with (none when unchanged).
 * A cut folds the dropped turns into the task's history summary (historySummary.ts), which then
 * opens the history: written once per cut, so the requests between two cuts share their bytes.
 */
export async function buildTaskRequest(env: EngineEnv, task: TaskRecord) {
  // Only the events the history is built from (seq >= historyFromSeq, kept under
  // HISTORY_MAX_CHARS by cutHistory), not the whole stream of a long task on every turn.
  const count = await env.state.streams.count(task.sessionId);
  const events = await env.state.streams.read(task.sessionId, { limit: count - task.historyFromSeq + 1 });
  const cut = cutHistory(task, events);
  if (cut) {
    task.historySummary = summarizeDropped(events, cut.from, cut.to, task.historySummary);
    // The status lines of the dropped turns went with them: the next one is sent again, todo list included.
    delete task.lastStatus;
    env.logger.info('TASK', `${task.id}: history cut at event ${cut.to}; ${task.historySummary.turns} turn(s) summarised`);
    await env.state.appendMessage(
      task.sessionId,
      'event',
      `This task's first ${task.historySummary.turns} turns were summarised to keep it within the model's context: what you said, the files touched and what failed are kept.`,
    );
  }
  const status = freshStatus(task);
  const summary = task.historySummary ? [{ role: 'user' as const, content: renderSummary(task.historySummary) }] : [];
  const request = taskRequest({
    tools: env.registry.tools(task.actionSets),
    prefix: task.prefix,
    history: [...summary, ...historyFromEvents(events, task.historyFromSeq)],
    tail: status,
  });
  return { request, status };
}

/** How a task turn is run: its own stop signal, its live stream and the id that keys its effects (the trigger). */
export interface TaskTurnOptions {
  signal?: AbortSignal;
  keyBase?: string;
  /** The session's input count when the turn began (lines it writes go before later input). */
  seenInputs?: number;
  /** Streams the turn to the sidebar. */
  live?: LiveTurn;
  /** The claim of the trigger the turn runs for: acked with the continuation's write. */
  claim?: TurnClaim;
}

export async function runTaskTurn(env: EngineEnv, task: TaskRecord, options: TaskTurnOptions = {}): Promise<void> {
  // Stop pressed after the step before had queued this one (or paused meanwhile): no model call.
  if (task.status !== 'running') return;
  if (task.stopAfterStep) {
    await pauseAsAsked(env, task);
    return;
  }
  const budget = checkBudget(task);
  if (budget.exceeded.length) {
    await pauseTask(
      env,
      task,
      'budget',
      `Budget reached (${budget.exceeded.map((k) => describeBudget(task, k)).join(', ')}). Continue raises the limit; Cancel ends the task.`,
    );
    return;
  }
  for (const kind of budget.newlyNear) {
    task.warned[kind] = true;
    // `text` is for the model and the log (English on purpose); `nearBudget` lets the thread word
    // the warning in the person's language (src/host/stepEventRows.ts).
    await env.state.appendEvent(task.sessionId, 'warning', {
      text: `80% of the ${kind} budget is used (${describeBudget(task, kind)}). Wrap up: finish the current step, summarise, and call task_end.`,
      nearBudget: kind,
    });
    env.logger.warn('TASK', `${task.id}: 80% of ${kind} budget`);
  }

  const model = await env.model();
  const { request, status } = await buildTaskRequest(env, task);
  if (status) task.lastStatus = status;
  const live = options.live;
  const signal = options.signal ?? live?.signal ?? env.signal;
  const result = await runPipeline(env, {
    client: model,
    request,
    actionSets: task.actionSets,
    sessionId: task.sessionId,
    task,
    signal,
    status,
    keyBase: options.keyBase,
    ...(live ? { onDelta: live.stream.onDelta } : {}),
  });
  live?.stream.flush();

  task.turns += 1;
  task.modelErrors = 0;
  delete task.contextRetried;
  // A turn always costs at least one action, so a model that never calls tools cannot loop for free.
  task.actionCount += Math.max(result.actionsRun, 1);
  task.usage = addTotals(task.usage, result.usage, result.cost, result.costEstimated);
  const session = env.state.sessions.get(task.sessionId);
  if (session) session.usage = addTotals(session.usage, result.usage, result.cost, result.costEstimated);
  env.logger.info(
    'TASK',
    `${task.id} turn ${task.turns}: ${result.actionsRun} action(s), ${describeTokens(result.usage)}, ${costText(result.cost, result.costEstimated, 4)}`,
  );
  // Cancelled (or ended) while the turn ran: the task is over, so finalize queues nothing.
  if (task.status === 'running' && !signal.aborted) await finalizeTaskTurn(env, task, result, options, signal);
  else env.state.saveTask(task);
}

async function finalizeTaskTurn(
  env: EngineEnv,
  task: TaskRecord,
  result: Awaited<ReturnType<typeof runPipeline>>,
  options: TaskTurnOptions,
  signal: AbortSignal,
): Promise<void> {
  const fx = result.effects;
  const keyBase = options.keyBase;
  const inputs = env.state.sessions.get(task.sessionId)?.inputs ?? 0;
  const arrivedDuring = options.seenInputs !== undefined && inputs > options.seenInputs ? inputs - options.seenInputs : undefined;
  const outcome = fx.ended
    ? 'end'
    : result.invalid
      ? 'pause (invalid)'
      : fx.question || fx.approval || (result.actionsRun === 0 && result.text.trim())
        ? 'wait for the user'
        : fx.waitAt
          ? 'wait'
          : 'continue';
  env.logger.info('WORKFLOW: finalize', `${task.id}: ${outcome}${fx.started.length ? `, started ${fx.started.length} task(s)` : ''}`);
  const { state } = env;
  if (fx.todos) {
    task.todos = fx.todos;
    await state.appendEvent(task.sessionId, 'todos', { todos: fx.todos, forModel: false });
  }
  for (const text of fx.said) await postReply(env, task.sessionId, keyBase, text);
  // Text without any tool call: the model is talking to the user, so, like a chat agent, the
  // task then waits for their answer instead of looping on text-only turns. An unattended task
  // has nobody to answer: its supervisor (the chore runner) nudges it or ends it instead.
  const textOnly = result.actionsRun === 0 && !result.invalid && result.text.trim() !== '';
  const unanswered = !fx.ended && !fx.approval && !fx.waitAt && (fx.question !== undefined || textOnly);
  const instead = unanswered
    ? await env.hooks?.turnWithoutEnd?.(task, { text: [result.text.trim(), fx.question ?? ''].filter(Boolean).join('\n') })
    : undefined;
  if (instead?.kind === 'nudge') {
    for (const text of [result.text.trim(), fx.question ?? '']) if (text) await postReply(env, task.sessionId, keyBase, text);
    // Written for the model (why the task goes on): not a row in the person's thread.
    await state.appendEvent(task.sessionId, 'user_message', { text: instead.message, forModel: true });
    state.saveTask(task);
    await continueLater(env, task, undefined, 'nudge', undefined, options.claim);
    return;
  }
  if (instead?.kind === 'end') fx.endTask(instead.result);
  else if (textOnly && !fx.question) fx.askUser(result.text.trim());
  for (const spec of fx.started) {
    await createTask(env, { ...spec, source: `successor:${task.id}`, fromSessionId: task.sessionId, ...successorPolicy(task, spec.actionSets) });
  }
  if (fx.ended) {
    const record: TaskEventRecorder = async (kind, data) => {
      await state.appendEvent(task.sessionId, kind, { ...data, forModel: false });
    };
    const again = await env.hooks?.beforeTaskEnd?.(task, fx.ended, signal, record);
    // Cancelled while the hook ran (a check): the task is ended already. Stopped: the turn ends
    // as stopped (react pauses the task; Continue asks for task_end again, so the checks rerun).
    if (task.status !== 'running') return;
    throwIfStopped(signal);
    if (typeof again !== 'string') {
      await endTask(env, task, { ...(again?.result ?? fx.ended), arrivedDuring });
      return;
    }
    // Written for the model (why the task goes on): not a row in the person's thread.
    await state.appendEvent(task.sessionId, 'user_message', { text: again, forModel: true });
    state.saveTask(task);
    await continueLater(env, task, undefined, 'reevaluate', undefined, options.claim);
    return;
  }
  // An approval to end is good for the one turn that reads the reply.
  if (task.endApproved && !fx.endApproval) {
    task.endApproved = false;
    task.endApprovalRequested = false;
  }
  if (result.invalid) {
    // `text` is English for the model and the log; the thread words both rows from
    // `invalidToolCalls` (src/host/stepEventRows.ts), the calls' own account following as data.
    const invalidToolCalls = result.invalid.slice(0, 300);
    await state.appendEvent(task.sessionId, 'error', { text: `Invalid tool calls after a repair turn: ${result.invalid}`, invalidToolCalls });
    await pauseTask(env, task, 'model_error', `The model sent invalid tool calls twice (${invalidToolCalls}). Continue retries; Cancel ends the task.`, {
      invalidToolCalls,
    });
    return;
  }
  // Input that arrived while the turn ran (recorded at once, after the turn's results in the
  // stream): the task does not sleep on a question or a wait it would have answered already.
  const woken = env.pendingWake.delete(task.sessionId);
  if (fx.approval) {
    // The approval card stays live whatever else happens; its decision wakes the task.
    task.waitingForApproval = fx.approval.id;
    await state.appendMessage(task.sessionId, 'event', `Waiting for your approval: ${fx.approval.summary}`);
  }
  if ((fx.question || fx.approval) && !woken) {
    if (fx.question) {
      task.waitingForUser = true;
      task.endApprovalRequested = fx.endApproval || undefined;
      await postReply(env, task.sessionId, keyBase, fx.question);
    }
    // The flag is durable before the trigger that would re-check it exists.
    state.saveTask(task);
    await state.commit();
    await sleepUntilReply(env, task);
    return;
  }
  if (fx.question) await postReply(env, task.sessionId, keyBase, fx.question);
  state.saveTask(task);
  if (fx.waitAt && !woken) {
    await state.appendEvent(task.sessionId, 'wait', { until: fx.waitAt.at, reason: fx.waitAt.reason, forModel: false });
    await continueLater(env, task, fx.waitAt.at, 'wait', undefined, options.claim);
    return;
  }
  // Woken while an approval is pending: this continuation carries the reply, so it runs a turn
  // instead of re-arming the approval wait.
  await continueLater(env, task, undefined, woken ? 'woken' : 'next', woken ? { wake: 'reply' } : undefined, options.claim);
}

/** A model failure inside a task turn: transient ones back off, the rest pause the task. */
export async function handleTaskModelError(env: EngineEnv, task: TaskRecord, error: ModelError): Promise<void> {
  const transient = error.kind === 'rate_limit' || error.kind === 'timeout' || error.kind === 'connection' || error.kind === 'server';
  await env.state.appendEvent(task.sessionId, 'error', { text: error.message, kind: error.kind, forModel: false });
  if (error.kind === 'context_length' && !task.contextRetried && (task.historyChars ?? 0) > 0) {
    // The model's window is smaller than the history bound: this task's bound drops below what
    // was sent, so the next request cuts (and summarises) the history; retried once, at once.
    task.contextRetried = true;
    task.historyMaxChars = Math.floor((task.historyChars ?? 0) * 0.6);
    env.state.saveTask(task);
    await env.state.appendMessage(task.sessionId, 'event', `${error.message} Cutting this task's history to fit and retrying once.`);
    await continueLater(env, task, undefined, 'context');
    return;
  }
  if (transient && task.modelErrors < 3) {
    task.modelErrors += 1;
    const delay = error.details.retryAfterMs ?? 15_000 * 2 ** (task.modelErrors - 1);
    env.state.saveTask(task);
    await env.state.appendMessage(task.sessionId, 'error', `${error.message} Retrying in ${Math.round(delay / 1000)} s.`);
    await continueLater(env, task, env.clock.now() + delay, `retry${task.modelErrors}`);
    return;
  }
  task.modelErrors = 0;
  const next =
    error.kind === 'context_length'
      ? ' Cutting the history did not make it fit: choose a model with a larger context (tasklane.model.id), or start a new task with a shorter instruction; Continue retries.'
      : ' Fix it, then press Continue.';
  await pauseTask(env, task, 'model_error', `${error.message}${next}`);
}

/**
 * What a task started by `task` inherits. A chore's descendants keep the chore's policy
 * transitively (issue #11): the same run (so its budget and never-unattended rule), and no action
 * set the chore did not have, whatever the model asks for. A task another agent queued through
 * the `tasklane_start_task` tool (origin `via: lm_tool`) is narrowed the same way: the person
 * confirmed a read-only task, so none of its descendants gets more than it has.
 */
export function successorPolicy(
  task: Pick<TaskRecord, 'actionSets' | 'chore' | 'origin'>,
  requested: string[] | undefined,
): { actionSets: string[]; chore?: ChoreLineage; origin?: Record<string, unknown> } {
  const inherited = task.actionSets.filter((s) => s !== 'task');
  const fromAgent = task.origin?.via === 'lm_tool';
  if (!task.chore && !fromAgent) return { actionSets: requested ?? inherited };
  const allowed = new Set(task.actionSets);
  return {
    actionSets: (requested ?? inherited).filter((s) => allowed.has(s)),
    ...(task.chore ? { chore: task.chore } : {}),
    ...(fromAgent ? { origin: { via: 'lm_tool' } } : {}),
  };
}
