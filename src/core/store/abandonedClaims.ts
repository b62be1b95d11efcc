/**
 * Claims a dead process left behind (a crash or a reload mid-turn), settled at start-up: each is
 * delivered again, or, after its last attempt, dead-lettered, so a trigger that takes the process
 * down cannot do it on every start (docs/STORAGE.md). Runs inside the store's recovery transaction.
 */
import type { DurableDb, Trigger } from './types';

export function settleAbandonedClaims(
  tx: Pick<DurableDb, 'mutate'>,
  claimed: readonly Trigger[],
  maxAttempts: number,
): { dead: Trigger[]; redelivered: string[] } {
  const dead: Trigger[] = [];
  const redelivered: string[] = [];
  for (const trigger of claimed) {
    if (trigger.attempts >= maxAttempts) {
      const error =
        `The process stopped (crash or reload) while handling this trigger, ${trigger.attempts} time(s); it was dead-lettered ` +
        `so it cannot take the extension down on every start. Fix the cause, then retry it from the dead letters.`;
      tx.mutate(`UPDATE triggers SET status = 'dead', lease_token = NULL, lease_owner = NULL, last_error = ? WHERE id = ?`, [error, trigger.id]);
      dead.push({ ...trigger, status: 'dead', lastError: error });
    } else {
      tx.mutate(`UPDATE triggers SET status = 'pending', lease_token = NULL, lease_owner = NULL, last_error = ? WHERE id = ?`, [
        `The process stopped during delivery (attempt ${trigger.attempts}); re-delivered.`,
        trigger.id,
      ]);
      redelivered.push(trigger.id);
    }
  }
  return { dead, redelivered };
}
