import type { Cron } from 'croner';
import { newCron } from './cronLib';
import type { DriftPolicy } from './types';

/** A cron trigger as the schedule functions need it. */
export interface CronSpec {
  cron: string;
  /** IANA zone; undefined means the machine's zone. */
  timezone?: string;
}

/** Most missed fires `catchup` replays (docs/DESIGN.md §7). */
export const maxCatchupFires = 10;

/**
 * A fire later than this after its time counts as missed (the run is told it is late); earlier,
 * as on time. Whether `drift: skip` drops it is a separate rule: more than one interval late.
 */
export const defaultMissedGraceMs = 60_000;

/** The dedup key of one fire, `chore:<id>:<fireTimeIso>`: a crash retry never makes a second run. */
export function fireKey(choreId: string, fireAtMs: number): string {
  return `chore:${choreId}:${new Date(fireAtMs).toISOString()}`;
}

/** The fire time a run stands for: the tail of its {@link fireKey}, in ms (NaN for a key of another shape). */
export function fireTimeOf(run: { choreId: string; fireKey: string }): number {
  return Date.parse(run.fireKey.slice(`chore:${run.choreId}:`.length));
}

/** The `cron|timezone` a schedule was computed for, so an edited pattern restarts its schedule. */
export function cronKey(spec: CronSpec): string {
  return `${spec.cron}|${spec.timezone ?? ''}`;
}

function cronOf(spec: CronSpec): Cron {
  return newCron(spec.cron, { paused: true, ...(spec.timezone ? { timezone: spec.timezone } : {}) });
}

/**
 * The interval a fire at `fireAtMs` stands for: the time to the pattern's next fire, or (a pattern
 * that never fires again) the time since its previous one; undefined when it has neither.
 * `drift: skip` drops a fire only when it is later than this.
 */
export function intervalAfter(spec: CronSpec, fireAtMs: number): number | undefined {
  const cron = cronOf(spec);
  const next = cron.nextRun(new Date(fireAtMs))?.getTime();
  if (next !== undefined) return next - fireAtMs;
  const previous = cron.previousRuns(1, new Date(fireAtMs))[0]?.getTime();
  return previous !== undefined ? fireAtMs - previous : undefined;
}

/** Whether a fire due at `fireAtMs` is more than one interval late at `nowMs` (the `drift: skip` rule). */
export function lateByMoreThanInterval(spec: CronSpec, fireAtMs: number, nowMs: number): { late: boolean; intervalMs: number | undefined } {
  const intervalMs = intervalAfter(spec, fireAtMs);
  return { late: intervalMs !== undefined && nowMs - fireAtMs > intervalMs, intervalMs };
}

/** "24 h", "15 min", "3 days": a duration as the history and Preview Chore word it. */
export function describeDuration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(ms / 3_600_000);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(ms / 86_400_000)} days`;
}

/** The first fire strictly after `afterMs`, or undefined when the pattern never fires again. */
export function nextFireAfter(spec: CronSpec, afterMs: number): number | undefined {
  return cronOf(spec).nextRun(new Date(afterMs))?.getTime();
}

/** The next `count` fires strictly after `afterMs` (for the sidebar and the guided flow). */
export function nextFires(spec: CronSpec, afterMs: number, count: number): number[] {
  return cronOf(spec)
    .nextRuns(count, new Date(afterMs))
    .map((d) => d.getTime());
}

/** Which of the fires due between `fromMs` and `nowMs` to run, per the drift policy. */
export interface DueFireSelection {
  /** Fire times to run, oldest first. */
  run: number[];
  /** Due fires dropped by the policy (at least this many: counting stops past the catch-up window). */
  dropped: number;
  /** Whether any due fire was older than the grace window, i.e. the editor was closed or asleep. */
  missed: boolean;
  /** The dropped fires among the most recent ones looked at, oldest first (each gets a history entry). */
  droppedTimes: number[];
  /** Dropped fires older than those (counted up to {@link maxCountedEarlier}); they share one history entry. */
  earlier: { count: number; firstAt: number; lastAt: number; times: number[] } | undefined;
}

/** How far back missed fires older than the catch-up window are counted; past it the count says "at least". */
export const maxCountedEarlier = 1_000;

/**
 * Applies the drift policy to the fires in `[fromMs, nowMs]`:
 * `latest` runs the most recent one, `catchup` runs the most recent {@link maxCatchupFires} in
 * order, `skip` drops every fire more than one interval late (the time to the pattern's next
 * fire, {@link intervalAfter}) and runs the newest of the others: a nightly chore whose machine
 * wakes a few minutes late still runs; a fire already overtaken by the next one does not.
 */
export function selectDueFires(
  spec: CronSpec,
  fromMs: number,
  nowMs: number,
  drift: DriftPolicy,
  options: { graceMs?: number; maxCatchup?: number } = {},
): DueFireSelection {
  const graceMs = options.graceMs ?? defaultMissedGraceMs;
  const maxCatchup = options.maxCatchup ?? maxCatchupFires;
  if (fromMs > nowMs) return { run: [], dropped: 0, missed: false, droppedTimes: [], earlier: undefined };
  // previousRuns walks back from now, so a month of minutely fires costs no more than ten.
  const recent = cronOf(spec)
    .previousRuns(maxCatchup + 1, new Date(nowMs + 1))
    .map((d) => d.getTime())
    .filter((t) => t >= fromMs)
    .reverse();
  if (recent.length === 0) return { run: [], dropped: 0, missed: false, droppedTimes: [], earlier: undefined };
  const missed = recent[0] < nowMs - graceMs;
  let run: number[];
  switch (drift) {
    case 'latest':
      run = [recent[recent.length - 1]];
      break;
    case 'catchup':
      run = recent.slice(-maxCatchup);
      break;
    case 'skip':
      run = recent.filter((t) => !lateByMoreThanInterval(spec, t, nowMs).late).slice(-1);
      break;
  }
  const droppedTimes = recent.filter((t) => !run.includes(t));
  // The window was full: there may be older fires in [fromMs, recent[0]) nobody looked at yet.
  let earlier: DueFireSelection['earlier'];
  if (recent.length > maxCatchup) {
    const older = cronOf(spec)
      .nextRuns(maxCountedEarlier, new Date(fromMs - 1))
      .map((d) => d.getTime())
      .filter((t) => t < recent[0]);
    if (older.length) earlier = { count: older.length, firstAt: older[0], lastAt: older[older.length - 1], times: older };
  }
  return { run, dropped: droppedTimes.length + (earlier?.count ?? 0), missed, droppedTimes, earlier };
}
