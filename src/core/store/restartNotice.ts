/**
 * The restart notice: one trigger per restart of a store that was used before, telling the engine
 * what recovery found (claims re-delivered, dead-lettered, the open report's notices). Restarts in
 * a row that were never delivered collapse into one notice that counts them, rather than a pile.
 */
import { toTrigger, TRIGGER_COLUMNS } from './triggerRows';
import type { DurableDb, Trigger, TriggerSpec } from './types';

export function postRestartNotice(
  db: DurableDb,
  o: { ownerId: string; session: string; payload: Record<string, unknown>; now: number; insert: (spec: TriggerSpec) => Trigger },
): Trigger | null {
  if (!db.opened?.restarted) return null;
  // One per restart, even if the store is created twice on one db: remember which owner posted it.
  const last = db.query(`SELECT value FROM meta WHERE key = 'restart_notice_owner'`)[0]?.value;
  if (last === o.ownerId) return null;
  db.mutate(`INSERT OR REPLACE INTO meta (key, value) VALUES ('restart_notice_owner', ?)`, [o.ownerId]);
  const payload = { ...o.payload, notices: db.opened.notices };
  const stale = db.query(
    `SELECT ${TRIGGER_COLUMNS} FROM triggers WHERE source = 'restart_notice' AND status = 'pending' ORDER BY priority, fire_at, rowid LIMIT 1`,
  )[0];
  if (!stale) return o.insert({ source: 'restart_notice', sessionId: o.session, payload: { ...payload, restarts: 1 } });
  const previous = toTrigger(stale).payload as { restarts?: number } | null;
  const merged = { ...payload, restarts: (previous?.restarts ?? 1) + 1 };
  db.mutate(`UPDATE triggers SET payload = ?, fire_at = ? WHERE id = ?`, [JSON.stringify(merged), o.now, stale.id]);
  return toTrigger(db.query(`SELECT ${TRIGGER_COLUMNS} FROM triggers WHERE id = ?`, [String(stale.id)])[0]!);
}
