/**
 * The irreversible-action ledger (docs/DESIGN.md §4): an intent row is durable before the action runs
 * and its outcome is written after. After a crash an intent without outcome is never replayed:
 * `unresolved()` lists them so the engine can tell the task and the user.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../ports';
import type { DurableDb } from '../store/types';

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

export class Ledger {
  constructor(
    private readonly db: DurableDb,
    private readonly clock: Clock,
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
    return this.db.query("SELECT * FROM ledger WHERE status = 'intent' ORDER BY created_at").map((row) => ({
      id: String(row.id),
      taskId: String(row.task_id),
      action: String(row.action),
      status: 'intent',
      intent: JSON.parse(String(row.intent)),
      outcome: null,
      createdAt: Number(row.created_at),
    }));
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
    return this.db.query('SELECT * FROM ledger WHERE task_id = ? ORDER BY created_at', [taskId]).map((row) => ({
      id: String(row.id),
      taskId: String(row.task_id),
      action: String(row.action),
      status: String(row.status) as LedgerEntry['status'],
      intent: JSON.parse(String(row.intent)),
      outcome: row.outcome === null ? null : JSON.parse(String(row.outcome)),
      createdAt: Number(row.created_at),
    }));
  }
}
