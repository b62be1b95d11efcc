/**
 * The trigger store's start-up recovery, in one transaction: the claims a dead owner left are
 * re-delivered or dead-lettered (abandonedClaims.ts), done rows past retention are swept, and one
 * restart notice is posted (restartNotice.ts). The store makes it durable and reports it.
 */
import { settleAbandonedClaims } from './abandonedClaims';
import { postRestartNotice } from './restartNotice';
import { SELECT_TRIGGERS, toTrigger } from './triggerRows';
import type { DurableDb, Trigger, TriggerSpec } from './types';

export interface RecoveredClaims {
  /** How many claims another owner left. */
  claimed: number;
  redelivered: string[];
  dead: Trigger[];
  restartNotice: Trigger | null;
}

export function recoverClaims(
  db: DurableDb,
  o: {
    ownerId: string;
    maxAttempts: number;
    retentionMs: number;
    now: number;
    /** The session the restart notice goes to; false: none. */
    noticeSession: string | false;
    /** The store's insert (its dedup and coalescing rules), for the notice. */
    insert: (spec: TriggerSpec) => Trigger;
  },
): RecoveredClaims {
  const claimed = db.query(`${SELECT_TRIGGERS} WHERE status = 'claimed' AND (lease_owner IS NULL OR lease_owner <> ?)`, [o.ownerId]);
  return db.transaction((tx) => {
    const { dead, redelivered } = settleAbandonedClaims(tx, claimed.map(toTrigger), o.maxAttempts);
    tx.mutate(`DELETE FROM triggers WHERE status = 'done' AND done_at <= ?`, [o.now - o.retentionMs]);
    const payload = { redelivered: redelivered.length, deadLettered: dead.length, at: o.now };
    const restartNotice =
      o.noticeSession === false ? null : postRestartNotice(db, { ownerId: o.ownerId, session: o.noticeSession, payload, now: o.now, insert: o.insert });
    return { claimed: claimed.length, redelivered, dead, restartNotice };
  });
}
