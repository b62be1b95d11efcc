import initSqlJs from 'sql.js';
import type { DurableDb, Row, SqlValue, Trigger, TriggerSpec, TriggerStore } from '../../../src/core/store/types';
import { schemaStatements } from '../../../src/core/store/schema';

/** Records emits and honours dedup keys the way the TriggerStore contract says. */
export class FakeTriggerStore implements Pick<TriggerStore, 'emit'> {
  readonly emitted: Trigger[] = [];
  readonly byKey = new Map<string, Trigger>();
  failNext = 0;

  async emit(spec: TriggerSpec): Promise<Trigger> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('disk full');
    }
    if (spec.dedupKey && this.byKey.has(spec.dedupKey)) return this.byKey.get(spec.dedupKey)!;
    const trigger: Trigger = {
      id: `t${this.emitted.length + 1}`,
      source: spec.source,
      sessionId: spec.sessionId,
      payload: spec.payload ?? null,
      fireAt: spec.fireAt ?? 0,
      priority: spec.priority ?? 100,
      dedupKey: spec.dedupKey ?? null,
      attempts: 0,
      status: 'pending',
      createdAt: 0,
      lastError: null,
    };
    this.emitted.push(trigger);
    if (spec.dedupKey) this.byKey.set(spec.dedupKey, trigger);
    return trigger;
  }
}

/** A DurableDb over an in-memory sql.js database that counts commits; nothing reaches a disk. */
export async function sqlJsMemoryDb(): Promise<DurableDb & { commits: number }> {
  const SQL = await initSqlJs();
  const raw = new SQL.Database();
  // The tables as the store's migrations make them: the persistences under test own no DDL.
  for (const statement of schemaStatements()) raw.run(statement);
  const query = (sql: string, params: SqlValue[] = []): Row[] => {
    const stmt = raw.prepare(sql, params);
    const rows: Row[] = [];
    while (stmt.step()) rows.push(stmt.getAsObject() as Row);
    stmt.free();
    return rows;
  };
  const mutate = (sql: string, params: SqlValue[] = []) => {
    raw.run(sql, params);
    return { changes: raw.getRowsModified() };
  };
  const db = {
    commits: 0,
    query,
    mutate,
    // The persistences under test write single statements: a pass-through transaction is enough.
    transaction: <T>(fn: (tx: Pick<DurableDb, 'query' | 'mutate'>) => T): T => fn({ query, mutate }),
    commit: async () => {
      db.commits++;
    },
    durable: true,
    close: async () => raw.close(),
  };
  return db;
}
