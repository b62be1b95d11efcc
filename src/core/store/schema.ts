/**
 * Schema of the hot database. Migrations are an ordered list applied at open (each one journaled
 * like any other mutation, so replay rebuilds the same schema). Never edit a shipped migration:
 * append a new one. Tables other than `triggers` are shared by other subsystems: one JSON
 * document (`data`) per row plus the few columns they filter or sort on.
 */

export interface Migration {
  version: number;
  description: string;
  statements: string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'triggers and shared hot-state tables',
    statements: [
      `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
      `CREATE TABLE triggers (
        id TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        session_id TEXT NOT NULL,
        payload TEXT NOT NULL,
        fire_at INTEGER NOT NULL,
        priority INTEGER NOT NULL,
        dedup_key TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL,
        lease_token TEXT,
        lease_owner TEXT,
        created_at INTEGER NOT NULL,
        last_error TEXT,
        done_at INTEGER
      )`,
      `CREATE INDEX triggers_due ON triggers (status, priority, fire_at)`,
      `CREATE INDEX triggers_fire ON triggers (status, fire_at)`,
      `CREATE INDEX triggers_session ON triggers (session_id, status)`,
      `CREATE UNIQUE INDEX triggers_dedup ON triggers (dedup_key) WHERE dedup_key IS NOT NULL`,
      `CREATE UNIQUE INDEX triggers_lease ON triggers (lease_token) WHERE lease_token IS NOT NULL`,
      `CREATE TABLE sessions (id TEXT PRIMARY KEY, status TEXT NOT NULL, data TEXT NOT NULL, updated_at INTEGER NOT NULL)`,
      `CREATE TABLE tasks (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, status TEXT NOT NULL, data TEXT NOT NULL, updated_at INTEGER NOT NULL)`,
      `CREATE INDEX tasks_session ON tasks (session_id)`,
      `CREATE INDEX tasks_status ON tasks (status)`,
      `CREATE TABLE approvals (id TEXT PRIMARY KEY, task_id TEXT NOT NULL, session_id TEXT NOT NULL, status TEXT NOT NULL, data TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
      `CREATE INDEX approvals_status ON approvals (status, created_at)`,
      `CREATE INDEX approvals_task ON approvals (task_id)`,
      `CREATE TABLE ledger (id TEXT PRIMARY KEY, task_id TEXT NOT NULL, action TEXT NOT NULL, status TEXT NOT NULL, intent TEXT NOT NULL, outcome TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
      `CREATE INDEX ledger_status ON ledger (status)`,
      `CREATE INDEX ledger_task ON ledger (task_id)`,
      `CREATE TABLE chores (id TEXT PRIMARY KEY, next_fire_at INTEGER, data TEXT NOT NULL, updated_at INTEGER NOT NULL)`,
      `CREATE INDEX chores_next ON chores (next_fire_at)`,
      `CREATE TABLE chore_runs (id TEXT PRIMARY KEY, chore_id TEXT NOT NULL, status TEXT NOT NULL, data TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER)`,
      `CREATE INDEX chore_runs_chore ON chore_runs (chore_id, started_at)`,
    ],
  },
  {
    version: 2,
    description: 'chore runs keyed by fire and attempt; command approvals',
    statements: [
      `ALTER TABLE chore_runs ADD COLUMN fire_key TEXT NOT NULL DEFAULT ''`,
      `ALTER TABLE chore_runs ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0`,
      `CREATE TABLE command_approvals (id TEXT PRIMARY KEY, task_id TEXT NOT NULL, status TEXT NOT NULL, data TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
      `CREATE INDEX command_approvals_status ON command_approvals (status, created_at)`,
    ],
  },
  {
    version: 3,
    description: 'indexes the archive mover selects ended rows by',
    statements: [`CREATE INDEX chore_runs_ended ON chore_runs (ended_at)`, `CREATE INDEX tasks_status_updated ON tasks (status, updated_at)`],
  },
];

/** Every statement of every migration, in order: the whole schema on an empty database (tests). */
export function schemaStatements(): string[] {
  return MIGRATIONS.flatMap((migration) => migration.statements);
}

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
