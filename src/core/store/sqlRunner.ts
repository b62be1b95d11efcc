import type { Database, SqlJsStatic, Statement } from 'sql.js';
import type { Row, SqlValue } from './types';

/**
 * Connection-level settings. sql.js `export()` closes and reopens the database, which resets
 * them, so they are re-applied after every export (and at open). sql.js keeps its database in an
 * in-memory file system, where a rollback journal *file* (the default) costs a create, writes and
 * a delete per transaction: durability comes from our own journal, so SQLite's stays in memory.
 */
const PRAGMAS = [
  'PRAGMA journal_mode = MEMORY',
  'PRAGMA synchronous = OFF',
  'PRAGMA temp_store = MEMORY',
  'PRAGMA foreign_keys = ON',
  'PRAGMA recursive_triggers = OFF',
  'PRAGMA locking_mode = EXCLUSIVE',
];

/** Statements after which a cached statement's result columns may differ. */
const SCHEMA_CHANGE = /^\s*(CREATE|ALTER|DROP)\b/i;

/** Free pages (of 4 KB) a snapshot tolerates before it compacts: a quarter of the file and at least 1 MB. */
const COMPACT_MIN_FREE_PAGES = 256;

/** Prepared statements cached by SQL text; dynamic SQL beyond this many evicts the oldest. */
const MAX_CACHED_STATEMENTS = 256;

/**
 * A thin wrapper over one sql.js Database with a statement cache. It owns the rule that
 * `export()` frees every prepared statement: the cache is dropped and pragmas re-applied.
 */
export class SqlRunner {
  private readonly statements = new Map<string, Statement>();
  /**
   * Result column names per cached statement, read once: sql.js `getAsObject` asks SQLite for
   * every name again on every row. Dropped with the statement, and on any schema change (a
   * `SELECT *` prepared before an ALTER would list the old columns).
   */
  private readonly columns = new Map<Statement, string[]>();
  private db: Database;

  constructor(sqlJs: SqlJsStatic, bytes?: Uint8Array) {
    this.db = bytes ? new sqlJs.Database(bytes) : new sqlJs.Database();
    this.applyPragmas();
  }

  all(sql: string, params: SqlValue[] = []): Row[] {
    const stmt = this.prepare(sql);
    try {
      stmt.bind(params);
      const rows: Row[] = [];
      if (!stmt.step()) return rows;
      let names = this.columns.get(stmt);
      if (!names) {
        names = stmt.getColumnNames();
        this.columns.set(stmt, names);
      }
      do {
        const values = stmt.get() as SqlValue[];
        const row: Row = {};
        for (let i = 0; i < names.length; i++) row[names[i]] = values[i];
        rows.push(row);
      } while (stmt.step());
      return rows;
    } finally {
      stmt.reset();
    }
  }

  run(sql: string, params: SqlValue[] = []): number {
    if (SCHEMA_CHANGE.test(sql)) this.columns.clear();
    const stmt = this.prepare(sql);
    try {
      stmt.run(params);
    } finally {
      stmt.reset();
    }
    return this.db.getRowsModified();
  }

  /** For BEGIN/COMMIT/ROLLBACK and DDL: no caching needed. */
  exec(sql: string): void {
    this.columns.clear();
    this.db.run(sql);
  }

  /** Serialises the database. Never call inside a transaction: sql.js closes the connection, which would roll it back. */
  export(): Uint8Array {
    this.statements.clear(); // export() frees them all; a stale handle would crash on next use
    this.columns.clear();
    this.compactIfSparse();
    const bytes = this.db.export();
    this.applyPragmas();
    return bytes;
  }

  /**
   * When archive moves have left most pages free, VACUUM before the export so the snapshot (and
   * the next open's memory) is the size of the live rows, not of everything ever stored. VACUUM
   * is not journaled: it changes no row, and it copies rows in rowid order, so `ORDER BY rowid`
   * tie-breaks keep their order for the journal records replayed on top of the snapshot.
   */
  private compactIfSparse(): void {
    const pages = Number(this.db.exec('PRAGMA page_count')[0]?.values[0]?.[0] ?? 0);
    const free = Number(this.db.exec('PRAGMA freelist_count')[0]?.values[0]?.[0] ?? 0);
    if (free >= COMPACT_MIN_FREE_PAGES && free * 4 >= pages) this.db.run('VACUUM');
  }

  close(): void {
    this.statements.clear();
    this.columns.clear();
    this.db.close();
  }

  private prepare(sql: string): Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      if (this.statements.size >= MAX_CACHED_STATEMENTS) {
        const [oldestSql, oldest] = this.statements.entries().next().value as [string, Statement];
        oldest.free();
        this.statements.delete(oldestSql);
        this.columns.delete(oldest);
      }
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  private applyPragmas(): void {
    for (const pragma of PRAGMAS) this.db.run(pragma);
  }
}
