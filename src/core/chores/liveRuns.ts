/**
 * The in-memory side of each running chore run: its budget, its deadline timer and the steps its
 * trace has open. Rebuilt from the run's record after a reload (`of`), dropped when it ends (`take`).
 */
import type { Clock } from '../ports';
import { ChoreRunBudget } from './runBudget';
import type { BudgetCheck } from './runBudget';
import type { SuccessVerdict } from './expressions';
import type { ChecksVerdict } from './runChecks';
import type { ChoreRunLog, ChoreRunRecord } from './runLog';
import type { ChoreDefinition } from './types';

export interface LiveRun {
  chore: ChoreDefinition;
  budget: ChoreRunBudget;
  /** Set when the guard stopped the task: the run ends budget_exhausted. */
  stopped?: Extract<BudgetCheck, { ok: false }>;
  /** The verdict beforeTaskEnd reached, so the end is judged once. */
  verdict?: SuccessVerdict;
  /**
   * A turn without task_end was nudged, and a false successWhen was re-prompted: each happens at
   * most once per run. In memory: after a reload a run may get one more of each (acceptable; it
   * is still bounded by maxIterations and maxSeconds).
   */
  nudged?: boolean;
  reprompted?: boolean;
  /** How the chore's checks judged the task's end (runChecks.ts), once they ran or found nothing to check. */
  checked?: ChecksVerdict;
  /** The last JSON object the agent wrote in prose that the chore can judge (turnEndings.ts). */
  proseOutput?: Record<string, unknown>;
  steps: Map<string, number>;
  deadline?: { cancel(): void };
}

export interface LiveRunsDeps {
  runLog: ChoreRunLog;
  clock: Clock;
  /** The loaded chore of that id. */
  chore(id: string): ChoreDefinition | undefined;
  /** A run's `budget.maxSeconds` passed. */
  onDeadline(runId: string): void;
}

export class LiveRuns {
  private readonly live = new Map<string, LiveRun>();

  constructor(private readonly deps: LiveRunsDeps) {}

  /** The in-memory side of a running run, rebuilt from its record after a reload. */
  of(run: ChoreRunRecord): LiveRun {
    let live = this.live.get(run.runId);
    if (live) return live;
    const chore = this.deps.chore(run.choreId);
    if (!chore) throw new Error(`chore ${run.choreId} of run ${run.runId} is not loaded`);
    // A resumed run's raised limits (budgetPause.ts) replace the chore's.
    const limits = run.limits ?? chore.budget;
    live = { chore, budget: new ChoreRunBudget(limits, this.deps.clock, run.startedAt, run.usage), steps: new Map() };
    const due = run.startedAt + limits.maxSeconds * 1000 - this.deps.clock.now();
    live.deadline = this.deps.clock.setTimeout(() => this.deps.onDeadline(run.runId), Math.max(0, due));
    this.live.set(run.runId, live);
    return live;
  }

  /** The live side of a run, if it has one, without building it. */
  peek(runId: string): LiveRun | undefined {
    return this.live.get(runId);
  }

  /** The run ended: its deadline is cancelled and its live side dropped (returned, if it had one). */
  take(runId: string): LiveRun | undefined {
    const live = this.live.get(runId);
    live?.deadline?.cancel();
    this.live.delete(runId);
    return live;
  }

  /** Writes an action's start or end into the run's trace. */
  traceStep(run: ChoreRunRecord, kind: 'action_start' | 'action_end', data: Record<string, unknown>): void {
    const live = this.of(run);
    const callId = String(data.callId ?? '');
    const name = String(data.name ?? 'action');
    if (kind === 'action_start') {
      live.steps.set(callId, this.deps.runLog.stepStarted(run.runId, name, data.input ?? {}));
      return;
    }
    // An invalid call (repaired) ends without having started.
    const stepId = live.steps.get(callId) ?? this.deps.runLog.stepStarted(run.runId, name, '(not run)');
    live.steps.delete(callId);
    const failed = data.error !== undefined;
    this.deps.runLog.stepEnded(run.runId, stepId, failed ? 'error' : 'ok', failed ? data.error : data.output);
  }

  dispose(): void {
    for (const live of this.live.values()) live.deadline?.cancel();
    this.live.clear();
  }
}
