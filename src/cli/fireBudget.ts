/**
 * Budgets across CI fires: a chore's cost per UTC day (`budget.maxCostUsdPerDay`, or
 * {@link DEFAULT_CI_COST_USD_PER_DAY} when it sets none), its fires per hour
 * (`budget.maxFiresPerHour`) and its fires per issue or pull request (`budget.maxFiresPerItem`).
 * A CI machine keeps no store between fires: the records come from the fire ledger
 * (fireLedger.ts), which the apply job writes and the next fire reads whole before any model call.
 */
import type { ChoreDefinition } from '../core/chores/types';

/** What one fire records about itself. */
export interface FireRecord {
  chore: string;
  /** `owner/name#number`, or null for a fire about no item. */
  item: string | null;
  costUsd: number;
  /** ISO time of the fire. */
  at: string;
  /** Set when the fire never ran (a budget stop, the actor gate, a refused resume): it counts as no fire and no cost. */
  stopped?: 'budget' | 'gate' | 'resume' | 'loop';
  /** The fire parked at its budget: its workflow run and its kept store's hash, what a resume is bound to (ciResume.ts). */
  paused?: { run: string; store: string };
}

/**
 * The day cap of a CI chore (github or cron) that sets none: VS Code caps all chores of a workspace at $5 a day
 * by default (the user setting `tasklane.chores.maxCostUsdPerDay`); CI has no user settings, so
 * each chore gets that cap on its own, as gh-aw gives each workflow a daily default.
 */
export const DEFAULT_CI_COST_USD_PER_DAY = 5;

/**
 * Whether a fire on CI reads the ledger first: every chore the generated workflow runs does (the
 * default day cap at least), a github chore and a cron chore alike: the workflow schedules a cron
 * chore and *Run workflow* dispatches it, so it spends on CI as often as a person clicks. A cron
 * chore run by hand outside the workflow (`chores run` without `--out`) has no ledger (ciRun.ts).
 */
export function readsEarlierFires(chore: Pick<ChoreDefinition, 'trigger'>): boolean {
  return chore.trigger.kind === 'github' || chore.trigger.kind === 'cron';
}

/** The day cap a CI fire holds to, and whether it is the default. */
export function dayCapOf(chore: Pick<ChoreDefinition, 'spendLimits'>): { cap: number; byDefault: boolean } {
  const own = chore.spendLimits?.maxCostUsdPerDay;
  return own !== undefined ? { cap: own, byDefault: false } : { cap: DEFAULT_CI_COST_USD_PER_DAY, byDefault: true };
}

/**
 * Why this fire must stop before the model is called, or undefined; also the cost left today, and
 * whether this is the first stop of the day (a stop is escalated once per window, not per fire).
 */
export function budgetAcrossFires(
  chore: Pick<ChoreDefinition, 'id' | 'spendLimits' | 'maxFiresPerItem' | 'maxFiresPerHour'>,
  records: readonly FireRecord[],
  item: string | null,
  now: Date,
): { stop?: string; costLeftToday?: number; firstStop?: boolean } {
  const today = now.toISOString().slice(0, 10);
  const firstStop = !records.some((r) => r.stopped === 'budget' && r.at.slice(0, 10) === today);
  const fires = records.filter((r) => !r.stopped);
  const spent = fires.filter((r) => r.at.slice(0, 10) === today).reduce((sum, r) => sum + r.costUsd, 0);
  const { cap, byDefault } = dayCapOf(chore);
  if (spent >= cap)
    return {
      stop: `budget across fires: ${chore.id} spent $${spent.toFixed(4)} today (UTC), at its cap of $${cap} (${byDefault ? 'the default day cap on CI; set budget.maxCostUsdPerDay to change it' : 'budget.maxCostUsdPerDay'})`,
      firstStop,
    };
  const perHour = chore.maxFiresPerHour;
  if (perHour !== undefined) {
    const hourAgo = now.getTime() - 3_600_000;
    const count = fires.filter((r) => Date.parse(r.at) > hourAgo).length;
    if (count >= perHour)
      return { stop: `budget across fires: ${chore.id} already fired ${count} time(s) in the last hour (budget.maxFiresPerHour ${perHour})`, firstStop };
  }
  const perItem = chore.maxFiresPerItem;
  if (perItem !== undefined && item !== null) {
    const count = fires.filter((r) => r.item === item).length;
    if (count >= perItem)
      return { stop: `budget across fires: ${chore.id} already fired ${count} time(s) for ${item} (budget.maxFiresPerItem ${perItem})`, firstStop };
  }
  return { costLeftToday: cap - spent };
}
