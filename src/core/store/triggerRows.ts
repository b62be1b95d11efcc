import type { Row, SqlValue, Trigger, TriggerSource, TriggerStatus } from './types';

/** Every column, in the order the store selects them. */
export const TRIGGER_COLUMNS =
  'id, source, session_id, payload, fire_at, priority, dedup_key, attempts, status, lease_token, lease_owner, created_at, last_error, done_at';

/** Every column of every trigger: add a WHERE. */
export const SELECT_TRIGGERS = `SELECT ${TRIGGER_COLUMNS} FROM triggers`;

/** The order triggers are claimed in: priority, then due time, then insertion. */
export const CLAIM_ORDER = 'ORDER BY priority, fire_at, rowid';

export const SELECT_WITH_ROWID = `SELECT ${TRIGGER_COLUMNS}, rowid FROM triggers`;

/** `CLAIM_ORDER` in JavaScript, for rows selected with their rowid. */
export const byClaimOrder = (a: Row, b: Row): number =>
  Number(a.priority) - Number(b.priority) || Number(a.fire_at) - Number(b.fire_at) || Number(a.rowid) - Number(b.rowid);

export const TRIGGER_SOURCES: readonly TriggerSource[] = [
  'user_message',
  'task_continuation',
  'scheduled',
  'scheduled_once',
  'scheduled_immediate',
  'file_event',
  'task_event',
  'approval',
  'memory',
  'proactive',
  'restart_notice',
  'resume',
];

/** Default priority per source: lower runs first. A user waiting on a reply beats background work. */
export function defaultPriority(source: TriggerSource): number {
  return source === 'user_message' ? 10 : source === 'restart_notice' ? 5 : 100;
}

export function toTrigger(row: Row): Trigger {
  let payload: unknown;
  try {
    payload = JSON.parse(String(row.payload));
  } catch {
    payload = row.payload;
  }
  return {
    id: String(row.id),
    source: row.source as TriggerSource,
    sessionId: String(row.session_id),
    payload,
    fireAt: Number(row.fire_at),
    priority: Number(row.priority),
    dedupKey: row.dedup_key === null ? null : String(row.dedup_key),
    attempts: Number(row.attempts),
    status: row.status as TriggerStatus,
    createdAt: Number(row.created_at),
    lastError: row.last_error === null ? null : String(row.last_error),
  };
}

export function insertParams(t: Trigger): SqlValue[] {
  return [t.id, t.source, t.sessionId, JSON.stringify(t.payload ?? null), t.fireAt, t.priority, t.dedupKey, t.attempts, t.status, t.createdAt, t.lastError];
}

export const INSERT_TRIGGER =
  'INSERT INTO triggers (id, source, session_id, payload, fire_at, priority, dedup_key, attempts, status, created_at, last_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
