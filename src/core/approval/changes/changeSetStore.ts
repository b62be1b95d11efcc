import type { Clock } from '../../ports';
import { decodeRow, decodeRows, DurableRowError } from '../../store/decodeRow';
import type { DurableDb, SqlValue } from '../../store/types';
import { changeSetSchema } from './changeSet';
import type { ChangeSet, ChangeSetStatus } from './changeSet';

/** Which change sets to list; fields combine with AND. */
export interface ChangeSetFilter {
  status?: ChangeSetStatus | readonly ChangeSetStatus[];
  taskId?: string;
  sessionId?: string;
}

/**
 * Durable home of proposed change sets, so a task can wait for a decision across reloads. Writes
 * are durable before they resolve. Updates are compare-and-set on the status, so two approvals
 * racing (palette and sidebar) cannot both apply the same set.
 */
export interface ChangeSetStore {
  /** Stores a new change set; rejects if the id exists. */
  insert(changeSet: ChangeSet): Promise<void>;
  /** Replaces the stored set only if its stored status is still `expectedStatus`; false otherwise (someone else decided first). */
  update(changeSet: ChangeSet, expectedStatus: ChangeSetStatus): Promise<boolean>;
  load(id: string): Promise<ChangeSet | undefined>;
  /** Oldest first (creation time, then id). */
  list(filter?: ChangeSetFilter): Promise<ChangeSet[]>;
  /** The oldest pending set: what `tasklane.approve` / `tasklane.reject` act on without an id. */
  oldestPending(): Promise<ChangeSet | undefined>;
  /** Removes a decided set once its outcome is recorded elsewhere (keeps the hot database small). */
  delete(id: string): Promise<boolean>;
}

/** In-memory store for tests and headless runs; copies on the way in and out like a database would. */
export class InMemoryChangeSetStore implements ChangeSetStore {
  private readonly sets = new Map<string, ChangeSet>();

  async insert(changeSet: ChangeSet): Promise<void> {
    if (this.sets.has(changeSet.id)) throw new Error(`Change set ${changeSet.id} already exists; propose it under a new id`);
    this.sets.set(changeSet.id, structuredClone(changeSet));
  }

  async update(changeSet: ChangeSet, expectedStatus: ChangeSetStatus): Promise<boolean> {
    if (this.sets.get(changeSet.id)?.status !== expectedStatus) return false;
    this.sets.set(changeSet.id, structuredClone(changeSet));
    return true;
  }

  async load(id: string): Promise<ChangeSet | undefined> {
    const found = this.sets.get(id);
    return found === undefined ? undefined : structuredClone(found);
  }

  async list(filter: ChangeSetFilter = {}): Promise<ChangeSet[]> {
    const statuses = statusList(filter.status);
    return [...this.sets.values()]
      .filter(
        (s) =>
          (statuses === undefined || statuses.includes(s.status)) &&
          (filter.taskId === undefined || s.taskId === filter.taskId) &&
          (filter.sessionId === undefined || s.sessionId === filter.sessionId),
      )
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((s) => structuredClone(s));
  }

  async oldestPending(): Promise<ChangeSet | undefined> {
    return (await this.list({ status: 'pending' }))[0];
  }

  async delete(id: string): Promise<boolean> {
    return this.sets.delete(id);
  }
}

/**
 * The store on the hot database's `approvals` table (id, task_id, session_id, status, data JSON,
 * created_at, updated_at), created by the store's migrations. The whole set lives in `data`;
 * the columns repeat what is filtered and sorted on.
 */
export class DbChangeSetStore implements ChangeSetStore {
  constructor(
    private readonly db: DurableDb,
    private readonly clock: Clock,
    /** Told about each row a list leaves out because it does not decode (its id and field). */
    private readonly report: (error: DurableRowError) => void = () => {},
  ) {}

  async insert(changeSet: ChangeSet): Promise<void> {
    const now = this.clock.now();
    this.db.mutate('INSERT INTO approvals (id, task_id, session_id, status, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      changeSet.id,
      changeSet.taskId,
      changeSet.sessionId,
      changeSet.status,
      JSON.stringify(changeSet),
      changeSet.createdAt,
      now,
    ]);
    await this.db.commit();
  }

  async update(changeSet: ChangeSet, expectedStatus: ChangeSetStatus): Promise<boolean> {
    const { changes } = this.db.mutate('UPDATE approvals SET status = ?, data = ?, updated_at = ? WHERE id = ? AND status = ?', [
      changeSet.status,
      JSON.stringify(changeSet),
      this.clock.now(),
      changeSet.id,
      expectedStatus,
    ]);
    if (changes === 0) return false;
    await this.db.commit();
    return true;
  }

  async load(id: string): Promise<ChangeSet | undefined> {
    const [row] = this.db.query('SELECT id, data FROM approvals WHERE id = ?', [id]);
    if (row === undefined) return undefined;
    try {
      return parseRow(row.id, row.data);
    } catch (error) {
      if (!(error instanceof DurableRowError)) throw error;
      throw new Error(
        `Change set ${id} in the approvals table is damaged (${error.field || 'data'}: ${error.detail.slice(0, 200)}); delete it and let the task propose the edit again`,
        { cause: error },
      );
    }
  }

  async list(filter: ChangeSetFilter = {}): Promise<ChangeSet[]> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const statuses = statusList(filter.status);
    if (statuses !== undefined) {
      if (statuses.length === 0) return [];
      where.push(`status IN (${statuses.map(() => '?').join(', ')})`);
      params.push(...statuses);
    }
    if (filter.taskId !== undefined) {
      where.push('task_id = ?');
      params.push(filter.taskId);
    }
    if (filter.sessionId !== undefined) {
      where.push('session_id = ?');
      params.push(filter.sessionId);
    }
    const sql = `SELECT id, data FROM approvals${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, id`;
    // One damaged row must not hide the other sets (nor the review of them): it is reported, left out.
    return decodeRows(this.db.query(sql, params), (row) => parseRow(row.id, row.data), this.report);
  }

  async oldestPending(): Promise<ChangeSet | undefined> {
    // The first that decodes: a damaged older set is reported, and does not block the review of the next.
    for (const row of this.db.query("SELECT id, data FROM approvals WHERE status = 'pending' ORDER BY created_at, id")) {
      const [set] = decodeRows([row], (r) => parseRow(r.id, r.data), this.report);
      if (set) return set;
    }
    return undefined;
  }

  async delete(id: string): Promise<boolean> {
    const { changes } = this.db.mutate('DELETE FROM approvals WHERE id = ?', [id]);
    if (changes > 0) await this.db.commit();
    return changes > 0;
  }
}

function statusList(status: ChangeSetFilter['status']): readonly ChangeSetStatus[] | undefined {
  return status === undefined ? undefined : typeof status === 'string' ? [status] : status;
}

/**
 * A damaged row is reported, not half-used: applying a change set built from garbage would be
 * worse. Throws DurableRowError naming the set and the field.
 */
function parseRow(id: SqlValue, data: SqlValue): ChangeSet {
  return decodeRow(changeSetSchema, 'change set', data, String(id)) as ChangeSet;
}
