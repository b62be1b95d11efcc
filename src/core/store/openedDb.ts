/** What opening a store folder takes and gives (durableDb.ts `openDurableDb` implements it). */
import type { SqlJsStatic } from 'sql.js';
import type { Clock, Logger } from '../ports';
import type { LeaseInfo, LeaseTimers } from './lease';
import type { JournalIo } from './storeFiles';
import type { DurableDb } from './types';

export interface OpenDurableDbOptions {
  /** The store folder (the host passes a folder under context.storageUri). Created if missing. */
  dir: string;
  sqlJs: SqlJsStatic;
  clock?: Clock;
  logger?: Logger;
  /** User-facing problems found at open or later (corrupt snapshot, torn record, read-only, lost lease, failed commit). */
  onNotice?: (message: string) => void;
  /** Identifies this process's claims (trigger lease_owner) and lease. Default: a random UUID per open. */
  ownerId?: string;
  /** Take a snapshot after this many journal records. Default 5000. */
  snapshotEveryRecords?: number;
  /** Take a snapshot after this long without mutations, if anything changed. Default 30 s. */
  snapshotIdleMs?: number;
  lease?: { heartbeatMs?: number; staleMs?: number; recheckMs?: number; timers?: LeaseTimers };
  /**
   * When a live process owns the store: open read-only and say so (the default: a window can still
   * show history), or throw a StoreInUseError (a command-line run, which can do nothing read-only).
   */
  whenInUse?: 'readOnly' | 'throw';
  /** Journal write path; tests inject faults here. */
  io?: JournalIo;
  /** Use O_DSYNC writes (one syscall per commit) instead of write + fdatasync. Default: where the OS supports it. */
  dsync?: boolean;
}

/** What open() found; the engine shows `notices` and uses `restarted` for the restart notice. */
export interface OpenReport {
  /** There was state from a previous run (a snapshot or journal existed). */
  restarted: boolean;
  /** Another live process owns the store: queries work, mutations throw. */
  readOnly: boolean;
  /** Who owns the store when readOnly. */
  owner: LeaseInfo | null;
  /** A dead owner's stale lease that was taken over. */
  tookOverFrom: LeaseInfo | null;
  snapshotLsn: number;
  snapshotFallback: boolean;
  corruptSnapshots: string[];
  journalRecordsReplayed: number;
  tornRecordIgnored: boolean;
  ignoredBytes: number;
  /** Records lost to damage at rest between good records (each flipped bit costs the record it hit). */
  damagedRecords: number;
  /** Records a replaced owner wrote after the takeover, discarded at replay (fenced by epoch). */
  staleRecords: number;
  /** The newest journal segment the manifest names, when it is missing (its records are lost). */
  missingSegment: number | null;
  schemaVersion: number;
  /** Migration versions applied by this open. */
  migrated: number[];
  openMs: number;
  notices: string[];
}

/** The DurableDb the store folder gives you, plus what open found and a few maintenance hooks. */
export interface OpenedDurableDb extends DurableDb {
  readonly opened: OpenReport;
  readonly dir: string;
  readonly ownerId: string;
  readonly readOnly: boolean;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Highest journal sequence number applied. */
  readonly lastLsn: number;
  /** Writes a snapshot now and prunes the journal (normally done on its own after N records, on idle and on close). */
  snapshot(): Promise<void>;
  /** Registers a callback run when a later commit fails or the lease is lost. */
  onNotice(listener: (message: string) => void): void;
}
