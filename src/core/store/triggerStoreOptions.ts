/** The trigger store's options and what it reports at start (triggerStore.ts implements them). */
import type { Clock, Logger } from '../ports';
import type { RetryPolicy } from './backoff';
import type { Trigger, TriggerStore } from './types';

export interface TriggerStoreOptions {
  /** Defaults to the db's clock (an opened store has one), else the system clock. */
  clock?: Clock;
  /** A clock that never steps, to notice the wall clock being set back (default: performance.now with the system clock, none with another). */
  monotonic?: () => number;
  logger?: Logger;
  /** Backoff and dead-letter policy; missing fields take DEFAULT_RETRY's. */
  retry?: Partial<RetryPolicy>;
  /** How long an acked trigger's dedup key keeps swallowing re-emits. Default 24 h. */
  retentionMs?: number;
  /** Called once per dead-lettered trigger, after it is durable, so the engine can post a visible event. */
  onDeadLetter?: (trigger: Trigger) => void;
  /** Session the restart notice is posted to; false: emit none. Default 'system'. */
  restartNoticeSession?: string | false;
  /** Archive file for acked/cancelled triggers; null: none. Default <db.dir>/history/triggers.jsonl when the db has a dir. */
  historyFile?: string | null;
  /** Identifies this process's claims; default the db's ownerId. Claims by any other owner are re-delivered at start. */
  ownerId?: string;
  /** Jitter source, injectable for deterministic tests. */
  random?: () => number;
}

/** A trigger store that accepts calls while start-up recovery runs; they wait for `ready`. */
export interface StartingTriggerStore extends TriggerStore {
  /** Resolves when recovery (re-delivery, dead-lettering, the restart notice) is durable. */
  readonly ready: Promise<void>;
  /** What recovery did; set once ready. */
  readonly recovery: RecoveryReport;
}

/** What the store found at start. */
export interface RecoveryReport {
  /** Triggers a dead process had claimed, now pending again (attempts kept). */
  redelivered: string[];
  /** Claimed triggers that had used up their attempts (poison pills), now dead. */
  deadLettered: string[];
  /** The restart notice emitted, if any. */
  restartNotice: Trigger | null;
}
