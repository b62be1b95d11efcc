/**
 * Why a chore may not run right now. Asked when a fire is claimed (the fire is then recorded as
 * skipped, with the answer as its reason) and before every model call and action of a run (the
 * run stops): an untrusted workspace, `enabled: false`, a budget pause, what the host blocks (the
 * master switch, consent withdrawn), the fires per hour (`budget.maxFiresPerHour`), a cron fire
 * delivered late under `drift: skip`, and the rolling spend caps. Each answer is the sentence the history and the log show. Whether another
 * run of the chore is in the way is decided apart (runPolicy.ts decideConcurrency).
 */
import type { Clock } from '../ports';
import type { ChoreRunCause, ChoreRunLog, ChoreRunRecord } from './runLog';
import type { ChoreSpendLedger, WorkspaceSpendLimits } from './spendLedger';
import { describeDuration, lateByMoreThanInterval } from './schedule';
import type { ChoreDefinition } from './types';

/** What the gates read (a part of the runner's options). */
export interface RunGateDeps {
  clock: Pick<Clock, 'now'>;
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
  /** The chores' runs, which `budget.maxFiresPerHour` counts ({@link firesPerHourReached}); without it no hour cap holds. */
  runLog?: Pick<ChoreRunLog, 'startedSince'>;
}

/** Why `chore` may not run now: `enabled: false`, a budget pause, or what the host blocks. */
export function blockedReason(deps: RunGateDeps, chore: ChoreDefinition): string | undefined {
  if (chore.enabled === false) return 'disabled in .tasklane/chores.yaml (enabled: false)';
  const paused = deps.spend?.paused(chore.id);
  if (paused) return `paused since ${new Date(paused.at).toISOString()}: ${paused.reason}; resume it with "Tasklane: Resume Chore" or the sidebar's Resume`;
  return deps.blocked?.(chore.id);
}

/**
 * Why a claimed fire of a loaded chore does not start, besides concurrency: an untrusted
 * workspace, {@link blockedReason}, its fires per hour ({@link firesPerHourReached}), or a cron fire (`dueAt` was its trigger's due time) that a
 * closed or sleeping VS Code delivered late while the chore says `drift: skip`.
 */
export function whyNotStart(
  deps: RunGateDeps,
  chore: ChoreDefinition,
  fire: { cause: ChoreRunCause; attempt: number; missed: boolean; fireTime: string },
  dueAt: number,
): string | undefined {
  if (deps.canRun && !deps.canRun()) return 'the workspace is not trusted (Restricted Mode): chores do not run';
  const blocked = blockedReason(deps, chore);
  if (blocked) return blocked;
  // A cron fire queued before VS Code closed and delivered late follows the drift policy like
  // a fire missed while it was closed: with drift skip it does not run once it is more than one
  // interval late (the next occurrence is due by then); a few minutes late, it still runs.
  // A retry belongs to a fire already counted (its attempts are bounded by maxRetries).
  if (fire.attempt === 0) {
    const perHour = firesPerHourReached(deps, chore);
    if (perHour) return perHour;
  }
  if (fire.cause === 'cron' && !fire.missed && fire.attempt === 0 && chore.drift === 'skip' && chore.trigger.kind === 'cron') {
    const now = deps.clock.now();
    const { late, intervalMs } = lateByMoreThanInterval(chore.trigger, dueAt, now);
    if (late && intervalMs !== undefined) {
      return `the fire of ${fire.fireTime} was delivered ${describeDuration(now - dueAt)} late, more than one interval (${describeDuration(intervalMs)}) (VS Code was closed or asleep); drift: skip`;
    }
  }
  return undefined;
}

const HOUR_MS = 3_600_000;

/**
 * Whether a run counts as a fire for `budget.maxFiresPerHour`: one that started a model turn, or is
 * still running (on its way to one, or parked at a budget). A fire that was skipped, missed or
 * refused by a gate ran nothing and does not count, nor does a run that ended before its first
 * model call returned (its preparation failed, it was cancelled or replaced first, every call to
 * the model failed): it spent nothing. The fire ledger on CI counts the same way (fireBudget.ts:
 * a stopped fire counts as no fire).
 */
function startedAModelTurn(run: ChoreRunRecord): boolean {
  return run.status === 'running' || run.usage.iterations > 0;
}

/**
 * Why a new fire of `chore` may not start under its `budget.maxFiresPerHour` (cron and github
 * chores: Run Chore Now and a replayed event count as fires too), or undefined. It counts the
 * fires, not the runs, of the last hour that started a model turn ({@link startedAModelTurn}):
 * a fire and its retries count once. The refusal is recorded as the fire's skip, which the Chores
 * view and the history show with this reason, saying when the next fire may run.
 */
export function firesPerHourReached(deps: Pick<RunGateDeps, 'clock' | 'runLog'>, chore: ChoreDefinition): string | undefined {
  const cap = chore.maxFiresPerHour;
  if (cap === undefined || !deps.runLog) return undefined;
  const now = deps.clock.now();
  const firstStart = new Map<string, number>();
  for (const run of deps.runLog.startedSince(chore.id, now - HOUR_MS)) {
    if (!startedAModelTurn(run)) continue;
    firstStart.set(run.fireKey, Math.min(run.startedAt, firstStart.get(run.fireKey) ?? Infinity));
  }
  if (firstStart.size < cap) return undefined;
  // The fire whose hour must pass for the count to drop below the cap (the oldest, unless the cap was lowered).
  const starts = [...firstStart.values()].sort((a, b) => a - b);
  const next = new Date(Math.ceil((starts[starts.length - cap] + HOUR_MS) / 60_000) * 60_000).toISOString().slice(11, 16);
  return `already fired ${firstStart.size} time(s) in the last hour, its cap (budget.maxFiresPerHour ${cap}); the next fire may run from ${next} UTC`;
}

/** The first rolling cap (the chore's per day / month, the workspace's) already reached, if any. */
export function rollingCapReached(deps: RunGateDeps, chore: ChoreDefinition): string | undefined {
  const { spend, workspaceLimits } = deps;
  if (!spend) return undefined;
  const check = spend.check(chore.id, chore.spendLimits ?? {}, workspaceLimits?.() ?? { maxCostUsdPerDay: 0, maxCostUsdPerMonth: 0 });
  return check.ok ? undefined : check.message;
}

/**
 * The command lines a task of `chore` may run without asking: its `commands:`, and none while
 * the chore may not run (consent withdrawn by an edit, the master switch, `enabled: false`).
 */
export function declaredCommands(deps: RunGateDeps, chore: ChoreDefinition | undefined): readonly string[] {
  return chore?.commands && chore.enabled !== false && !blockedReason(deps, chore) ? chore.commands : [];
}

/**
 * The MCP tools a task of `chore` may call without asking, by server: its `mcp:`, and none while
 * the chore may not run. A server that is declared but not listed here (consent withdrawn) asks
 * again like any other, in VS Code, and is refused headless.
 */
export function declaredMcp(deps: RunGateDeps, chore: ChoreDefinition | undefined): Readonly<Record<string, readonly string[]>> {
  if (!chore?.mcp || chore.enabled === false || blockedReason(deps, chore)) return {};
  return Object.fromEntries(Object.entries(chore.mcp).map(([server, declared]) => [server, declared.tools]));
}
