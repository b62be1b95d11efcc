/**
 * What an emit writes: the spec check, then (inside the caller's transaction) the dedup and
 * coalescing rules, and the insert when no existing trigger already stands for the spec.
 */
import { randomUUID } from 'node:crypto';
import { CLAIM_ORDER, defaultPriority, INSERT_TRIGGER, insertParams, SELECT_TRIGGERS, toTrigger, TRIGGER_SOURCES } from './triggerRows';
import type { DurableDb, Trigger, TriggerSpec } from './types';

export function checkSpec(spec: TriggerSpec): void {
  if (!TRIGGER_SOURCES.includes(spec.source)) {
    throw new Error(`Unknown trigger source "${spec.source}"; use one of: ${TRIGGER_SOURCES.join(', ')}.`);
  }
  if (typeof spec.sessionId !== 'string') throw new Error('emit() needs a sessionId string (use "system" for triggers outside any session).');
}

/**
 * Inside a transaction: applies dedup and coalescing rules, inserts if still needed. A done
 * trigger holds its dedup key for `retentionMs` after it was done.
 */
export function insertOrReuse(db: Pick<DurableDb, 'query' | 'mutate'>, spec: TriggerSpec, now: number, retentionMs: number): Trigger {
  const fireAt = spec.fireAt ?? now;
  const priority = spec.priority ?? defaultPriority(spec.source);
  if (spec.dedupKey !== undefined) {
    const existing = db.query(`${SELECT_TRIGGERS} WHERE dedup_key = ?`, [spec.dedupKey])[0];
    if (existing) {
      const doneExpired = existing.status === 'done' && now - Number(existing.done_at) >= retentionMs;
      // pending, claimed, dead, or done within retention: the key is taken; return what holds it.
      if (!doneExpired) return toTrigger(existing);
      db.mutate(`DELETE FROM triggers WHERE id = ?`, [existing.id]);
    }
  } else if (spec.source === 'task_continuation') {
    // Fresh continuations of one session collapse into one. A pending retry (last_error set) is
    // a different thing, kept apart: neither swallows the other.
    const existing = db.query(
      `${SELECT_TRIGGERS} WHERE session_id = ? AND source = 'task_continuation' AND status = 'pending' AND last_error IS NULL AND dedup_key IS NULL ${CLAIM_ORDER} LIMIT 1`,
      [spec.sessionId],
    )[0];
    if (existing) {
      if (fireAt < Number(existing.fire_at) || priority < Number(existing.priority)) {
        db.mutate(`UPDATE triggers SET fire_at = min(fire_at, ?), priority = min(priority, ?) WHERE id = ?`, [fireAt, priority, existing.id]);
      }
      return toTrigger(db.query(`${SELECT_TRIGGERS} WHERE id = ?`, [String(existing.id)])[0]!);
    }
  }
  const trigger: Trigger = {
    id: randomUUID(),
    source: spec.source,
    sessionId: spec.sessionId,
    payload: spec.payload ?? null,
    fireAt,
    priority,
    dedupKey: spec.dedupKey ?? null,
    attempts: 0,
    status: 'pending',
    createdAt: now,
    lastError: null,
  };
  db.mutate(INSERT_TRIGGER, insertParams(trigger));
  return trigger;
}
