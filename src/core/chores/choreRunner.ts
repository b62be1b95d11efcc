/**
 * The chore runner: turns every fire (cron, files, task, Run now, retry) into one run of the chore's task, bounded by the
 * chore's budget, judged by its successWhen, and followed by its failure policy. It plugs into the engine through TaskHooks:
 * the engine claims the fire's durable trigger and asks {@link ChoreRunner.resolveProactive} what to start, asks
 * {@link ChoreRunner.guard} before every model call and action, and reports usage; task events reach the runner through the
 * agent's change stream (the live step trace). The runner orchestrates one run; the parts live beside it: what the task is
 * told (choreStartSpec.ts), how fires are written (choreFires.ts), why a chore may not run now (runGates.ts), the pure
 * decisions (runPolicy.ts), carrying out onFailure (failurePolicy.ts), telling a person about a review a run waits for
 * (reviewNotice.ts) or a pause at its budget (pauseNotice.ts), a running run's budget, deadline and step trace (liveRuns.ts)
 * and what the runner is built from (choreRunnerOptions.ts).
 */
import type { AgentChange, TaskView } from '../engine/types';
import { proactiveTaskId, readChoreFire } from '../engine/triggerPayloads';
import type { ChoreFire, ProactivePayload } from '../engine/triggerPayloads';
import type { GuardPoint, GuardStop, TaskEventRecorder, TaskHooks, TurnWithoutEnd } from '../engine/taskHooks';
import type { TaskRecord } from '../engine/records';
import type { Usage } from '../model/types';
import type { Trigger } from '../store/types';
import { compileExpression, evaluateSuccess, finalOutput } from './expressions';
import type { CompiledExpression } from './expressions';
import { recordFire } from './choreFires';
import { choreStartSpec } from './choreStartSpec';
import { applyFailurePolicy } from './failurePolicy';
import { RunTracking } from './runTracking';
import { ReviewNotices } from './reviewNotice';
import { PauseNotices } from './pauseNotice';
import { blockedReason, declaredCommands, declaredMcp, rollingCapReached, whyNotStart } from './runGates';
import { LiveRuns } from './liveRuns';
import { budgetStop, parkAtBudget, unpark } from './budgetPause';
import type { ChoreRunCause, ChoreRunRecord } from './runLog';
import { decideConcurrency, decideRunOutcome, stoppedTaskEnding } from './runPolicy';
import type { ChoreRunStatus, RunEnding } from './runPolicy';
import { fireKey, fireTimeOf } from './schedule';
import type { ChoreDefinition } from './types';
import type { ChoreFireContext } from './fireContext';
import type { ChoreAgentPort, ChoreRunnerOptions } from './choreRunnerOptions';
import { acceptedAsOutput, jsonInProse, terminalAnswer } from './turnEndings';
import { checkedEnding, judgeRunChecks, recordedChecksFailure } from './runChecks';

export type { ChoreAgentPort, ChoreRunnerOptions } from './choreRunnerOptions';

const terminal = new Set(['completed', 'error', 'cancelled']);

/** What an unattended task is told once after a turn that ended without task_end (written for the model). */
const NUDGE =
  'This chore run is unattended: nobody reads text replies or answers questions. If the work is done, call task_end now with your `output` JSON object. If it cannot be done, call task_end with status "error" (or an output whose status is "needs_human") and say why. Do not reply in plain text.';

export class ChoreRunner implements TaskHooks {
  private chores = new Map<string, { def: ChoreDefinition; success?: CompiledExpression }>();
  /** The in-memory side of running runs: budgets, deadlines, step traces (liveRuns.ts). */
  private readonly live: LiveRuns;
  private agent: ChoreAgentPort | undefined;
  private subscription: { dispose(): void } | undefined;
  /** Run ends in flight, so a change event and a timer cannot end one run twice. */
  private readonly ending = new Set<string>();
  private readonly reviews: ReviewNotices;
  private readonly pauses: PauseNotices;
  private readonly tracking: RunTracking;

  constructor(private readonly options: ChoreRunnerOptions) {
    [this.reviews, this.pauses, this.tracking] = [new ReviewNotices(options), new PauseNotices(options), new RunTracking(options.logger)];
    this.live = new LiveRuns({
      runLog: options.runLog,
      clock: options.clock,
      chore: (id) => this.chore(id),
      onDeadline: (runId) => void this.tracking.track(this.onDeadline(runId), `run ${runId}: deadline handling failed`),
    });
  }

  /** The loaded chores (after chores.yaml loads or changes). A removed chore's fires are dropped when claimed. */
  setChores(definitions: readonly ChoreDefinition[]): void {
    const chores = new Map<string, { def: ChoreDefinition; success?: CompiledExpression }>();
    for (const def of definitions) {
      // The loader validates with the same compileExpression; one that still fails here (a file
      // that bypassed the loader) leaves this chore out, never the whole list.
      try {
        chores.set(def.id, { def, ...(def.successWhen ? { success: compileExpression(def.successWhen) } : {}) });
      } catch (error) {
        this.options.logger.warn('CHORE', `chore ${def.id} is left out: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    this.chores = chores;
  }

  chore(id: string): ChoreDefinition | undefined {
    return this.chores.get(id)?.def;
  }

  /** What a task of this chore may run without asking (runGates.ts `declaredCommands`). */
  declaredCommands(choreId: string): readonly string[] {
    return declaredCommands(this.options, this.chore(choreId));
  }

  /** The MCP tools a task of this chore may call without asking, by server (runGates.ts `declaredMcp`). */
  declaredMcp(choreId: string): Readonly<Record<string, readonly string[]>> {
    return declaredMcp(this.options, this.chore(choreId));
  }

  /** Connects the runner to the agent's changes and picks up runs a reload interrupted. */
  async attach(agent: ChoreAgentPort): Promise<void> {
    this.agent = agent;
    this.subscription?.dispose();
    this.subscription = agent.views.onDidChange((change) => this.onChange(change));
    const tasks = new Map(agent.views.snapshot().tasks.map((t) => [t.id, t]));
    for (const run of this.options.runLog.active()) {
      const task = run.taskId ? tasks.get(run.taskId) : undefined;
      if (task && (terminal.has(task.status) || task.paused)) await this.onTask(task);
      else if (this.chores.has(run.choreId)) this.live.of(run);
    }
  }

  /** Told when a fire's history entry is final: a run ended, or the fire was skipped or missed. */
  onRunEnded(listener: (run: ChoreRunRecord) => void): { dispose(): void } {
    return this.tracking.onRunEnded(listener);
  }

  /** Resolves once no work the runner started on its own (ending a run, a review notice, a pause) is in flight. */
  settled(): Promise<void> {
    return this.tracking.settled();
  }

  dispose(): void {
    this.subscription?.dispose();
    this.live.dispose();
  }

  /** Records a fire as a durable trigger (Run now, a file burst, a task end). Dedup key: chore id + fire time. */
  async fire(choreId: string, cause: Exclude<ChoreRunCause, 'cron' | 'retry'>, detailOrContext?: string | ChoreFireContext): Promise<string> {
    if (!this.chores.has(choreId)) throw new Error(`There is no enabled chore "${choreId}"; check its id and the problems shown on .tasklane/chores.yaml.`);
    return recordFire(this.options, choreId, cause, detailOrContext);
  }

  /**
   * Records fires the drift policy dropped (the scheduler's `onDropped`): each becomes a `missed`
   * or `skipped` history entry dated at its scheduled time. Idempotent per fire.
   */
  async recordDropped(choreId: string, dropped: ReadonlyArray<{ fireAt: number; status: 'missed' | 'skipped'; reason: string }>): Promise<void> {
    for (const { reason, status, fireAt: at } of dropped)
      this.tracking.ended(await this.options.runLog.recordSkipped({ choreId, fireKey: fireKey(choreId, at), cause: 'cron', reason, status, at }));
  }

  // ---- engine hooks ----

  async resolveProactive(trigger: Trigger): Promise<ProactivePayload | undefined> {
    // Validated, never cast: an invalid fire throws InvalidTriggerPayload and is dead-lettered.
    const fire = readChoreFire(trigger);
    const { runLog, clock, logger } = this.options;
    const firedAt = Date.parse(fire.fireTime);
    const key = fire.fireKey ?? fireKey(fire.choreId, firedAt);
    const attempt = fire.attempt ?? 0;
    const cause = fire.cause ?? 'cron';
    const entry = this.chores.get(fire.choreId);
    const existing = runLog.findByFire(key, attempt);
    if (existing) {
      // Redelivered after a crash between claim and ack: resume the run, never start a second.
      if (existing.status === 'running' && entry) return this.startPayload(entry.def, existing, trigger, fire);
      await this.markDone(fire.choreId, firedAt);
      return undefined;
    }
    const skip = async (reason: string): Promise<undefined> => {
      logger.info('CHORE', `chore ${fire.choreId}: fire ${fire.fireTime} not run: ${reason}`);
      const skipped = await runLog.recordSkipped({ choreId: fire.choreId, fireKey: key, cause, reason });
      await this.markDone(fire.choreId, firedAt);
      this.tracking.ended(skipped);
      return undefined;
    };
    // Every fire ends as a run or as an entry saying why it did not run.
    if (!entry) return skip(this.options.blocked?.(fire.choreId) ?? 'the chore is no longer defined in .tasklane/chores.yaml, or not enabled on this machine');
    const notNow = whyNotStart(this.options, entry.def, { cause, attempt, missed: fire.missed, fireTime: fire.fireTime }, trigger.fireAt);
    if (notNow) return skip(notNow);
    const active = runLog.active().find((r) => r.choreId === fire.choreId);
    const decision = decideConcurrency(entry.def, active, { firedAt }, clock.now());
    switch (decision.kind) {
      case 'skip':
      case 'drop':
        return skip(decision.reason);
      case 'wait':
        // The queue is the durable trigger itself, re-armed: it survives a reload.
        await this.options.triggers.rearm(trigger.id, decision.recheckAt);
        return undefined;
      case 'replace':
        await this.endRun(active!, { kind: 'cancelled', reason: `replaced by the fire of ${fire.fireTime} (concurrency: replace)` }, true);
        break;
      case 'start':
        break;
    }
    const { run } = await runLog.start({ choreId: fire.choreId, fireKey: key, attempt, cause, ...(fire.context ? { context: fire.context } : {}) });
    logger.info('CHORE', `chore ${fire.choreId}: run ${run.runId} started (${cause}${attempt ? `, retry ${attempt}` : ''})`);
    try {
      await this.options.prepare?.(entry.def);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logger.error('CHORE', `chore ${fire.choreId}: run ${run.runId} cannot start: ${message}`);
      await this.endRun(run, { kind: 'error', message }, false);
      return undefined;
    }
    return this.startPayload(entry.def, run, trigger, fire);
  }

  guard(task: TaskRecord, point: GuardPoint): GuardStop | undefined {
    const run = this.runOf(task);
    if (!run) return undefined;
    if (run.status !== 'running') return `This chore run already ended (${run.status}); stop here.`;
    const entry = this.chores.get(run.choreId);
    if (!entry) return `The chore ${run.choreId} was removed or disabled; stop here.`;
    const blocked = blockedReason(this.options, entry.def);
    if (blocked) return `This chore may not run now (${blocked}); stop here.`;
    // Continue on a task whose run is parked at a budget resumes the run too (budgetPause.ts).
    if (run.parked) unpark(this.options.runLog, this.live, run, entry.def.budget, this.options.clock.now());
    const live = this.live.of(run);
    if (live.stopped) return budgetStop(live.stopped, this.options.parkAtBudget);
    const rolling = point === 'model' ? rollingCapReached(this.options, entry.def) : undefined;
    if (rolling) {
      live.stopped = { ok: false, exhausted: 'rollingCost', message: rolling };
      this.options.logger.warn('CHORE', `run ${run.runId} of ${run.choreId}: stopped before a model call: ${rolling}; the chore is paused`);
      if (this.options.spend) void this.tracking.track(this.options.spend.pause(run.choreId, rolling), `could not pause chore ${run.choreId}`);
      return `Chore budget exhausted: ${rolling}`;
    }
    const check = live.budget.check(point === 'action' ? ['iterations'] : []);
    if (check.ok) return undefined;
    live.stopped = check;
    this.options.logger.warn('CHORE', `run ${run.runId} of ${run.choreId}: budget reached (before the next ${point}): ${check.message}`);
    return budgetStop(check, this.options.parkAtBudget);
  }

  modelCalled(task: TaskRecord, usage: Usage, costUsd: number, costEstimated = false): void {
    const run = this.runOf(task);
    if (!run || run.status !== 'running' || !this.chores.has(run.choreId)) return;
    const live = this.live.of(run);
    live.budget.recordModelCall(usage, costUsd, costEstimated);
    this.options.spend?.add(run.choreId, costUsd);
    this.options.runLog.updateUsage(run.runId, live.budget.totals());
  }

  async beforeTaskEnd(
    task: TaskRecord,
    result: { status: 'completed' | 'error'; summary: string; output?: Record<string, unknown> },
    signal?: AbortSignal,
    record?: TaskEventRecorder,
  ): Promise<string | undefined> {
    const run = this.runOf(task);
    const entry = run && this.chores.get(run.choreId);
    if (!run || !entry || run.status !== 'running' || result.status !== 'completed') return undefined;
    const output = finalOutput(result.output, result.summary);
    // An honest give-up ends the run (onTask reads it from the task's output): never re-prompted.
    if (terminalAnswer(output, entry.def.terminalStatuses)) return undefined;
    const live = this.live.of(run);
    if (entry.success) {
      const verdict = await evaluateSuccess(entry.success, output);
      // One more turn at most per run (README: "one more turn"), not one per iteration left.
      const decision = decideRunOutcome({ kind: 'task_end', verdict }, live.reprompted ? 0 : live.budget.iterationsLeft());
      if (decision.kind === 'continue') {
        live.reprompted = true;
        this.options.logger.info('CHORE', `run ${run.runId}: successWhen not met; one more turn`);
        return decision.message;
      }
      live.verdict = verdict;
      // An output successWhen refuses fails the run whatever the checks say: no need to run them.
      if (verdict.result !== 'true') return undefined;
    }
    // Only the run's own task is checked: a task it started ends into it, it does not end the run.
    if (run.taskId !== task.id) return undefined;
    const checked = await judgeRunChecks(this.options, entry.def, run, task.id, signal, record);
    if (checked?.kind === 'retry') return checked.message;
    if (checked) live.checked = checked;
    return undefined;
  }

  /**
   * A chore task's turn ended with text or a question and no task_end. Nobody answers a chore, so
   * waiting would only idle until maxSeconds: the first time the task is nudged to call task_end;
   * the next time the run ends, on the last JSON object the agent wrote in prose if the chore can
   * judge it (successWhen is then evaluated as for task_end), else failed "ended without task_end".
   */
  async turnWithoutEnd(task: TaskRecord, turn: { text: string }): Promise<TurnWithoutEnd | undefined> {
    const run = this.runOf(task);
    const entry = run && this.chores.get(run.choreId);
    if (!run || !entry || run.status !== 'running') return undefined;
    const live = this.live.of(run);
    const found = jsonInProse(turn.text);
    if (found && acceptedAsOutput(entry.success ? await evaluateSuccess(entry.success, found) : undefined)) live.proseOutput = found;
    if (!live.nudged) {
      live.nudged = true;
      this.options.logger.info('CHORE', `run ${run.runId}: a turn ended without task_end; nudged once`);
      return { kind: 'nudge', message: NUDGE };
    }
    const said = turn.text.replace(/\s+/g, ' ').slice(0, 300);
    if (live.proseOutput) {
      this.options.logger.info('CHORE', `run ${run.runId}: no task_end after a nudge; the JSON the agent wrote is its output`);
      return { kind: 'end', result: { status: 'completed', summary: said || 'The agent wrote its output as text.', output: live.proseOutput } };
    }
    return { kind: 'end', result: { status: 'error', summary: `ended without task_end: the agent answered in text after a nudge ("${said}")` } };
  }

  // ---- run lifecycle ----

  private async startPayload(chore: ChoreDefinition, run: ChoreRunRecord, trigger: Trigger, fire: ChoreFire): Promise<ProactivePayload> {
    await this.options.runLog.linkTask(run.runId, proactiveTaskId(trigger));
    this.live.of(run);
    return {
      ...choreStartSpec(chore, {
        cause: run.cause,
        fireTime: fire.fireTime,
        startedAt: run.startedAt,
        missed: fire.missed,
        ...(fire.context ? { context: fire.context } : {}),
      }),
      choreId: chore.id,
      runId: run.runId,
    };
  }

  /** The run a task works for: its own, or (for a task a chore task started, transitively) the root's. */
  private runOf(task: Pick<TaskRecord, 'id' | 'source' | 'chore'>): ChoreRunRecord | undefined {
    if (task.chore) return this.options.runLog.get(task.chore.runId);
    if (!task.source.startsWith('chore:')) return undefined;
    return this.options.runLog.activeForTask(task.id) ?? this.options.runLog.history(task.source.slice('chore:'.length)).find((r) => r.taskId === task.id);
  }

  private onChange(change: AgentChange): void {
    if (change.type === 'task' && change.task.source.startsWith('chore:') && (terminal.has(change.task.status) || change.task.paused)) {
      void this.tracking.track(this.onTask(change.task), `could not record the end of task ${change.task.id}`);
    } else if (change.type === 'task' && change.task.waitingForApproval && change.task.status === 'running') {
      void this.tracking.track(
        this.announceReview(change.task, change.task.waitingForApproval),
        `could not announce the review task ${change.task.id} waits for`,
      );
    } else if (change.type === 'taskEvent' && (change.event.kind === 'action_start' || change.event.kind === 'action_end')) {
      const run = this.options.runLog.activeForTask(change.taskId);
      if (run && this.chores.has(run.choreId)) this.live.traceStep(run, change.event.kind, change.event.data);
    }
  }

  private async onTask(task: TaskView): Promise<void> {
    const run = this.options.runLog.activeForTask(task.id);
    if (!run) return;
    const parked = this.options.parkAtBudget && (await parkAtBudget(this.options.runLog, this.live, run, task));
    if (parked) return parked === 'parked' ? this.pauses.announce(run, this.chore(run.choreId)) : undefined; // once: a reload finds it 'kept'
    const live = this.chores.has(run.choreId) ? this.live.of(run) : undefined;
    let ending = stoppedTaskEnding(task, live?.stopped);
    const declared = this.chores.get(run.choreId)?.def.terminalStatuses;
    const gaveUp = !ending && task.status === 'completed' ? terminalAnswer(finalOutput(task.output, task.finalSummary), declared) : undefined;
    if (gaveUp) ending = { kind: 'gave_up', ...gaveUp };
    if (!ending) {
      const success = this.chores.get(run.choreId)?.success;
      const verdict = live?.verdict ?? (success ? await evaluateSuccess(success, finalOutput(task.output, task.finalSummary)) : undefined);
      ending = checkedEnding(live?.checked, recordedChecksFailure(this.chore(run.choreId), run), verdict);
    }
    // A task paused other than at a budget (Stop, model errors) has nobody to press Continue: stop it.
    await this.endRun(run, ending, task.paused);
  }

  private async onDeadline(runId: string): Promise<void> {
    const run = this.options.runLog.get(runId);
    if (!run || run.status !== 'running') return;
    const task = run.taskId ? this.agent?.views.snapshot().tasks.find((t) => t.id === run.taskId) : undefined;
    const seconds = this.live.peek(runId)?.chore.budget.maxSeconds;
    if (task?.waitingForApproval) {
      await this.endRun(run, { kind: 'approval_timeout', pendingApprovals: 1 }, false);
      return;
    }
    // maxSeconds is a wall clock: whatever the task does at the deadline (a turn in flight, a
    // `wait`, a retry's backoff, a question), the run ends now and the task is cancelled, so the
    // concurrency slot is free and the failure policy runs on time.
    await this.endRun(run, { kind: 'budget_exhausted', limit: 'seconds', message: `ran for ${seconds} s (budget.maxSeconds)` }, Boolean(task));
  }

  /** Ends a run (once), then applies the failure policy and releases its fire. */
  private async endRun(run: ChoreRunRecord, ending: RunEnding, cancelTask: boolean): Promise<void> {
    if (this.ending.has(run.runId) || run.status !== 'running') return;
    this.ending.add(run.runId);
    try {
      const live = this.live.take(run.runId);
      const decision = decideRunOutcome(ending, 0);
      const status: Exclude<ChoreRunStatus, 'running'> = decision.kind === 'end' ? decision.status : 'failed';
      const reason = decision.kind === 'end' ? decision.reason : undefined;
      if (live) this.options.runLog.updateUsage(run.runId, live.budget.totals());
      const ended = await this.options.runLog.finish(run.runId, status, reason);
      this.options.logger.info('CHORE', `run ${run.runId} of ${run.choreId} ended ${status}${reason ? `: ${reason}` : ''}`);
      if (cancelTask && run.taskId) await this.agent?.cancelTask(run.taskId).catch(() => undefined);
      const chore = this.chores.get(run.choreId)?.def;
      // A give-up is not retried: the same run would give up again; it escalates per policy.
      if (chore) await applyFailurePolicy(this.options, chore, ended, ending.kind !== 'gave_up');
      await this.markDone(run.choreId, fireTimeOf(run));
      this.tracking.ended(ended);
    } finally {
      this.ending.delete(run.runId);
    }
  }

  /** A chore task parked on an approval: the review notice (reviewNotice.ts) tells the chore's channels. */
  private async announceReview(task: TaskView, approvalId: string): Promise<void> {
    const run = this.options.runLog.activeForTask(task.id) ?? this.runOf(task);
    await this.reviews.announce(run, run && this.chores.get(run.choreId)?.def, approvalId);
  }

  private async markDone(choreId: string, firedAt: number): Promise<void> {
    if (Number.isFinite(firedAt)) await this.options.scheduler?.markDone(choreId, firedAt);
  }
}
