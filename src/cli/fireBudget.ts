/**
 * Budgets across CI fires: a chore's cost per UTC day (`budget.maxCostUsdPerDay`), its fires per
 * hour (`budget.maxFiresPerHour`) and its fires per issue or pull request (`budget.maxFiresPerItem`).
 * A CI machine keeps no store between fires, so the count comes from the repository itself: every
 * fire's check run
 * (`Tasklane · <chore>`) carries one machine-readable line in its summary, and the next fire lists
 * the check runs of that name on the commit it reports to (the pull request's head, the failed
 * run's commit, or the default branch's head for issue events) before any model call.
 *
 * A pull request pushed to again, or a branch that moved on, reports on a new commit: so the next
 * fire also reads the commits the repository's workflows ran on in the window its caps need
 * (`earlierFiresSince`, at most `MAX_COMMITS_READ` of them).
 */
import type { ChoreDefinition } from '../core/chores/types';
import type { CheckRunSummary } from './githubApi';

/** What one fire records about itself. */
export interface FireRecord {
  chore: string;
  /** `owner/name#number`, or null for a fire about no item. */
  item: string | null;
  costUsd: number;
  /** ISO time of the fire. */
  at: string;
  /** Set when the fire never ran (a budget stop or the actor gate): it counts as no fire and no cost. */
  stopped?: 'budget' | 'gate';
}

const linePattern = /<!-- tasklane:fire (\{[^\n]*?\}) -->/;

/** Whether a fire must read the earlier fires first: the chore has a budget across fires. */
export function readsEarlierFires(chore: Pick<ChoreDefinition, 'spendLimits' | 'maxFiresPerItem' | 'maxFiresPerHour'>): boolean {
  return chore.spendLimits?.maxCostUsdPerDay !== undefined || chore.maxFiresPerItem !== undefined || chore.maxFiresPerHour !== undefined;
}

/** Most commits whose check runs one fire reads (each is one request). */
export const MAX_COMMITS_READ = 20;

/**
 * How far back the earlier fires are read: a UTC day for the day cap, an hour for the hour cap,
 * and seven days for the count per item (a pull request reviewed last week is reviewed again).
 */
export function earlierFiresSince(chore: Pick<ChoreDefinition, 'spendLimits' | 'maxFiresPerItem' | 'maxFiresPerHour'>, now: Date): Date {
  const starts: number[] = [];
  if (chore.maxFiresPerItem !== undefined) starts.push(now.getTime() - 7 * 86_400_000);
  if (chore.spendLimits?.maxCostUsdPerDay !== undefined) starts.push(Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00Z`));
  if (chore.maxFiresPerHour !== undefined) starts.push(now.getTime() - 3_600_000);
  return new Date(Math.min(now.getTime(), ...starts));
}

/** The check name of a chore's fires. */
export function checkName(choreId: string): string {
  return `Tasklane · ${choreId}`;
}

/** The hidden line a fire's check run summary carries. */
export function fireRecordLine(record: FireRecord): string {
  return `<!-- tasklane:fire ${JSON.stringify(record)} -->`;
}

/** The fire records of earlier check runs of this chore; anything unreadable is left out. */
export function fireRecords(runs: readonly CheckRunSummary[], choreId: string): FireRecord[] {
  const out: FireRecord[] = [];
  for (const run of runs) {
    const match = linePattern.exec(run.output?.summary ?? '');
    if (!match) continue;
    try {
      const r = JSON.parse(match[1]) as Partial<FireRecord>;
      if (r.chore !== choreId || typeof r.costUsd !== 'number' || !Number.isFinite(r.costUsd) || typeof r.at !== 'string') continue;
      out.push({
        chore: r.chore,
        item: typeof r.item === 'string' ? r.item : null,
        costUsd: Math.max(0, r.costUsd),
        at: r.at,
        ...(r.stopped === 'budget' || r.stopped === 'gate' ? { stopped: r.stopped } : {}),
      });
    } catch {
      // a damaged line counts for nothing
    }
  }
  return out;
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
  const cap = chore.spendLimits?.maxCostUsdPerDay;
  if (cap !== undefined && spent >= cap)
    return { stop: `budget across fires: ${chore.id} spent $${spent.toFixed(4)} today (UTC), at its cap of $${cap} (budget.maxCostUsdPerDay)`, firstStop };
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
  return cap !== undefined ? { costLeftToday: cap - spent } : {};
}
