/**
 * Task budgets (docs/DESIGN.md §3): actions, tokens and optionally cost. At 80% of any limit the task
 * gets one warning (once per crossing: the flag resets only when Continue raises the limit); at
 * 100% it pauses until Continue or Cancel.
 */
import type { AgentSettings } from './types';
import { tokensUsed } from './records';
import type { TaskRecord } from './records';

export type BudgetKind = 'actions' | 'tokens' | 'cost';

export const WARN_AT = 0.8;

function usedAndLimit(task: TaskRecord, kind: BudgetKind): [number, number | undefined] {
  if (kind === 'actions') return [task.actionCount, task.limits.actions];
  if (kind === 'tokens') return [tokensUsed(task.usage), task.limits.tokens];
  return [task.usage.cost, task.limits.cost];
}

/**
 * Budget use in steps of 10% ("actions 40% of 50"): exact counts change every turn, and a status
 * line that changed every turn would be repeated into the prompt every turn.
 */
export function describeBudgetStep(task: TaskRecord, kind: BudgetKind): string {
  const [used, limit] = usedAndLimit(task, kind);
  const step = limit ? Math.min(100, Math.floor((used / limit) * 10) * 10) : 0;
  const fmt = (n: number) => (kind === 'cost' ? `$${n.toFixed(2)}` : String(Math.round(n)));
  return `${kind} ${step}% of ${fmt(limit ?? 0)}`;
}

/** Which limits are spent and which have newly crossed 80% (not yet warned). */
export function checkBudget(task: TaskRecord): { exceeded: BudgetKind[]; newlyNear: BudgetKind[] } {
  const exceeded: BudgetKind[] = [];
  const newlyNear: BudgetKind[] = [];
  for (const kind of ['actions', 'tokens', 'cost'] as const) {
    const [used, limit] = usedAndLimit(task, kind);
    if (limit === undefined || limit <= 0) continue;
    if (used >= limit) exceeded.push(kind);
    else if (used >= WARN_AT * limit && !task.warned[kind]) newlyNear.push(kind);
  }
  return { exceeded, newlyNear };
}

export function describeBudget(task: TaskRecord, kind: BudgetKind): string {
  const [used, limit] = usedAndLimit(task, kind);
  const fmt = (n: number) => (kind === 'cost' ? `$${n.toFixed(2)}` : String(Math.round(n)));
  const estimated = kind === 'cost' && task.usage.costEstimated ? ' (estimated: the model has no known price; give it one in tasklane.model.prices)' : '';
  return `${kind} ${kind === 'cost' && estimated ? '≈' : ''}${fmt(used)}${estimated} of ${fmt(limit ?? 0)}`;
}

/** The limits of a new task, from the settings. */
export function initialLimits(settings: AgentSettings): TaskRecord['limits'] {
  return {
    actions: settings.maxActionsPerTask,
    tokens: settings.maxTokensPerTask,
    ...(settings.maxCostPerTask !== undefined ? { cost: settings.maxCostPerTask } : {}),
  };
}

/**
 * The configured limits, lowered where `asked` asks for less (a budget given by another agent
 * through `tasklane_start_task`). A limit is never raised, and nonsense (0, negative, NaN) is
 * ignored, so a caller can only make a task cheaper. A cost asked for without a configured cost
 * limit becomes the task's cost limit.
 */
export function narrowedLimits(limits: TaskRecord['limits'], asked: { actions?: unknown; tokens?: unknown; cost?: unknown } | undefined): TaskRecord['limits'] {
  if (!asked) return limits;
  const lower = (current: number, wanted: unknown) =>
    typeof wanted === 'number' && Number.isFinite(wanted) && wanted > 0 ? Math.min(current, wanted) : current;
  const cost = typeof asked.cost === 'number' && Number.isFinite(asked.cost) && asked.cost > 0 ? Math.min(limits.cost ?? asked.cost, asked.cost) : limits.cost;
  return {
    actions: Math.floor(lower(limits.actions, asked.actions)),
    tokens: Math.floor(lower(limits.tokens, asked.tokens)),
    ...(cost !== undefined ? { cost } : {}),
  };
}

/** Continue: raise every spent (or nearly spent) limit by the configured increment. */
export function raiseLimits(task: TaskRecord, settings: AgentSettings): void {
  const inc = settings.budgetIncrement ?? {};
  task.limits = {
    actions: task.limits.actions + (inc.actions ?? settings.maxActionsPerTask),
    tokens: task.limits.tokens + (inc.tokens ?? settings.maxTokensPerTask),
    ...(task.limits.cost !== undefined ? { cost: task.limits.cost + (inc.cost ?? settings.maxCostPerTask ?? task.limits.cost) } : {}),
  };
  // A raised limit is a new crossing: warn again at 80% of it.
  task.warned = { actions: false, tokens: false, cost: false };
}
