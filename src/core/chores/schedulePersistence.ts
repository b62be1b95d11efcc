import type { DurableDb } from '../store/types';

/**
 * What the scheduler keeps per cron chore. `cursor` and `outstanding` together guarantee that the
 * schedule never moves past a fire that did not run: a fire leaves `outstanding` only when the
 * caller marks it done.
 */
export interface ChoreScheduleRecord {
  choreId: string;
  /** `cron|timezone` the record was computed for; a different one restarts the schedule. */
  cronKey: string;
  /** Every fire before this instant (epoch ms) has been emitted or dropped by the drift policy. */
  cursor: number;
  /** Fires emitted as triggers and not yet marked done, oldest first. */
  outstanding: number[];
  /** The earliest fire not done yet (outstanding or upcoming); what the sidebar shows. */
  nextFireAt: number | null;
}

/** Where schedule records live. Synchronous writes plus `flush`, the shape of {@link DurableDb}. */
export interface ChoreSchedulePersistence {
  loadAll(): ChoreScheduleRecord[];
  save(record: ChoreScheduleRecord): void;
  remove(choreId: string): void;
  /** Resolves when everything saved so far is durable. */
  flush(): Promise<void>;
}

/** For tests and headless runs without a database. */
export class InMemorySchedulePersistence implements ChoreSchedulePersistence {
  readonly records = new Map<string, ChoreScheduleRecord>();

  loadAll(): ChoreScheduleRecord[] {
    return [...this.records.values()].map((r) => ({ ...r, outstanding: [...r.outstanding] }));
  }

  save(record: ChoreScheduleRecord): void {
    this.records.set(record.choreId, { ...record, outstanding: [...record.outstanding] });
  }

  remove(choreId: string): void {
    this.records.delete(choreId);
  }

  async flush(): Promise<void> {}
}

/**
 * Schedule records in the store's `chores(id, next_fire_at, data, updated_at)` table; `data` holds
 * the JSON of `{ cronKey, cursor, outstanding }`.
 */
export class DbSchedulePersistence implements ChoreSchedulePersistence {
  constructor(
    private readonly db: DurableDb,
    private readonly now: () => number,
  ) {}

  loadAll(): ChoreScheduleRecord[] {
    const records: ChoreScheduleRecord[] = [];
    for (const row of this.db.query('SELECT id, next_fire_at, data FROM chores')) {
      try {
        const data = JSON.parse(String(row.data)) as Partial<ChoreScheduleRecord>;
        if (typeof data.cronKey !== 'string' || typeof data.cursor !== 'number') continue;
        records.push({
          choreId: String(row.id),
          cronKey: data.cronKey,
          cursor: data.cursor,
          outstanding: Array.isArray(data.outstanding) ? data.outstanding.filter((t): t is number => typeof t === 'number') : [],
          nextFireAt: typeof row.next_fire_at === 'number' ? row.next_fire_at : null,
        });
      } catch {
        // A record we cannot read restarts that chore's schedule from now rather than blocking the rest.
      }
    }
    return records;
  }

  save(record: ChoreScheduleRecord): void {
    const data = JSON.stringify({ cronKey: record.cronKey, cursor: record.cursor, outstanding: record.outstanding });
    this.db.mutate(
      'INSERT INTO chores (id, next_fire_at, data, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET next_fire_at = excluded.next_fire_at, data = excluded.data, updated_at = excluded.updated_at',
      [record.choreId, record.nextFireAt, data, this.now()],
    );
  }

  remove(choreId: string): void {
    this.db.mutate('DELETE FROM chores WHERE id = ?', [choreId]);
  }

  flush(): Promise<void> {
    return this.db.commit();
  }
}
