/**
 * Caps on runaway work (security review, finding 8: one message produced 561 tasks in 2 s, one
 * turn ran 300 actions against a budget of 50). Budgets bound one task; these bound what a model
 * can set off in one turn and across tasks:
 *
 * - actions per turn: calls beyond the cap (or beyond what is left of the task's action budget)
 *   are not run; the model gets an error for each, saying how many ran and to call the rest later;
 * - task starts per turn, per hour, and tasks running at once: a `task_start` over any of them
 *   fails with a message naming the setting.
 *
 * Only starts the model asks for (task_start) are capped; chore fires and Run now are the
 * person's own schedule. The hourly window lives in memory, seeded at first use from the tasks
 * the engine still knows, so a reload does not hand out a fresh hour.
 */
import type { Clock, Logger } from '../ports';
import type { TaskRecord } from './records';
import type { NotRun, RunawayCaps } from './types';

/** The limits; each is a `tasklane.budget.*` setting (application scope: a repository cannot raise them). */
export type { RunawayCaps };

export const DEFAULT_CAPS: RunawayCaps = {
  maxActionsPerTurn: 20,
  maxTaskStartsPerTurn: 5,
  maxTaskStartsPerHour: 30,
  maxRunningTasks: 10,
};

const HOUR_MS = 60 * 60 * 1000;

/**
 * Why some of a turn's calls were not run, as data: the thread words it in the person's language
 * (src/host/stepEventRows.ts), while `refused` is the English the model and the log read.
 */
export type NotRunWhy = Extract<NotRun, { code: 'budget_left' | 'turn_cap' }>;

/** How many of a turn's calls may run, and what to tell the model about the rest. */
export interface ActionAllowance {
  run: number;
  /** Set when some calls are not run: the error each of them gets. */
  refused?: string;
  /** Set with `refused`: its cause as a code and its number. */
  why?: NotRunWhy;
}

/** What the guard reads from the engine. */
export interface RunawayGuardDeps {
  caps: () => Partial<RunawayCaps> | undefined;
  clock: Clock;
  logger: Logger;
  /** Tasks the engine holds (live and recently ended), for the running count and the hourly seed. */
  tasks: () => Iterable<TaskRecord>;
}

/** Applies RunawayCaps; one per engine. */
export class RunawayGuard {
  private starts: number[] | undefined;

  constructor(private readonly deps: RunawayGuardDeps) {}

  /** The caps in force now: settings over defaults, each at least 1. */
  current(): RunawayCaps {
    const set = this.deps.caps() ?? {};
    const pick = (key: keyof RunawayCaps) => {
      const value = set[key];
      return typeof value === 'number' && Number.isFinite(value) && value >= 1 ? Math.floor(value) : DEFAULT_CAPS[key];
    };
    return {
      maxActionsPerTurn: pick('maxActionsPerTurn'),
      maxTaskStartsPerTurn: pick('maxTaskStartsPerTurn'),
      maxTaskStartsPerHour: pick('maxTaskStartsPerHour'),
      maxRunningTasks: pick('maxRunningTasks'),
    };
  }

  /** How many of `calls` valid tool calls of one response may run. */
  actionsAllowed(calls: number, task?: Pick<TaskRecord, 'actionCount' | 'limits'>): ActionAllowance {
    const caps = this.current();
    const budgetLeft = task ? Math.max(1, task.limits.actions - task.actionCount) : Number.POSITIVE_INFINITY;
    const run = Math.min(calls, caps.maxActionsPerTurn, budgetLeft);
    if (run >= calls) return { run };
    const cause: NotRunWhy =
      budgetLeft < caps.maxActionsPerTurn ? { code: 'budget_left', left: budgetLeft } : { code: 'turn_cap', cap: caps.maxActionsPerTurn };
    const why =
      cause.code === 'budget_left'
        ? `the task has ${cause.left} action(s) left in its budget (tasklane.budget.maxActionsPerTask)`
        : `a turn runs at most ${cause.cap} actions (tasklane.budget.maxActionsPerTurn)`;
    this.deps.logger.warn('ACTION', `${calls} tool calls in one response; ran ${run}: ${why}`);
    return {
      run,
      refused: `Not run: ${why}, and ${calls} were called at once; the first ${run} ran. Call the rest in a later turn if they are still needed.`,
      why: cause,
    };
  }

  /**
   * Admits one task_start. `startedThisTurn` counts starts already admitted in this turn (they
   * are created when the turn finalizes). Returns why not, or undefined (and records the start).
   */
  admitTaskStart(startedThisTurn: number): string | undefined {
    const caps = this.current();
    const now = this.deps.clock.now();
    const starts = this.window(now);
    // Working tasks: a task waiting for the person's reply or approval costs nothing while it waits,
    // and counting it would let old open tasks block new work for good.
    const running = [...this.deps.tasks()].filter((t) => t.status === 'running' && !t.waitingForUser && !t.waitingForApproval).length + startedThisTurn;
    let refused: string | undefined;
    if (startedThisTurn >= caps.maxTaskStartsPerTurn) {
      refused = `at most ${caps.maxTaskStartsPerTurn} tasks can be started in one turn (tasklane.budget.maxTaskStartsPerTurn)`;
    } else if (starts.length >= caps.maxTaskStartsPerHour) {
      refused = `${starts.length} tasks were started in the last hour, the limit (tasklane.budget.maxTaskStartsPerHour)`;
    } else if (running >= caps.maxRunningTasks) {
      refused = `${running} tasks are running, the limit (tasklane.budget.maxRunningTasks)`;
    }
    if (refused) {
      this.deps.logger.warn('TASK', `task_start refused: ${refused}`);
      return `The task was not started: ${refused}. Do the work in this task, or wait until others finish; the user can raise the limit in their settings.`;
    }
    starts.push(now);
    return undefined;
  }

  private window(now: number): number[] {
    this.starts ??= [...this.deps.tasks()].filter((t) => !t.source.startsWith('chore:') && now - t.createdAt < HOUR_MS).map((t) => t.createdAt);
    this.starts = this.starts.filter((at) => now - at < HOUR_MS);
    return this.starts;
  }
}
