/**
 * The durable trigger queue: emit, claim (`next`), ack, nack with backoff, dead letters. The parts
 * live beside it: what an emit writes (triggerInsert.ts), how `next` waits (workWaiters.ts) and
 * what start-up recovery does (triggerRecovery.ts).
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import type { Clock, Logger } from '../ports';
import { silentLogger, systemClock } from '../ports';
import type { RetryPolicy } from './backoff';
import { backoffDelay, DEFAULT_RETRY } from './backoff';
import { recoverClaims } from './triggerRecovery';
import { DrainWaiters } from './drainWaiters';
import { HistoryLog } from './historyLog';
import { ClockWatch, performanceClock } from './clockWatch';
import { CommitError } from './journalWriter';
import { byClaimOrder, CLAIM_ORDER, SELECT_TRIGGERS, SELECT_WITH_ROWID, toTrigger } from './triggerRows';
import { checkSpec, insertOrReuse } from './triggerInsert';
import { AbortError, WorkWaiters } from './workWaiters';
import type { RecoveryReport, StartingTriggerStore, TriggerStoreOptions } from './triggerStoreOptions';
import type { DurableDb, Lease, Row, Trigger, TriggerSpec } from './types';

export type { RecoveryReport, StartingTriggerStore, TriggerStoreOptions } from './triggerStoreOptions';

/** The longest wait between two attempts to save a claim while the disk refuses writes. */
const CLAIM_RETRY_MAX_MS = 60_000;

/** Done rows past retention are swept at most this often (on ack), so acks stay O(1). */
const PRUNE_EVERY_MS = 60_000;

class TriggerStoreImpl implements StartingTriggerStore {
  readonly ready: Promise<void>;
  readonly recovery: RecoveryReport = { redelivered: [], deadLettered: [], restartNotice: null };
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly retry: RetryPolicy;
  private readonly retentionMs: number;
  private readonly ownerId: string;
  private readonly history: HistoryLog | null;
  private readonly work: WorkWaiters;
  private readonly drainWaiters: DrainWaiters;
  private closed = false;
  private lastPrune = 0;
  /** Watches the wall clock against the monotonic one; only for the system clock (a test's fake clock has no monotonic twin unless it gives one). */
  private readonly clockWatch: ClockWatch | null;

  constructor(
    private readonly db: DurableDb,
    private readonly options: TriggerStoreOptions,
  ) {
    this.clock = options.clock ?? db.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.retentionMs = options.retentionMs ?? 24 * 3_600_000;
    this.ownerId = options.ownerId ?? db.ownerId ?? randomUUID();
    this.drainWaiters = new DrainWaiters(db);
    this.work = new WorkWaiters(this.clock);
    const monotonic = options.monotonic ?? (this.clock === systemClock ? performanceClock : undefined);
    this.clockWatch = monotonic ? new ClockWatch(monotonic) : null;
    const historyFile = options.historyFile === undefined ? (db.dir ? path.join(db.dir, 'history', 'triggers.jsonl') : null) : options.historyFile;
    this.history = historyFile && !db.readOnly ? new HistoryLog(historyFile, this.logger) : null;
    this.ready = this.recover();
    this.ready.catch(() => undefined); // surfaced through every call that awaits it
  }

  async emit(spec: TriggerSpec): Promise<Trigger> {
    await this.ready;
    checkSpec(spec);
    const trigger = this.db.transaction(() => this.insert(spec));
    await this.db.commit();
    this.work.wake();
    return trigger;
  }

  async ackAndEmit(token: string, next: TriggerSpec): Promise<{ acked: boolean; trigger: Trigger }> {
    await this.ready;
    checkSpec(next);
    const now = this.clock.now();
    const { trigger, settled } = this.db.transaction(() => ({ trigger: this.insert(next), settled: this.settleAcked(token, now) }));
    await this.db.commit();
    this.work.wake();
    if (settled) this.acked(settled, now);
    return { acked: settled !== undefined, trigger };
  }

  async next(signal?: AbortSignal): Promise<Lease> {
    await this.ready;
    let failedClaims = 0;
    for (;;) {
      if (this.closed) throw new Error('The trigger store is closed; next() will not return a trigger.');
      if (signal?.aborted) throw new AbortError();
      this.followClockSteps();
      const lease = this.claimDue();
      if (lease) {
        try {
          await this.db.commit();
        } catch (error) {
          // Not durable: give it back rather than run work whose claim a crash would forget.
          this.db.mutate(`UPDATE triggers SET status = 'pending', lease_token = NULL, lease_owner = NULL, attempts = attempts - 1 WHERE lease_token = ?`, [
            lease.token,
          ]);
          // A full disk or an I/O error passes: the consumer waits and claims again (as the notice
          // promises, "retries"), 1 s, 2 s, 4 s … up to a minute, or sooner when an emit succeeds.
          // Anything else (the store closed or taken over) ends the loop.
          if (!(error instanceof CommitError)) throw error;
          const delay = Math.min(CLAIM_RETRY_MAX_MS, 1_000 * 2 ** failedClaims++);
          this.logger.warn('TRIGGER', `Could not save the claim of ${lease.trigger.source} ${lease.trigger.id}; trying again in ${delay / 1000} s.`);
          await this.work.wait(this.clock.now() + delay, signal);
          continue;
        }
        this.logger.trace(
          'TRIGGER',
          `claimed ${lease.trigger.source} ${lease.trigger.id} (session ${lease.trigger.sessionId}, attempt ${lease.trigger.attempts})`,
        );
        return lease;
      }
      await this.work.wait(this.earliestPending(), signal);
    }
  }

  async ack(token: string): Promise<boolean> {
    await this.ready;
    const now = this.clock.now();
    const row = this.settleAcked(token, now);
    if (!row) return false;
    await this.db.commit();
    this.acked(row, now);
    return true;
  }

  /** The mutations of an ack (not yet durable); the claimed row, or undefined for a stale token. */
  private settleAcked(token: string, now: number): Row | undefined {
    const row = this.byToken(token);
    if (!row) return undefined;
    if (row.dedup_key !== null) {
      // Kept (status done) for retentionMs so a late duplicate emit is recognised.
      this.db.mutate(`UPDATE triggers SET status = 'done', lease_token = NULL, lease_owner = NULL, done_at = ? WHERE id = ?`, [now, row.id]);
    } else {
      this.db.mutate(`DELETE FROM triggers WHERE id = ?`, [row.id]);
    }
    this.maybePrune(now);
    return row;
  }

  /** After an ack is durable: its history line, and whoever waits for the queue to drain. */
  private acked(row: Row, now: number): void {
    this.history?.append({ ...toTrigger(row), status: 'done', doneAt: now });
    this.drainWaiters.check();
  }

  async nack(token: string, error: string, options: { final?: boolean } = {}): Promise<boolean> {
    await this.ready;
    const row = this.byToken(token);
    if (!row) return false;
    const trigger = toTrigger(row);
    if (options.final || trigger.attempts >= this.retry.maxAttempts) {
      this.db.mutate(`UPDATE triggers SET status = 'dead', lease_token = NULL, lease_owner = NULL, last_error = ? WHERE id = ?`, [error, trigger.id]);
      await this.db.commit();
      this.deadLettered({ ...trigger, status: 'dead', lastError: error });
      this.drainWaiters.check();
      return true;
    }
    const delay = backoffDelay(trigger.attempts, this.retry, this.options.random);
    this.db.mutate(`UPDATE triggers SET status = 'pending', lease_token = NULL, lease_owner = NULL, last_error = ?, fire_at = ? WHERE id = ?`, [
      error,
      this.clock.now() + delay,
      trigger.id,
    ]);
    await this.db.commit();
    this.logger.info(
      'TRIGGER',
      `${trigger.source} ${trigger.id} failed (attempt ${trigger.attempts}/${this.retry.maxAttempts}); retrying in ${delay} ms: ${error}`,
    );
    this.work.wake();
    this.drainWaiters.check();
    return true;
  }

  async rearm(triggerId: string, fireAt: number): Promise<void> {
    await this.ready;
    const row = this.byId(triggerId);
    if (!row || (row.status !== 'pending' && row.status !== 'claimed')) {
      throw new Error(
        `Trigger ${triggerId} is ${row ? row.status : 'unknown'}; only a pending or claimed trigger can be re-armed. Emit a new trigger instead.`,
      );
    }
    if (row.status === 'claimed') {
      // The delivery that re-arms it succeeded: its attempt must not count towards dead-lettering.
      this.db.mutate(
        `UPDATE triggers SET status = 'pending', lease_token = NULL, lease_owner = NULL, attempts = 0, last_error = NULL, fire_at = ? WHERE id = ?`,
        [fireAt, triggerId],
      );
    } else {
      this.db.mutate(`UPDATE triggers SET fire_at = ? WHERE id = ?`, [fireAt, triggerId]);
    }
    await this.db.commit();
    this.work.wake();
    this.drainWaiters.check();
  }

  async pullForward(sessionId: string): Promise<void> {
    await this.ready;
    const now = this.clock.now();
    // Retries in backoff (last_error set) keep their delay: a reply is no reason to hammer a failing turn.
    const { changes } = this.db.mutate(`UPDATE triggers SET fire_at = ? WHERE session_id = ? AND status = 'pending' AND fire_at > ? AND last_error IS NULL`, [
      now,
      sessionId,
      now,
    ]);
    await this.db.commit();
    if (changes > 0) this.work.wake();
  }

  async cancel(sessionId: string, only?: (trigger: Trigger) => boolean): Promise<number> {
    await this.ready;
    const rows = this.db.query(`${SELECT_TRIGGERS} WHERE session_id = ? AND status = 'pending'`, [sessionId]).filter((row) => !only || only(toTrigger(row)));
    if (rows.length === 0) return 0;
    if (only) for (const row of rows) this.db.mutate(`DELETE FROM triggers WHERE id = ? AND status = 'pending'`, [row.id as string]);
    else this.db.mutate(`DELETE FROM triggers WHERE session_id = ? AND status = 'pending'`, [sessionId]);
    await this.db.commit();
    const now = this.clock.now();
    for (const row of rows) this.history?.append({ ...toTrigger(row), status: 'cancelled', doneAt: now });
    this.drainWaiters.check();
    return rows.length;
  }

  async drained(now: number): Promise<void> {
    await this.ready;
    return this.drainWaiters.wait(now);
  }

  pending(sessionId?: string): Trigger[] {
    if (sessionId === undefined) return this.db.query(`${SELECT_TRIGGERS} WHERE status IN ('pending', 'claimed') ${CLAIM_ORDER}`).map(toTrigger);
    // A session has a handful of live triggers: sorting them here costs less than SQLite's
    // sorter, which the session index cannot spare it (it orders by session and status only).
    const rows = this.db.query(`${SELECT_WITH_ROWID} WHERE session_id = ? AND status IN ('pending', 'claimed')`, [sessionId]);
    rows.sort(byClaimOrder);
    return rows.map(toTrigger);
  }

  deadLetters(): Trigger[] {
    return this.db.query(`${SELECT_TRIGGERS} WHERE status = 'dead' ORDER BY created_at, rowid`).map(toTrigger);
  }

  async retryDead(triggerId: string): Promise<Trigger> {
    await this.ready;
    const row = this.byId(triggerId);
    if (!row || row.status !== 'dead') {
      throw new Error(`Trigger ${triggerId} is ${row ? row.status : 'unknown'}, not a dead letter; see deadLetters() for what can be retried.`);
    }
    this.db.mutate(`UPDATE triggers SET status = 'pending', attempts = 0, last_error = NULL, fire_at = ? WHERE id = ?`, [this.clock.now(), triggerId]);
    await this.db.commit();
    this.work.wake();
    return toTrigger(this.byId(triggerId)!);
  }

  async dismissDead(triggerIds: readonly string[]): Promise<number> {
    await this.ready;
    const rows = triggerIds.map((id) => this.byId(id)).filter((row): row is Row => !!row && row.status === 'dead');
    if (rows.length === 0) return 0;
    this.db.transaction((tx) => {
      for (const row of rows) tx.mutate(`DELETE FROM triggers WHERE id = ? AND status = 'dead'`, [row.id]);
    });
    await this.db.commit();
    const now = this.clock.now();
    for (const row of rows) this.history?.append({ ...toTrigger(row), status: 'dismissed', doneAt: now });
    return rows.length;
  }

  async pruneHistory(before: number): Promise<number> {
    return this.history ? this.history.prune((entry) => typeof entry.doneAt === 'number' && entry.doneAt < before) : 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.work.wake();
    this.drainWaiters.fail(new Error('The trigger store closed before it drained.'));
    await this.history?.close();
  }

  /** Inside a transaction: the dedup and coalescing rules of triggerInsert.ts, at the store's clock and retention. */
  private insert(spec: TriggerSpec): Trigger {
    return insertOrReuse(this.db, spec, this.clock.now(), this.retentionMs);
  }

  /**
   * A wall clock set back would leave queued work waiting for the size of the step: what was due
   * "now" is due an hour from the new now. Pending triggers keep their distance from now instead
   * (a 2 s retry stays 2 s away, a message due now is due now), and the log says so.
   */
  private followClockSteps(): void {
    const now = this.clock.now();
    const step = this.clockWatch?.step(now) ?? 0;
    if (step >= 0 || this.db.readOnly) return;
    const { changes } = this.db.mutate(`UPDATE triggers SET fire_at = max(?, fire_at + ?) WHERE status = 'pending' AND fire_at > ?`, [
      now,
      Math.round(step),
      now,
    ]);
    this.logger.warn(
      'TRIGGER',
      `The system clock went back ${Math.round(-step / 1000)} s; ${changes} queued trigger(s) keep their place instead of waiting that much longer.`,
    );
  }

  private claimDue(): Lease | null {
    const row = this.db.query(`${SELECT_TRIGGERS} WHERE status = 'pending' AND fire_at <= ? ${CLAIM_ORDER} LIMIT 1`, [this.clock.now()])[0];
    if (!row) return null;
    const token = randomUUID();
    // The attempt is counted at claim time, so a delivery that kills the process still counts.
    this.db.mutate(`UPDATE triggers SET status = 'claimed', lease_token = ?, lease_owner = ?, attempts = attempts + 1 WHERE id = ?`, [
      token,
      this.ownerId,
      row.id,
    ]);
    return { token, trigger: { ...toTrigger(row), status: 'claimed', attempts: Number(row.attempts) + 1 } };
  }

  /** When the earliest pending trigger is due; undefined when none is pending. */
  private earliestPending(): number | undefined {
    const at = this.db.query(`SELECT min(fire_at) AS at FROM triggers WHERE status = 'pending'`)[0]?.at;
    return at === null || at === undefined ? undefined : Number(at);
  }

  private byToken(token: string): Row | undefined {
    return this.db.query(`${SELECT_TRIGGERS} WHERE lease_token = ? AND status = 'claimed'`, [token])[0];
  }

  private byId(id: string): Row | undefined {
    return this.db.query(`${SELECT_TRIGGERS} WHERE id = ?`, [id])[0];
  }

  private maybePrune(now: number): void {
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.db.mutate(`DELETE FROM triggers WHERE status = 'done' AND done_at <= ?`, [now - this.retentionMs]);
  }

  private deadLettered(trigger: Trigger): void {
    this.logger.warn(
      'TRIGGER',
      `${trigger.source} ${trigger.id} (session ${trigger.sessionId}) dead-lettered after ${trigger.attempts} attempt(s): ${trigger.lastError}`,
    );
    try {
      this.options.onDeadLetter?.(trigger);
    } catch (error) {
      this.logger.error('TRIGGER', 'onDeadLetter threw; the dead letter itself is saved.', error);
    }
  }

  /** Re-delivers a dead owner's claims, dead-letters poison pills, emits one restart notice (triggerRecovery.ts). */
  private async recover(): Promise<void> {
    if (this.db.readOnly) return;
    const now = this.clock.now();
    // The clock went back while no one was running: a trigger created "in the future" keeps the
    // delay it was given at creation, from now (the best a restart can know).
    this.db.mutate(`UPDATE triggers SET fire_at = max(?, fire_at - (created_at - ?)), created_at = ? WHERE status = 'pending' AND created_at > ?`, [
      now,
      now,
      now,
      now + 60_000,
    ]);
    const found = recoverClaims(this.db, {
      ownerId: this.ownerId,
      maxAttempts: this.retry.maxAttempts,
      retentionMs: this.retentionMs,
      now,
      noticeSession: this.options.restartNoticeSession ?? 'system',
      insert: (spec) => this.insert(spec),
    });
    this.recovery.redelivered.push(...found.redelivered);
    this.recovery.restartNotice = found.restartNotice;
    this.recovery.deadLettered = found.dead.map((t) => t.id);
    this.lastPrune = now;
    await this.db.commit();
    for (const trigger of found.dead) this.deadLettered(trigger);
    if (found.claimed > 0)
      this.logger.info(
        'TRIGGER',
        `Recovered ${found.claimed} claimed trigger(s) from a previous run: ${found.redelivered.length} re-delivered, ${found.dead.length} dead-lettered.`,
      );
  }
}

/** Creates the store and starts recovery; calls made before `ready` wait for it (nothing is lost or doubled). */
export function startTriggerStore(db: DurableDb, options: TriggerStoreOptions = {}): StartingTriggerStore {
  return new TriggerStoreImpl(db, options);
}

/** Creates the store and resolves once start-up recovery is durable. */
export async function createTriggerStore(db: DurableDb, options: TriggerStoreOptions = {}): Promise<StartingTriggerStore> {
  const store = startTriggerStore(db, options);
  await store.ready;
  return store;
}
