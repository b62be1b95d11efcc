import * as z from 'zod/v4';
import { decodeColumn, decodeRows, decodeValue } from '../store/decodeRow';
import type { DurableRowError } from '../store/decodeRow';
import type { DurableDb, Row } from '../store/types';

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

const scheduleData = z.object({ cronKey: z.string(), cursor: z.number(), outstanding: z.array(z.number()).default([]) });

/** A `chores` row; throws DurableRowError naming the chore and the field. */
function decodeScheduleRow(row: Row): ChoreScheduleRecord {
  const choreId = String(row.id);
  const data = decodeColumn(scheduleData, 'chore schedule', choreId, 'data', row.data);
  const nextFireAt = decodeValue(z.number().nullable(), 'chore schedule', choreId, 'next_fire_at', row.next_fire_at);
  return { choreId, cronKey: data.cronKey, cursor: data.cursor, outstanding: data.outstanding, nextFireAt };
}

/**
 * Schedule records in the store's `chores(id, next_fire_at, data, updated_at)` table; `data` holds
 * the JSON of `{ cronKey, cursor, outstanding }`.
 */
export class DbSchedulePersistence implements ChoreSchedulePersistence {
  constructor(
    private readonly db: DurableDb,
    private readonly now: () => number,
    /** Told about each row that does not decode (its id and field); it is left out. */
    private readonly report: (error: DurableRowError) => void = () => {},
  ) {}

  loadAll(): ChoreScheduleRecord[] {
    // A record we cannot read is reported and restarts that chore's schedule from now rather than blocking the rest.
    return decodeRows(this.db.query('SELECT id, next_fire_at, data FROM chores'), decodeScheduleRow, this.report);
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
