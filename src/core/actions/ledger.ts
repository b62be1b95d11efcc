/**
 * The irreversible-action ledger (docs/DESIGN.md §4): an intent row is durable before the action runs
 * and its outcome is written after. After a crash an intent without outcome is never replayed:
 * `unresolved()` lists them so the engine can tell the task and the user.
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod/v4';
import type { Clock } from '../ports';
import { decodeColumn, decodeRows, decodeValue } from '../store/decodeRow';
import type { DurableRowError } from '../store/decodeRow';
import type { DurableDb, Row } from '../store/types';

/** One ledger row. `status`: intent (running or interrupted), done, failed, interrupted (reconciled). */
export interface LedgerEntry {
  id: string;
  taskId: string;
  action: string;
  status: 'intent' | 'done' | 'failed' | 'interrupted';
  intent: unknown;
  outcome: unknown;
  createdAt: number;
}

const STATUSES = ['intent', 'done', 'failed', 'interrupted'] as const;

const ledgerColumns = z.object({
  id: z.string().min(1),
  task_id: z.string(),
  action: z.string(),
  status: z.enum(STATUSES),
  created_at: z.number(),
});

/** A `ledger` row; throws DurableRowError naming the entry and the column (intent and outcome are JSON). */
export function decodeLedgerRow(row: Row): LedgerEntry {
  const id = typeof row.id === 'string' ? row.id : '?';
  const columns = decodeValue(ledgerColumns, 'ledger entry', id, '', row);
  return {
    id,
    taskId: columns.task_id,
    action: columns.action,
    status: columns.status,
    intent: decodeColumn(z.unknown(), 'ledger entry', id, 'intent', row.intent),
    outcome: row.outcome === null ? null : decodeColumn(z.unknown(), 'ledger entry', id, 'outcome', row.outcome),
    createdAt: columns.created_at,
  };
}

export class Ledger {
  constructor(
    private readonly db: DurableDb,
    private readonly clock: Clock,
    /** Told about each row that does not decode (its id and column); the row is left out. */
    private readonly report: (error: DurableRowError) => void = () => {},
  ) {}

  /** Records the intent and waits until it is on disk; refuses when the store cannot commit. */
  async intent(taskId: string, action: string, input: unknown): Promise<string> {
    if (!this.db.durable) {
      throw new Error(`Not running ${action}: the agent's state cannot be saved right now (disk full or unwritable?). Free space, then retry.`);
    }
    const id = `l-${this.clock.now().toString(36)}${randomBytes(4).toString('hex')}`;
    const now = this.clock.now();
    this.db.mutate('INSERT INTO ledger (id, task_id, action, status, intent, outcome, created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)', [
      id,
      taskId,
      action,
      'intent',
      JSON.stringify(input ?? null),
      now,
      now,
    ]);
    await this.db.commit();
    return id;
  }

  async outcome(id: string, status: 'done' | 'failed', outcome: unknown): Promise<void> {
    this.db.mutate('UPDATE ledger SET status = ?, outcome = ?, updated_at = ? WHERE id = ?', [status, JSON.stringify(outcome ?? null), this.clock.now(), id]);
    await this.db.commit();
  }

  /** Intents with no outcome: the process died while the action ran. */
  unresolved(): LedgerEntry[] {
    return this.read("SELECT * FROM ledger WHERE status = 'intent' ORDER BY created_at");
  }

  /** Marks an interrupted intent as seen, so it is reported once. */
  markInterrupted(id: string, note: string): void {
    this.db.mutate("UPDATE ledger SET status = 'interrupted', outcome = ?, updated_at = ? WHERE id = ? AND status = 'intent'", [
      JSON.stringify({ note }),
      this.clock.now(),
      id,
    ]);
  }

  entries(taskId: string): LedgerEntry[] {
    return this.read('SELECT * FROM ledger WHERE task_id = ? ORDER BY created_at', [taskId]);
  }

  private read(sql: string, params: string[] = []): LedgerEntry[] {
    return decodeRows(this.db.query(sql, params), decodeLedgerRow, this.report);
  }
}
