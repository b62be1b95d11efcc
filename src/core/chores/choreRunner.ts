/**
 * The chore runner: turns every fire (cron, files, task, Run now, retry) into one run of the
 * chore's task, bounded by the chore's budget, judged by its successWhen, and followed by its
 * failure policy. It plugs into the engine through TaskHooks: the engine claims the fire's durable
 * trigger and asks {@link ChoreRunner.resolveProactive} what to start, asks {@link ChoreRunner.guard}
 * before every model call and action, and reports usage; task events reach the runner through the
 * agent's change stream (the live step trace).
 */
import type { AgentChange, TaskView } from '../engine/types';
import { proactiveTaskId, readChoreFire } from '../engine/triggerPayloads';
import type { ChoreFire, ProactivePayload } from '../engine/triggerPayloads';
import type { GuardPoint, TaskHooks } from '../engine/taskHooks';
import type { TaskRecord } from '../engine/records';
import type { Usage } from '../model/types';
import type { Clock, Logger } from '../ports';
import type { Trigger, TriggerSource, TriggerStore } from '../store/types';
import { compileExpression, evaluateSuccess, finalOutput } from './expressions';
import type { CompiledExpression, SuccessVerdict } from './expressions';
import { buildEscalationPayload, buildReviewPayload } from './escalationPayload';
import type { EscalationResult, SecretPort } from './escalation';
import { sendRunEscalation } from './runEscalation';
import type { ChoreLedgerPort } from './runEscalation';

export type { ChoreLedgerPort } from './runEscalation';
import { ChoreRunBudget } from './runBudget';
import type { BudgetCheck } from './runBudget';
import type { ChoreRunCause, ChoreRunLog, ChoreRunRecord } from './runLog';
import { decideConcurrency, decideFailureAction, decideRunOutcome, retryKey } from './runPolicy';
import type { ChoreRunStatus, RunEnding } from './runPolicy';
import { fireKey } from './schedule';
import type { ChoreDefinition } from './types';
import { describeFireContext, summarizeFireContext } from './fireContext';
import type { ChoreFireContext } from './fireContext';
import type { ChoreSpendLedger, WorkspaceSpendLimits } from './spendLedger';

/** A cron fire delivered later than this after it was due counts as missed for the drift policy. */
const LATE_CRON_FIRE_MS = 2 * 60_000;

/** A chore fire as its durable trigger carries it: one schema, in engine/triggerPayloads.ts. */
export type { ChoreFire } from '../engine/triggerPayloads';

/** What the runner needs from the agent (the engine's public API). */
export interface ChoreAgentPort {
  snapshot(): { tasks: TaskView[] };
  cancelTask(taskId: string): Promise<void>;
  onDidChange(listener: (change: AgentChange) => void): { dispose(): void };
}

export interface ChoreRunnerOptions {
  triggers: Pick<TriggerStore, 'emit' | 'rearm'>;
  runLog: ChoreRunLog;
  /** Cron bookkeeping: a fire stays outstanding until the runner marks it done. */
  scheduler?: { markDone(choreId: string, fireAtMs: number): Promise<void> };
  clock: Clock;
  logger: Logger;
  secrets: SecretPort;
  ledger?: ChoreLedgerPort;
  /** False in an untrusted workspace: fires are recorded as skipped (docs/DESIGN.md §6). */
  canRun?: () => boolean;
  /**
   * Why a chore may not run right now (master switch off, paused by a budget, consent withdrawn),
   * or undefined when it may. Asked when a fire is claimed (the fire is recorded as skipped with
   * this reason) and before every model call and action (the run stops).
   */
  blocked?: (choreId: string) => string | undefined;
  /** Rolling spend per chore and per workspace; without it only the per-run budget applies. */
  spend?: ChoreSpendLedger;
  /** The workspace caps across chores, read at each check (user settings). */
  workspaceLimits?: () => WorkspaceSpendLimits;
  /** Workspace folder name for escalations. */
  workspaceName?: string;
  escalationTimeoutMs?: number;
  /** Told after each escalation (tests, the log). */
  onEscalated?: (run: ChoreRunRecord, results: EscalationResult[]) => void;
  /** Applied to escalation payloads (security/redact.ts); default: credential shapes. */
  redact?: (text: string) => string;
  /**
   * Links to approvals, so a run parked on a review can be decided away from the keyboard. Without
   * it (the CLI: nobody can open VS Code links to its temporary store) no review notice is sent.
   */
  reviewLinks?: ReviewLinkPort;
}

/** What the host tells the runner about an approval a chore task waits for. */
export interface ReviewLinkPort {
  /** An external link that opens the approval in VS Code (the host's URI handler). */
  linkFor(approvalId: string): Promise<string>;
  /** What the approval does, in one line ("Edit README.md"); undefined when it is gone. */
  describe(approvalId: string): Promise<string | undefined>;
}

interface LiveRun {
  chore: ChoreDefinition;
  budget: ChoreRunBudget;
  /** Set when the guard stopped the task: the run ends budget_exhausted. */
  stopped?: Extract<BudgetCheck, { ok: false }>;
  /** The verdict beforeTaskEnd reached, so the end is judged once. */
  verdict?: SuccessVerdict;
  steps: Map<string, number>;
  deadline?: { cancel(): void };
}

// Diagnostics and HEAD moves are workspace state changes, like file events.
const sourceOf: Record<ChoreRunCause, TriggerSource> = {
  cron: 'scheduled',
  files: 'file_event',
  task: 'task_event',
  diagnostics: 'file_event',
  git: 'file_event',
  manual: 'scheduled_immediate',
  retry: 'scheduled',
};
const terminal = new Set(['completed', 'error', 'cancelled']);

/**
 * What every chore task is told besides its prompt: what triggered it (changed files, the task's
 * exit code, how late a scheduled fire is), that nobody is watching, and how success is judged.
 */
export function choreInstruction(
  chore: ChoreDefinition,
  fire?: { cause: ChoreRunCause; fireTime: string; startedAt: number; missed?: boolean; context?: ChoreFireContext },
): string {
  const trigger = fire
    ? describeFireContext({ ...fire, ...(chore.trigger.kind === 'cron' && chore.trigger.timezone ? { timezone: chore.trigger.timezone } : {}) })
    : '';
  return [
    chore.prompt.trim(),
    '',
    ...(trigger ? [trigger, ''] : []),
    `[chore ${chore.id}] This run is unattended: do not ask the user questions. Edits you propose wait in the review inbox; do not wait for them.`,
    chore.successWhen
      ? `When finished call task_end with \`output\`: a JSON object; the run succeeds when the JSONata expression ${chore.successWhen} is true for it.`
      : 'When finished call task_end with a short summary and, if useful, an `output` JSON object.',
  ].join('\n');
}

/** What a fire of a chore is told and given, before the run's ids: see {@link choreStartSpec}. */
export interface ChoreStartSpec {
  prompt: string;
  name: string;
  mode: 'simple';
  actionSets: string[];
  skills: string[];
}

/**
 * The task a fire starts: its instruction (prompt + trigger context), name, mode, action sets and
 * skills. The runner and the dry run (chorePreview.ts) both build it here, so they cannot drift.
 */
export function choreStartSpec(
  chore: ChoreDefinition,
  fire: { cause: ChoreRunCause; fireTime: string; startedAt: number; missed?: boolean; context?: ChoreFireContext },
): ChoreStartSpec {
  return {
    prompt: choreInstruction(chore, fire),
    name: `${chore.name} (chore)`,
    mode: 'simple',
    // Exactly the chore's sets (reading is always given): `actionSets: []` reads and talks only.
    actionSets: [...new Set(chore.actionSets)],
    skills: chore.skills,
  };
}

export class ChoreRunner implements TaskHooks {
  private chores = new Map<string, { def: ChoreDefinition; success?: CompiledExpression }>();
  private readonly live = new Map<string, LiveRun>();
  private agent: ChoreAgentPort | undefined;
  private subscription: { dispose(): void } | undefined;
  /** Run ends in flight, so a change event and a timer cannot end one run twice. */
  private readonly ending = new Set<string>();
  /** `runId:approvalId` already announced, so each parked review is escalated once. */
  private readonly announced = new Set<string>();

  constructor(private readonly options: ChoreRunnerOptions) {}

  /** The loaded chores (after chores.yaml loads or changes). A removed chore's fires are dropped when claimed. */
  setChores(definitions: readonly ChoreDefinition[]): void {
    this.chores = new Map(definitions.map((def) => [def.id, { def, ...(def.successWhen ? { success: compileExpression(def.successWhen) } : {}) }]));
  }

  chore(id: string): ChoreDefinition | undefined {
    return this.chores.get(id)?.def;
  }

  /** Connects the runner to the agent's changes and picks up runs a reload interrupted. */
  async attach(agent: ChoreAgentPort): Promise<void> {
    this.agent = agent;
    this.subscription?.dispose();
    this.subscription = agent.onDidChange((change) => this.onChange(change));
    const tasks = new Map(agent.snapshot().tasks.map((t) => [t.id, t]));
    for (const run of this.options.runLog.active()) {
      const task = run.taskId ? tasks.get(run.taskId) : undefined;
      if (task && (terminal.has(task.status) || task.paused)) await this.onTask(task);
      else if (this.chores.has(run.choreId)) this.liveOf(run);
    }
  }

  dispose(): void {
    this.subscription?.dispose();
    for (const live of this.live.values()) live.deadline?.cancel();
    this.live.clear();
  }

  /** Records a fire as a durable trigger (Run now, a file burst, a task end). Dedup key: chore id + fire time. */
  async fire(choreId: string, cause: Exclude<ChoreRunCause, 'cron' | 'retry'>, detailOrContext?: string | ChoreFireContext): Promise<string> {
    if (!this.chores.has(choreId)) throw new Error(`There is no enabled chore "${choreId}"; check its id and the problems shown on .tasklane/chores.yaml.`);
    const now = this.options.clock.now();
    const key = fireKey(choreId, now);
    const context = typeof detailOrContext === 'object' ? detailOrContext : undefined;
    const detail = context ? summarizeFireContext(context) : (detailOrContext as string | undefined);
    const payload: ChoreFire = {
      kind: 'chore_fire',
      choreId,
      fireTime: new Date(now).toISOString(),
      missed: false,
      cause,
      fireKey: key,
      ...(detail ? { detail } : {}),
      ...(context ? { context } : {}),
    };
    await this.options.triggers.emit({ source: sourceOf[cause], sessionId: `chore:${choreId}`, payload, dedupKey: key });
    this.options.logger.info('CHORE', `chore ${choreId}: fire (${cause}${detail ? `: ${detail}` : ''})`);
    return key;
  }

  /**
   * Records fires the drift policy dropped (the scheduler's `onDropped`): each becomes a `missed`
   * or `skipped` history entry dated at its scheduled time. Idempotent per fire.
   */
  async recordDropped(choreId: string, dropped: ReadonlyArray<{ fireAt: number; status: 'missed' | 'skipped'; reason: string }>): Promise<void> {
    for (const d of dropped) {
      await this.options.runLog.recordSkipped({
        choreId,
        fireKey: fireKey(choreId, d.fireAt),
        cause: 'cron',
        reason: d.reason,
        status: d.status,
        at: d.fireAt,
      });
    }
  }

  private blockedReason(chore: ChoreDefinition): string | undefined {
    if (chore.enabled === false) return 'disabled in .tasklane/chores.yaml (enabled: false)';
    const paused = this.options.spend?.paused(chore.id);
    if (paused) return `paused since ${new Date(paused.at).toISOString()}: ${paused.reason}; resume it with "Tasklane: Resume Chore" or the sidebar's Resume`;
    return this.options.blocked?.(chore.id);
  }

  /** The first rolling cap (the chore's per day / month, the workspace's) already reached, if any. */
  private checkSpend(chore: ChoreDefinition): string | undefined {
    const { spend, workspaceLimits } = this.options;
    if (!spend) return undefined;
    const check = spend.check(chore.id, chore.spendLimits ?? {}, workspaceLimits?.() ?? { maxCostUsdPerDay: 0, maxCostUsdPerMonth: 0 });
    return check.ok ? undefined : check.message;
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
      await runLog.recordSkipped({ choreId: fire.choreId, fireKey: key, cause, reason });
      await this.markDone(fire.choreId, firedAt);
      return undefined;
    };
    // Every fire ends as a run or as an entry saying why it did not run.
    if (!entry) return skip(this.options.blocked?.(fire.choreId) ?? 'the chore is no longer defined in .tasklane/chores.yaml, or not enabled on this machine');
    if (this.options.canRun && !this.options.canRun()) return skip('the workspace is not trusted (Restricted Mode): chores do not run');
    const blocked = this.blockedReason(entry.def);
    if (blocked) return skip(blocked);
    // A cron fire queued before VS Code closed and delivered late follows the drift policy like
    // a fire missed while it was closed: with drift skip it does not run.
    const lateMs = clock.now() - trigger.fireAt;
    if (cause === 'cron' && !fire.missed && attempt === 0 && entry.def.drift === 'skip' && lateMs > LATE_CRON_FIRE_MS) {
      return skip(`the fire of ${fire.fireTime} was delivered ${Math.round(lateMs / 60_000)} min late (VS Code was closed or asleep); drift: skip`);
    }
    const active = runLog.active().find((r) => r.choreId === fire.choreId);
    const decision = decideConcurrency(entry.def, active, { firedAt }, clock.now());
    switch (decision.kind) {
      case 'skip':
      case 'drop':
        logger.info('CHORE', `chore ${fire.choreId}: fire ${fire.fireTime} not run: ${decision.reason}`);
        await runLog.recordSkipped({ choreId: fire.choreId, fireKey: key, cause, reason: decision.reason });
        await this.markDone(fire.choreId, firedAt);
        return undefined;
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
    return this.startPayload(entry.def, run, trigger, fire);
  }

  guard(task: TaskRecord, point: GuardPoint): string | undefined {
    const run = this.runOf(task);
    if (!run) return undefined;
    if (run.status !== 'running') return `This chore run already ended (${run.status}); stop here.`;
    const entry = this.chores.get(run.choreId);
    if (!entry) return `The chore ${run.choreId} was removed or disabled; stop here.`;
    const blocked = this.blockedReason(entry.def);
    if (blocked) return `This chore may not run now (${blocked}); stop here.`;
    const live = this.liveOf(run);
    if (live.stopped) return `Chore budget exhausted: ${live.stopped.message}`;
    const rolling = point === 'model' ? this.checkSpend(entry.def) : undefined;
    if (rolling) {
      live.stopped = { ok: false, exhausted: 'rollingCost', message: rolling };
      this.options.logger.warn('CHORE', `run ${run.runId} of ${run.choreId}: stopped before a model call: ${rolling}; the chore is paused`);
      void this.options.spend?.pause(run.choreId, rolling).catch((e) => this.options.logger.error('CHORE', `could not pause chore ${run.choreId}`, e));
      return `Chore budget exhausted: ${rolling}`;
    }
    const check = live.budget.check(point === 'action' ? ['iterations'] : []);
    if (check.ok) return undefined;
    live.stopped = check;
    this.options.logger.warn(
      'CHORE',
      `run ${run.runId} of ${run.choreId}: budget exhausted before ${point === 'model' ? 'a model call' : 'an action'}: ${check.message}`,
    );
    return `Chore budget exhausted: ${check.message}`;
  }

  modelCalled(task: TaskRecord, usage: Usage, costUsd: number): void {
    const run = this.runOf(task);
    if (!run || run.status !== 'running' || !this.chores.has(run.choreId)) return;
    const live = this.liveOf(run);
    live.budget.recordModelCall(usage, costUsd);
    this.options.spend?.add(run.choreId, costUsd);
    this.options.runLog.updateUsage(run.runId, live.budget.totals());
  }

  async beforeTaskEnd(
    task: TaskRecord,
    result: { status: 'completed' | 'error'; summary: string; output?: Record<string, unknown> },
  ): Promise<string | undefined> {
    const run = this.runOf(task);
    const entry = run && this.chores.get(run.choreId);
    if (!run || !entry?.success || run.status !== 'running' || result.status !== 'completed') return undefined;
    const live = this.liveOf(run);
    const verdict = await evaluateSuccess(entry.success, finalOutput(result.output, result.summary));
    const decision = decideRunOutcome({ kind: 'task_end', verdict }, live.budget.iterationsLeft());
    if (decision.kind === 'continue') {
      this.options.logger.info('CHORE', `run ${run.runId}: successWhen not met; one more turn`);
      return decision.message;
    }
    live.verdict = verdict;
    return undefined;
  }

  // ---- run lifecycle ----

  private async startPayload(chore: ChoreDefinition, run: ChoreRunRecord, trigger: Trigger, fire: ChoreFire): Promise<ProactivePayload> {
    await this.options.runLog.linkTask(run.runId, proactiveTaskId(trigger));
    this.liveOf(run);
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

  /** The in-memory side of a running run, rebuilt from its record after a reload. */
  private liveOf(run: ChoreRunRecord): LiveRun {
    let live = this.live.get(run.runId);
    if (live) return live;
    const chore = this.chores.get(run.choreId)?.def;
    if (!chore) throw new Error(`chore ${run.choreId} of run ${run.runId} is not loaded`);
    live = { chore, budget: new ChoreRunBudget(chore.budget, this.options.clock, run.startedAt, run.usage), steps: new Map() };
    const due = run.startedAt + chore.budget.maxSeconds * 1000 - this.options.clock.now();
    live.deadline = this.options.clock.setTimeout(
      () => void this.onDeadline(run.runId).catch((e) => this.options.logger.error('CHORE', `run ${run.runId}: deadline handling failed`, e)),
      Math.max(0, due),
    );
    this.live.set(run.runId, live);
    return live;
  }

  private onChange(change: AgentChange): void {
    if (change.type === 'task' && change.task.source.startsWith('chore:') && (terminal.has(change.task.status) || change.task.paused)) {
      void this.onTask(change.task).catch((e) => this.options.logger.error('CHORE', `could not record the end of task ${change.task.id}`, e));
    } else if (change.type === 'task' && change.task.waitingForApproval && change.task.status === 'running') {
      void this.announceReview(change.task, change.task.waitingForApproval).catch((e) =>
        this.options.logger.error('CHORE', `could not announce the review task ${change.task.id} waits for`, e),
      );
    } else if (change.type === 'taskEvent' && (change.event.kind === 'action_start' || change.event.kind === 'action_end')) {
      const run = this.options.runLog.activeForTask(change.taskId);
      if (run && this.chores.has(run.choreId)) this.traceStep(run, change.event.kind, change.event.data);
    }
  }

  private traceStep(run: ChoreRunRecord, kind: 'action_start' | 'action_end', data: Record<string, unknown>): void {
    const live = this.liveOf(run);
    const callId = String(data.callId ?? '');
    const name = String(data.name ?? 'action');
    if (kind === 'action_start') {
      live.steps.set(callId, this.options.runLog.stepStarted(run.runId, name, data.input ?? {}));
      return;
    }
    // An invalid call (repaired) ends without having started.
    const stepId = live.steps.get(callId) ?? this.options.runLog.stepStarted(run.runId, name, '(not run)');
    live.steps.delete(callId);
    const failed = data.error !== undefined;
    this.options.runLog.stepEnded(run.runId, stepId, failed ? 'error' : 'ok', failed ? data.error : data.output);
  }

  private async onTask(task: TaskView): Promise<void> {
    const run = this.options.runLog.activeForTask(task.id);
    if (!run) return;
    const live = this.chores.has(run.choreId) ? this.liveOf(run) : undefined;
    let ending: RunEnding;
    if (live?.stopped) ending = { kind: 'budget_exhausted', limit: live.stopped.exhausted, message: live.stopped.message };
    else if (task.paused)
      ending =
        task.pauseReason === 'budget'
          ? { kind: 'budget_exhausted', limit: 'iterations', message: "the task reached the extension's per-task budget (tasklane.budget.*)" }
          : { kind: 'error', message: 'the model failed repeatedly; the task was stopped (see the log)' };
    else if (task.status === 'cancelled') ending = { kind: 'cancelled', reason: task.finalSummary ?? 'cancelled' };
    else if (task.status === 'error') ending = { kind: 'error', message: task.finalSummary ?? 'the task ended with an error' };
    else {
      const success = this.chores.get(run.choreId)?.success;
      const verdict = live?.verdict ?? (success ? await evaluateSuccess(success, finalOutput(task.output, task.finalSummary)) : undefined);
      ending = { kind: 'task_end', ...(verdict ? { verdict } : {}) };
    }
    // A paused chore task has nobody to press Continue: stop it.
    await this.endRun(run, ending, task.paused);
  }

  private async onDeadline(runId: string): Promise<void> {
    const run = this.options.runLog.get(runId);
    if (!run || run.status !== 'running') return;
    const task = run.taskId ? this.agent?.snapshot().tasks.find((t) => t.id === run.taskId) : undefined;
    const seconds = this.live.get(runId)?.chore.budget.maxSeconds;
    if (task?.waitingForApproval) {
      await this.endRun(run, { kind: 'approval_timeout', pendingApprovals: 1 }, false);
    } else if (!task || task.waitingForUser || task.paused) {
      await this.endRun(run, { kind: 'budget_exhausted', limit: 'seconds', message: `ran for ${seconds} s (budget.maxSeconds)` }, Boolean(task));
    }
    // A turn in flight is stopped by the guard at its next model call or action.
  }

  /** Ends a run (once), then applies the failure policy and releases its fire. */
  private async endRun(run: ChoreRunRecord, ending: RunEnding, cancelTask: boolean): Promise<void> {
    if (this.ending.has(run.runId) || run.status !== 'running') return;
    this.ending.add(run.runId);
    try {
      const live = this.live.get(run.runId);
      live?.deadline?.cancel();
      this.live.delete(run.runId);
      const decision = decideRunOutcome(ending, 0);
      const status: Exclude<ChoreRunStatus, 'running'> = decision.kind === 'end' ? decision.status : 'failed';
      const reason = decision.kind === 'end' ? decision.reason : undefined;
      if (live) this.options.runLog.updateUsage(run.runId, live.budget.totals());
      const ended = await this.options.runLog.finish(run.runId, status, reason);
      this.options.logger.info('CHORE', `run ${run.runId} of ${run.choreId} ended ${status}${reason ? `: ${reason}` : ''}`);
      if (cancelTask && run.taskId) await this.agent?.cancelTask(run.taskId).catch(() => undefined);
      const chore = this.chores.get(run.choreId)?.def;
      if (chore) await this.applyFailurePolicy(chore, ended);
      await this.markDone(run.choreId, fireTimeOf(run));
    } finally {
      this.ending.delete(run.runId);
    }
  }

  private async applyFailurePolicy(chore: ChoreDefinition, run: ChoreRunRecord): Promise<void> {
    const action = decideFailureAction(chore, run.status, run.attempt);
    if (action.kind === 'retry') {
      const fireAt = this.options.clock.now() + action.delayMs;
      const firedAt = fireTimeOf(run);
      const payload: ChoreFire = {
        kind: 'chore_fire',
        choreId: chore.id,
        fireTime: new Date(firedAt).toISOString(),
        missed: false,
        cause: 'retry',
        attempt: action.attempt,
        fireKey: run.fireKey,
        ...(run.context ? { context: run.context } : {}),
      };
      await this.options.triggers.emit({
        source: 'scheduled',
        sessionId: `chore:${chore.id}`,
        payload,
        fireAt,
        dedupKey: retryKey(run.fireKey, action.attempt),
      });
      this.options.logger.info('CHORE', `run ${run.runId}: retry ${action.attempt} in ${Math.round(action.delayMs / 1000)} s`);
    } else if (action.kind === 'escalate') {
      await this.escalate(chore, run);
    } else if (action.kind === 'silent') {
      this.options.logger.info('CHORE', `run ${run.runId} ended ${run.status}; onFailure is silent`);
    }
  }

  private async escalate(chore: ChoreDefinition, run: ChoreRunRecord): Promise<void> {
    if (!chore.escalate) return;
    const payload = buildEscalationPayload(chore, run, this.options.workspaceName, this.options.redact);
    const results = await sendRunEscalation(this.options, chore.escalate, payload, 'chore_escalation', { choreId: chore.id, runId: run.runId });
    this.options.onEscalated?.(run, results);
  }

  /**
   * A chore task parked on an approval: when the chore has escalation channels (and onFailure is
   * not `silent`, which asks for no messages), tell them what waits and give the link that opens
   * it. The run stays open and spends nothing while it waits; the decision wakes the task.
   */
  private async announceReview(task: TaskView, approvalId: string): Promise<void> {
    const { reviewLinks } = this.options;
    const run = this.options.runLog.activeForTask(task.id) ?? this.runOf(task);
    const chore = run && this.chores.get(run.choreId)?.def;
    if (!reviewLinks || !run || run.status !== 'running' || !chore?.escalate || chore.onFailure === 'silent') return;
    const key = `${run.runId}:${approvalId}`;
    if (this.announced.has(key)) return;
    this.announced.add(key);
    const summary = await reviewLinks.describe(approvalId);
    if (summary === undefined) return; // Decided or gone before we got here: nothing to ask for.
    const link = await reviewLinks.linkFor(approvalId);
    const payload = buildReviewPayload(chore, run, { id: approvalId, summary, link }, this.options.workspaceName, this.options.redact);
    const results = await sendRunEscalation(this.options, chore.escalate, payload, 'chore_review_notice', { choreId: chore.id, runId: run.runId, approvalId });
    this.options.logger.info(
      'CHORE',
      `run ${run.runId} of ${chore.id} waits for review of ${approvalId}; told ${
        results
          .filter((r) => r.ok)
          .map((r) => r.channel)
          .join(', ') || 'no channel'
      }`,
    );
    this.options.onEscalated?.(run, results);
  }

  private async markDone(choreId: string, firedAt: number): Promise<void> {
    if (Number.isFinite(firedAt)) await this.options.scheduler?.markDone(choreId, firedAt);
  }
}

/** The fire time a run stands for (the tail of its fire key). */
function fireTimeOf(run: ChoreRunRecord): number {
  return Date.parse(run.fireKey.slice(`chore:${run.choreId}:`.length));
}
