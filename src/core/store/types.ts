/**
 * Contracts of the durable store (docs/DESIGN.md §2, §5). Implemented in this folder on sql.js with a
 * journal of mutations; used by the engine, approvals, the ledger and chores.
 */
import type { Clock } from '../ports';

export type SqlValue = string | number | null | Uint8Array;
export type Row = Record<string, SqlValue>;

/**
 * The hot database. Every mutation goes through `mutate` (or `transaction`) so it can be journaled
 * and replayed: statements must be deterministic (pass times and ids as parameters; never
 * `datetime('now')` or `random()` inside SQL).
 */
export interface DurableDb {
  /** Read rows. */
  query(sql: string, params?: SqlValue[]): Row[];
  /** Apply one mutation now and queue it for the next group commit. */
  mutate(sql: string, params?: SqlValue[]): { changes: number };
  /** Apply several mutations atomically (one journal record). */
  transaction<T>(fn: (tx: { mutate: DurableDb['mutate']; query: DurableDb['query'] }) => T): T;
  /** Resolves when everything mutated so far is fsync'd (mutations of one tick share one fsync). Rejects if the commit failed. */
  commit(): Promise<void>;
  /** False after a failed commit until a later commit succeeds: irreversible actions must refuse to run. */
  readonly durable: boolean;
  close(): Promise<void>;
  /**
   * What a store opened from a folder knows about itself (durableDb.ts `OpenedDurableDb`); an
   * in-memory database has none of these. The archive and the trigger history live next to `dir`;
   * a trigger store claims as `ownerId` on `clock`, writes no history when `readOnly`, and emits
   * a restart notice when `opened.restarted`.
   */
  readonly dir?: string;
  readonly ownerId?: string;
  readonly clock?: Clock;
  readonly readOnly?: boolean;
  readonly opened?: { readonly restarted: boolean; readonly notices: string[] };
}

export type TriggerSource =
  | 'user_message'
  | 'task_continuation'
  | 'scheduled'
  | 'scheduled_once'
  | 'scheduled_immediate'
  | 'file_event'
  | 'task_event'
  | 'approval'
  | 'memory'
  | 'proactive'
  | 'restart_notice'
  | 'resume';

export interface TriggerSpec {
  source: TriggerSource;
  sessionId: string;
  payload?: unknown;
  /** Epoch ms; default now. */
  fireAt?: number;
  /** Lower runs first; default 100. User messages use 10. */
  priority?: number;
  dedupKey?: string;
}

export type TriggerStatus = 'pending' | 'claimed' | 'done' | 'dead' | 'cancelled';

export interface Trigger {
  id: string;
  source: TriggerSource;
  sessionId: string;
  payload: unknown;
  fireAt: number;
  priority: number;
  dedupKey: string | null;
  attempts: number;
  status: TriggerStatus;
  createdAt: number;
  lastError: string | null;
}

export interface Lease {
  token: string;
  trigger: Trigger;
}

export interface TriggerStore {
  /** Durable before it resolves. A dedup key already pending/claimed/done-within-retention returns the existing trigger. */
  emit(spec: TriggerSpec): Promise<Trigger>;
  /** Waits (timer for the earliest fire_at, woken by emit) and claims the next due trigger. */
  next(signal?: AbortSignal): Promise<Lease>;
  /** Only the matching token takes effect; returns false for a stale token. */
  ack(token: string): Promise<boolean>;
  /**
   * Emits `next` and acks `token` in one transaction, so one journal record: the claimed trigger
   * is settled exactly when its successor is durable (a crash keeps both or neither), and a turn
   * pays one durable write for the two. `acked` is false for a stale token (then only the emit
   * happened, as `emit` would do it).
   */
  ackAndEmit(token: string, next: TriggerSpec): Promise<{ acked: boolean; trigger: Trigger }>;
  /**
   * The delivery failed: retried with backoff, dead-lettered after the last attempt. `final`:
   * dead-letter it now (retrying cannot help, e.g. its payload is invalid).
   */
  nack(token: string, error: string, options?: { final?: boolean }): Promise<boolean>;
  rearm(triggerId: string, fireAt: number): Promise<void>;
  /** Make the session's pending triggers due now (a reply wakes a waiting task). */
  pullForward(sessionId: string): Promise<void>;
  /**
   * Removes the session's pending (not claimed) triggers, or only those `only` selects; returns
   * how many. Their dedup keys become free.
   */
  cancel(sessionId: string, only?: (trigger: Trigger) => boolean): Promise<number>;
  /**
   * Resolves when no trigger is claimed and none is due at `now` (ms): at once if that holds now,
   * else after the ack, nack, rearm or cancel that makes it hold. Rejects if the store closes first.
   * Tests and headless runs wait on it to know the queue has nothing left to do until time moves.
   */
  drained(now: number): Promise<void>;
  /** Unsettled triggers (status pending or claimed), in claim order: priority, fire_at, emit order. */
  pending(sessionId?: string): Trigger[];
  /** Dead letters, oldest first; `tasklane.getState` lists them. */
  deadLetters(): Trigger[];
  /** Moves a dead letter back to pending with its attempts reset. */
  retryDead(triggerId: string): Promise<Trigger>;
  /** Removes dead letters for good (the user dismissed them); they go to the trigger history as `dismissed`. Returns how many. */
  dismissDead(triggerIds: readonly string[]): Promise<number>;
  /** Drops trigger-history lines settled before `before` (ms); returns how many were dropped. */
  pruneHistory(before: number): Promise<number>;
  close(): Promise<void>;
}
