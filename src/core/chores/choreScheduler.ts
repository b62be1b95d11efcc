import type { Clock, Logger } from '../ports';
import { systemClock } from '../ports';
import { performanceClock } from '../store/clockWatch';
import type { TriggerStore } from '../store/types';
import { cronKey, fireKey, nextFireAfter, selectDueFires } from './schedule';
import type { ChoreSchedulePersistence, ChoreScheduleRecord } from './schedulePersistence';
import { ScheduleTime } from './scheduleTime';
import type { ChoreDefinition, DriftPolicy } from './types';

import type { ChoreFirePayload } from '../engine/triggerPayloads';

/** The payload of a `scheduled` trigger the scheduler emits (its schema: engine/triggerPayloads.ts). */
export type { ChoreFirePayload };

export interface ChoreSchedulerOptions {
  triggers: Pick<TriggerStore, 'emit'>;
  clock: Clock;
  persistence: ChoreSchedulePersistence;
  logger: Logger;
  /** Session a chore's triggers belong to; default `chore:<id>`. */
  sessionIdFor?: (choreId: string) => string;
  /** Longest timer the scheduler arms, so a sleeping laptop or a clock change is noticed within it. */
  maxTimerMs?: number;
  /** See {@link selectDueFires}. */
  missedGraceMs?: number;
  /** Wait before retrying a fire whose trigger could not be recorded (default 30 s), so a full disk is not a hot loop. */
  retryDelayMs?: number;
  /**
   * A clock that never steps (default: performance.now with the system clock; none, and so the
   * wall clock followed as it is, with a test's fake clock unless it gives one). See ScheduleTime.
   */
  monotonic?: () => number;
  /**
   * Told of every fire the drift policy drops, before the schedule moves past it, so each one ends
   * as a history entry (see {@link ChoreRunner.recordDropped}). A failure here is logged, not retried.
   */
  onDropped?: (choreId: string, dropped: DroppedFire[]) => Promise<void>;
}

/**
 * Most missed occurrences listed one by one after an absence; past it the oldest share one entry
 * (the run history keeps 30 entries per chore, so more would only push out the runs).
 */
export const maxListedMissed = 24;

/** A due fire that will not run, and why, for the chore's history. */
export interface DroppedFire {
  fireAt: number;
  status: 'missed' | 'skipped';
  reason: string;
}

/** Why each drift policy leaves a missed fire out. */
function dropReason(drift: DriftPolicy, fireAt: number, count = 1, jumpedFrom?: number): { status: 'missed' | 'skipped'; reason: string } {
  const when = count > 1 ? `${count} occurrences` : `the occurrence of ${new Date(fireAt).toISOString()}`;
  const closed =
    jumpedFrom !== undefined && fireAt >= jumpedFrom
      ? `the system clock jumped forward past it (from ${new Date(jumpedFrom).toISOString()})`
      : 'VS Code was closed (or the machine asleep) at the scheduled time';
  switch (drift) {
    case 'skip':
      return { status: 'skipped', reason: `${when}: ${closed}; drift: skip drops an occurrence more than one interval late` };
    case 'latest':
      return { status: 'missed', reason: `${when}: ${closed}; drift: latest runs only the most recent missed occurrence` };
    case 'catchup':
      return { status: 'missed', reason: `${when}: ${closed}; drift: catchup replays at most the 10 most recent` };
  }
}

interface CronChore {
  id: string;
  cron: string;
  timezone?: string;
  drift: DriftPolicy;
}

/**
 * Emits a durable `scheduled` trigger for every due cron fire, with the dedup key
 * `chore:<id>:<fireTimeIso>`, and keeps each chore's next fire. The schedule only moves past a fire
 * once it was emitted (durably) or dropped by the drift policy, and a fire stays outstanding until
 * the runner calls {@link markDone}, whatever became of it (ran, skipped by concurrency, failed).
 */
export class ChoreScheduler {
  private readonly chores = new Map<string, CronChore>();
  private readonly records = new Map<string, ChoreScheduleRecord>();
  private timer: { cancel(): void } | undefined;
  private running = false;
  private ticking: Promise<void> = Promise.resolve();
  /** Set when the last tick could not record a fire: the next timer is the retry delay. */
  private retryPending = false;
  private readonly time: ScheduleTime | null;

  constructor(private readonly options: ChoreSchedulerOptions) {
    for (const record of options.persistence.loadAll()) this.records.set(record.choreId, record);
    const monotonic = options.monotonic ?? (options.clock === systemClock ? performanceClock : undefined);
    this.time = monotonic ? new ScheduleTime(options.clock, monotonic) : null;
  }

  /** The time the schedule follows: the wall clock, unless it just jumped forward (ScheduleTime). */
  private now(): number {
    return this.time ? this.time.peek() : this.options.clock.now();
  }

  /**
   * Replaces the set of scheduled chores (after chores.yaml loads or changes). A new chore or an
   * edited cron/timezone starts from now; a removed chore's record is dropped.
   */
  setChores(definitions: readonly ChoreDefinition[]): void {
    const now = this.now();
    this.chores.clear();
    for (const def of definitions) {
      if (def.trigger.kind !== 'cron') continue;
      const chore: CronChore = { id: def.id, cron: def.trigger.cron, drift: def.drift, ...(def.trigger.timezone ? { timezone: def.trigger.timezone } : {}) };
      this.chores.set(def.id, chore);
      const existing = this.records.get(def.id);
      if (!existing || existing.cronKey !== cronKey(chore)) {
        // Fires of an old pattern that were already emitted stay outstanding until marked done.
        this.store({ choreId: def.id, cronKey: cronKey(chore), cursor: now, outstanding: existing?.outstanding ?? [], nextFireAt: null });
      }
    }
    for (const id of [...this.records.keys()]) {
      if (!this.chores.has(id)) {
        this.records.delete(id);
        this.options.persistence.remove(id);
      }
    }
    if (this.running) this.arm();
  }

  /** Applies the drift policy to what was missed while the editor was closed, then follows the schedule. */
  async start(): Promise<void> {
    this.running = true;
    await this.tick();
    this.arm();
  }

  stop(): void {
    this.running = false;
    this.timer?.cancel();
    this.timer = undefined;
  }

  /**
   * Emits every due fire now. Runs one at a time; a failed emit leaves the schedule before that
   * fire, so the next tick tries it again.
   */
  tick(): Promise<void> {
    // A failed tick must not wedge the chain: the next one starts from a settled promise.
    const next = this.ticking.catch(() => undefined).then(() => this.tickNow());
    this.ticking = next;
    return next;
  }

  /**
   * Called by the runner for every fire it was handed, once the fire's fate is recorded: after
   * this, a redelivered trigger for the same fire is recognised as done.
   */
  async markDone(choreId: string, fireAtMs: number): Promise<void> {
    const record = this.records.get(choreId);
    if (!record) return;
    const outstanding = record.outstanding.filter((t) => t !== fireAtMs);
    if (outstanding.length === record.outstanding.length) return;
    this.store({ ...record, outstanding });
    await this.options.persistence.flush();
  }

  /** Whether the fire was emitted and not yet marked done; a redelivered trigger for a done fire must not run. */
  isOutstanding(choreId: string, fireAtMs: number): boolean {
    return this.records.get(choreId)?.outstanding.includes(fireAtMs) ?? false;
  }

  /** The earliest fire not done yet, for the sidebar; undefined for a chore that is not a cron chore. */
  nextFireAt(choreId: string): number | undefined {
    return this.records.get(choreId)?.nextFireAt ?? undefined;
  }

  private async tickNow(): Promise<void> {
    const { triggers, logger } = this.options;
    const { now, jumpedFrom } = this.time ? this.time.read() : { now: this.options.clock.now() };
    if (jumpedFrom !== undefined)
      logger.warn('CHORE', `The system clock moved forward ${Math.round((now - jumpedFrom) / 60_000)} min and stayed there; schedules follow it now.`);
    let dirty = false;
    this.retryPending = false;
    for (const chore of this.chores.values()) {
      const record = this.records.get(chore.id);
      if (!record) continue;
      let selection;
      try {
        selection = selectDueFires(
          chore,
          record.cursor,
          now,
          chore.drift,
          this.options.missedGraceMs !== undefined ? { graceMs: this.options.missedGraceMs } : {},
        );
      } catch (error) {
        logger.error('CHORE', `chore ${chore.id}: cannot compute its schedule; check trigger.cron and trigger.timezone`, error);
        continue;
      }
      if (selection.dropped > 0) {
        logger.info('CHORE', `chore ${chore.id}: drift ${chore.drift} drops ${selection.dropped} missed fire(s)`);
        const dropped: DroppedFire[] = selection.droppedTimes.map((fireAt) => ({ fireAt, ...dropReason(chore.drift, fireAt, 1, jumpedFrom) }));
        const earlier = selection.earlier;
        if (earlier && earlier.count <= maxListedMissed - dropped.length) {
          dropped.unshift(...earlier.times.map((fireAt) => ({ fireAt, ...dropReason(chore.drift, fireAt, 1, jumpedFrom) })));
        } else if (earlier) {
          // A long absence of a frequent chore: one entry for the oldest, so the history is not all misses.
          const { status, reason } = dropReason(chore.drift, earlier.firstAt, earlier.count, jumpedFrom);
          dropped.unshift({
            fireAt: earlier.firstAt,
            status,
            reason: `${reason} (${new Date(earlier.firstAt).toISOString()} to ${new Date(earlier.lastAt).toISOString()}${earlier.count >= 1000 ? ', at least' : ''})`,
          });
        }
        try {
          await this.options.onDropped?.(chore.id, dropped);
        } catch (error) {
          logger.error('CHORE', `chore ${chore.id}: could not record ${dropped.length} missed fire(s) in its history`, error);
        }
      }
      const outstanding = [...record.outstanding];
      // Never backwards: a clock set back must not select fires that were already emitted.
      let cursor = Math.max(record.cursor, now + 1);
      for (const fireAt of selection.run) {
        const payload: ChoreFirePayload = {
          kind: 'chore_fire',
          choreId: chore.id,
          fireTime: new Date(fireAt).toISOString(),
          missed: selection.missed && fireAt < now - (this.options.missedGraceMs ?? 60_000),
        };
        try {
          await triggers.emit({
            source: 'scheduled',
            sessionId: this.options.sessionIdFor?.(chore.id) ?? `chore:${chore.id}`,
            payload,
            fireAt,
            dedupKey: fireKey(chore.id, fireAt),
          });
        } catch (error) {
          // Do not move past a fire that was not recorded: the next tick selects it again.
          logger.error('CHORE', `chore ${chore.id}: could not record the fire at ${payload.fireTime}; it will be retried`, error);
          cursor = fireAt;
          this.retryPending = true;
          break;
        }
        if (!outstanding.includes(fireAt)) outstanding.push(fireAt);
        logger.info('CHORE', `chore ${chore.id}: fire ${payload.fireTime}${payload.missed ? ' (missed, drift ' + chore.drift + ')' : ''}`);
      }
      if (cursor !== record.cursor || outstanding.length !== record.outstanding.length) {
        this.store({ ...record, cursor, outstanding: outstanding.sort((a, b) => a - b) });
        dirty = true;
      }
    }
    if (dirty) await this.options.persistence.flush();
  }

  private store(record: ChoreScheduleRecord): void {
    const chore = this.chores.get(record.choreId);
    let upcoming: number | undefined;
    try {
      upcoming = chore ? nextFireAfter(chore, record.cursor - 1) : undefined;
    } catch {
      upcoming = undefined;
    }
    const nextFireAt = record.outstanding.length ? record.outstanding[0] : (upcoming ?? null);
    const full = { ...record, nextFireAt };
    this.records.set(record.choreId, full);
    this.options.persistence.save(full);
  }

  /** One timer for the earliest upcoming fire of any chore, capped so sleep and clock jumps are noticed. */
  private arm(): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (!this.running) return;
    const now = this.now();
    let earliest = Infinity;
    for (const chore of this.chores.values()) {
      const record = this.records.get(chore.id);
      if (!record) continue;
      try {
        const next = nextFireAfter(chore, Math.max(record.cursor, now) - 1);
        if (next !== undefined) earliest = Math.min(earliest, next);
      } catch {
        // Reported by tick.
      }
    }
    const maxTimerMs = this.options.maxTimerMs ?? 3_600_000;
    const wanted = this.retryPending ? Math.max(earliest - now, this.options.retryDelayMs ?? 30_000) : earliest - now;
    const delay = Math.max(0, Math.min(wanted, maxTimerMs));
    if (!Number.isFinite(delay)) return;
    this.timer = this.options.clock.setTimeout(
      () =>
        this.tick()
          .catch((error) => this.options.logger.error('CHORE', 'the chore schedule could not be saved; retrying at the next timer', error))
          .then(() => this.arm())
          .catch((error) => this.options.logger.error('CHORE', 'the chore schedule could not be re-armed; it runs again after a reload', error)),
      delay,
    );
  }
}
