/**
 * The turn pipeline of docs/DESIGN.md §2: select (one model call, native tool calling), prepare
 * (resolve by name within the action sets, validate with zod; one repair turn), execute (in
 * parallel when every selected action allows it; action_start/action_end events; ledger around
 * irreversible actions). Finalize is the caller's: it differs between conversation and tasks.
 */
import type { ActionRegistry } from '../actions/registry';
import type { Ledger } from '../actions/ledger';
import type { ActionContext, ActionDef } from '../actions/types';
import type { ModelClient, ModelDelta, ModelMessage, ModelRequest, ModelResponse, ToolCall, Usage } from '../model/types';
import { emptyUsage } from '../model/usage';
import type { Clock, Logger, WorkspacePort } from '../ports';
import { REPAIR_NOTE } from '../prompts/prompts';
import { toolResultText } from '../prompts/requestBuilder';
import type { NotRunWhy, RunawayGuard } from './caps';
import type { EngineState } from './engineState';
import type { TaskRecord } from './records';
import type { NotRun } from './types';
import type { TaskHooks } from './taskHooks';
import { TaskStopped } from './taskHooks';
import { isAbortError, throwIfStopped, TurnStopped } from './stopping';
import { TurnEffectsRecorder } from './turnEffects';
import { addUsage } from '../model/usage';

/** What the pipeline needs from the engine. */
export interface PipelineEnv {
  state: EngineState;
  registry: ActionRegistry;
  ledger: Ledger;
  workspace: WorkspacePort;
  clock: Clock;
  logger: Logger;
  remember(note: string): Promise<void>;
  skillNames(): string[];
  scratchDir(taskId: string): string;
  /** One call's cost; `reportedUsd` is what the server said it cost, if it said (model/pricing.ts). */
  costOf(model: string, usage: Usage, reportedUsd?: number): CallCost;
  /** Optional supervisor hooks (chore runs): a guard before each model call and action. */
  hooks?: TaskHooks;
  /** Caps on runaway work (actions per turn, task starts); absent in tests that do not need them. */
  caps?: RunawayGuard;
  /** What goes on screen is redacted like what is stored (security/redact.ts). */
  redact?: (text: string) => string;
}

export interface PipelineInput {
  client: ModelClient;
  request: ModelRequest;
  actionSets: string[];
  sessionId: string;
  task?: TaskRecord;
  /** The turn's own signal (Stop, Cancel, shutdown): aborts the model call and the running action. */
  signal?: AbortSignal;
  /** Receives the model's streamed deltas (the live turn's stream). */
  onDelta?: (delta: ModelDelta) => void;
  /**
   * What makes this turn's effects unique across re-deliveries (the trigger id): task ids and
   * reply idempotency keys are derived from it, so a turn re-run after a crash cannot start the
   * same task or post the same reply twice.
   */
  keyBase?: string;
  /**
   * The status line the request ended with. Recorded on the turn so the next request replays it
   * in place: each request is then a byte prefix of the next (prompt caches hit on the history).
   */
  status?: string;
}

/** What one model call cost (USD) and whether that is the conservative estimate for an unpriced model. */
export interface CallCost {
  usd: number;
  estimated: boolean;
}

export interface PipelineResult {
  effects: TurnEffectsRecorder;
  usage: Usage;
  cost: number;
  /** Part of `cost` is an estimate (a model with no known price). */
  costEstimated: boolean;
  /** Tool calls executed (valid ones), counted against the action budget. */
  actionsRun: number;
  /** Free text the model wrote without a tool call. */
  text: string;
  /** Set when the calls were still invalid after the repair turn. */
  invalid?: string;
}

interface Prepared {
  call: ToolCall;
  action?: ActionDef;
  input?: unknown;
  error?: string;
}

function prepare(env: PipelineEnv, calls: ToolCall[], actionSets: string[]): Prepared[] {
  return calls.map((call) => {
    let action: ActionDef;
    try {
      action = env.registry.resolve(call.name, actionSets);
    } catch (error) {
      return { call, error: (error as Error).message };
    }
    const raw = call.arguments === undefined && call.rawArguments.trim() === '' ? {} : call.arguments;
    if (raw === undefined) return { call, action, error: `The arguments of ${call.name} are not valid JSON. Send a JSON object matching its schema.` };
    const parsed = action.input.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
      return { call, action, error: `Invalid input for ${call.name}: ${issues}. Fix these fields and call it again.` };
    }
    return { call, action, input: parsed.data };
  });
}

export async function runPipeline(env: PipelineEnv, input: PipelineInput): Promise<PipelineResult> {
  const { state, clock, logger } = env;
  const effects = new TurnEffectsRecorder(() => clock.now(), input.keyBase);
  const signal = input.signal;
  let usage = emptyUsage();
  let cost = 0;
  let costEstimated = false;
  const guard = (point: 'model' | 'action') => {
    const stop = input.task && env.hooks?.guard?.(input.task, point);
    if (stop) throw typeof stop === 'string' ? new TaskStopped(stop) : new TaskStopped(stop.pauseAtBudget, true);
  };
  const complete = async (request: ModelRequest): Promise<ModelResponse> => {
    throwIfStopped(signal);
    guard('model');
    try {
      const response = await input.client.complete({ ...request, signal, ...(input.onDelta ? { onDelta: input.onDelta } : {}) });
      // An answer that lands after Stop is dropped: nothing of a stopped turn runs.
      throwIfStopped(signal);
      usage = addUsage(usage, response.usage);
      const callCost = env.costOf(response.model || input.client.model, response.usage, response.costUsd);
      cost += callCost.usd;
      costEstimated ||= callCost.estimated;
      if (input.task) env.hooks?.modelCalled?.(input.task, response.usage, callCost.usd, callCost.estimated);
      return response;
    } catch (error) {
      if (isAbortError(error, signal)) throw signal?.reason instanceof Error ? signal.reason : new TurnStopped();
      throw error;
    }
  };

  // Select.
  let request = input.request;
  let response = await complete(request);
  logger.info(
    'WORKFLOW: select',
    `${input.sessionId}: ${response.toolCalls.map((c) => c.name).join(', ') || 'text only'} (${response.usage.inputTokens}+${response.usage.cacheReadTokens} in, ${response.usage.outputTokens} out)`,
  );
  let prepared = prepare(env, response.toolCalls, input.actionSets);

  // Prepare, with one repair turn.
  for (let attempt = 0; prepared.some((p) => p.error); attempt++) {
    const bad = prepared
      .filter((p) => p.error)
      .map((p) => p.error)
      .join(' ');
    await recordTurn(env, input, response);
    const results: ModelMessage[] = [];
    for (const p of prepared) {
      const error = p.error ?? 'Not run because other calls of this turn were invalid; call it again with the corrected ones.';
      // `notRun`: the thread words a sibling's row (the invalid call's own error is its account, data).
      const notRun: NotRun | undefined = p.error ? undefined : { code: 'invalid_siblings' };
      if (input.task)
        await state.appendEvent(input.sessionId, 'action_end', { callId: p.call.id, name: p.call.name, error, durationMs: 0, ...(notRun ? { notRun } : {}) });
      results.push({ role: 'tool', toolCallId: p.call.id, toolName: p.call.name, content: `Error: ${error}`, isError: true });
    }
    if (attempt >= 1) {
      logger.warn('WORKFLOW: prepare', `${input.sessionId}: invalid tool calls after the repair turn: ${bad}`);
      return { effects, usage, cost, costEstimated, actionsRun: 0, text: response.text, invalid: bad };
    }
    logger.info('WORKFLOW: repair', `${input.sessionId}: ${bad}`);
    request = {
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: response.text, toolCalls: response.toolCalls },
        ...results,
        { role: 'user', content: REPAIR_NOTE },
      ],
    };
    response = await complete(request);
    prepared = prepare(env, response.toolCalls, input.actionSets);
  }
  if (response.toolCalls.length) await recordTurn(env, input, response);

  // Execute, within the caps: the calls over them are answered with an error and not run.
  const valid = prepared as Array<Required<Pick<Prepared, 'call' | 'action'>> & { input: unknown }>;
  const allowance = env.caps?.actionsAllowed(valid.length, input.task) ?? { run: valid.length };
  const ready = valid.slice(0, allowance.run);
  if (allowance.refused)
    await refuseCalls(
      env,
      input,
      effects,
      valid.slice(allowance.run).map((p) => p.call),
      allowance.refused,
      allowance.why,
    );
  const parallel = ready.length > 1 && ready.every((p) => p.action.parallelizable);
  const ended = new Set<string>();
  const run = (p: (typeof ready)[number]) => executeOne(env, input, effects, p.action, p.call, p.input, ended);
  if (ready.length)
    logger.info('WORKFLOW: execute', `${input.sessionId}: ${ready.map((p) => p.action.name).join(', ')} (${parallel ? 'parallel' : 'in order'})`);
  try {
    if (parallel) {
      throwIfStopped(signal);
      if (ready.length) guard('action');
      await Promise.all(ready.map(run));
    } else {
      for (const p of ready) {
        throwIfStopped(signal);
        guard('action');
        await run(p);
      }
    }
    throwIfStopped(signal);
  } catch (error) {
    if (input.task && isAbortError(error, signal)) {
      // Every call of the recorded turn gets its outcome, so the stream never shows an intent
      // without one (which would read as a crash).
      for (const p of ready) {
        if (!ended.has(p.call.id))
          await state.appendEvent(input.sessionId, 'action_end', {
            callId: p.call.id,
            name: p.call.name,
            error: 'Not run: the user stopped the task.',
            notRun: { code: 'stopped' } satisfies NotRun,
            durationMs: 0,
          });
      }
    }
    throw error;
  }
  return { effects, usage, cost, costEstimated, actionsRun: ready.length, text: response.text };
}

async function refuseCalls(
  env: PipelineEnv,
  input: PipelineInput,
  effects: TurnEffectsRecorder,
  calls: ToolCall[],
  reason: string,
  why: NotRunWhy | undefined,
): Promise<void> {
  if (input.task) {
    for (const call of calls)
      await env.state.appendEvent(input.sessionId, 'action_end', {
        callId: call.id,
        name: call.name,
        error: reason,
        durationMs: 0,
        ...(why ? { notRun: why } : {}),
      });
    // `text` is for the model, the transcript and the log; `notRun` lets the thread word the row.
    // The reason is each call's own error ("Not run: …"): said once here, not "not run: Not run".
    await env.state.appendEvent(input.sessionId, 'warning', {
      text: `${calls.length} tool call(s) of one response were not run: ${reason.replace(/^Not run: /, '')}`,
      ...(why ? { notRun: { count: calls.length, ...why } } : {}),
    });
  } else {
    effects.say(`(${calls.length} action(s) were not run: ${reason.replace(/^Not run: /, '')})`);
  }
}

/** A turn event's cost fields: `costEstimated` only when it is one. */
const costFields = (c: CallCost): { cost: number; costEstimated?: true } => ({ cost: c.usd, ...(c.estimated ? { costEstimated: true as const } : {}) });

async function recordTurn(env: PipelineEnv, input: PipelineInput, response: ModelResponse): Promise<void> {
  if (!input.task) return;
  await env.state.appendEvent(input.sessionId, 'turn', {
    ...(input.status ? { status: input.status } : {}),
    text: response.text,
    toolCalls: response.toolCalls.map((c) => ({ id: c.id, name: c.name, rawArguments: c.rawArguments })),
    usage: response.usage,
    ...costFields(env.costOf(response.model || input.client.model, response.usage, response.costUsd)),
    model: response.model,
  });
}

async function executeOne(
  env: PipelineEnv,
  input: PipelineInput,
  effects: TurnEffectsRecorder,
  action: ActionDef,
  call: ToolCall,
  args: unknown,
  ended: Set<string>,
): Promise<void> {
  const { state, logger } = env;
  const task = input.task;
  const started = performance.now();
  if (task) await state.appendEvent(input.sessionId, 'action_start', { callId: call.id, name: action.name, input: args });
  logger.info('ACTION', `${action.name} start (${input.sessionId})`);
  const ctx: ActionContext = {
    sessionId: input.sessionId,
    taskId: task?.id,
    taskMode: task?.mode,
    endApproved: task?.endApproved,
    workspace: env.workspace,
    scratchDir: task ? env.scratchDir(task.id) : undefined,
    turn: effects,
    now: () => env.clock.now(),
    logger,
    remember: (note) => env.remember(note),
    skillNames: env.skillNames(),
    admitTask: () => env.caps?.admitTaskStart(effects.started.length),
    ...(input.signal ? { signal: input.signal } : {}),
    // Live only, to the task's step row of this call; the result keeps the last note.
    ...(task
      ? { progress: (note: string) => state.publish({ type: 'actionProgress', taskId: task.id, callId: call.id, note: env.redact?.(note) ?? note }) }
      : {}),
  };
  let ledgerId: string | undefined;
  try {
    if (action.irreversible) ledgerId = await env.ledger.intent(task?.id ?? input.sessionId, action.name, args);
    const output = await action.run(args, ctx);
    if (ledgerId) await env.ledger.outcome(ledgerId, 'done', output);
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    ended.add(call.id);
    if (task) await state.appendEvent(input.sessionId, 'action_end', { callId: call.id, name: action.name, output: toolResultText(output), durationMs });
    logger.info('ACTION', `${action.name} done in ${durationMs} ms`);
  } catch (error) {
    const stopped = isAbortError(error, input.signal);
    const message = stopped ? `Stopped by the user while it ran${(error as Error).message ? ` (${(error as Error).message})` : ''}.` : (error as Error).message;
    ended.add(call.id);
    if (ledgerId) await env.ledger.outcome(ledgerId, 'failed', { error: message }).catch(() => undefined);
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    if (task) await state.appendEvent(input.sessionId, 'action_end', { callId: call.id, name: action.name, error: message, durationMs });
    else effects.say(`(${action.name} failed: ${message})`);
    logger.warn('ACTION', `${action.name} failed: ${message}`);
  }
}
