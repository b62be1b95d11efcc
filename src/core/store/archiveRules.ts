/**
 * What the archive moves and when (docs/STORAGE.md, "The archive"): the kinds of rows, how long
 * each stays hot after its work ended, and per kind the query for rows ready to move and how an
 * archived row is described for search, history and export.
 */
import type { Row } from './types';

import type { ArchiveKind } from '../../shared/storageWords';

// The kinds are defined with the Storage view's words for them, which must name every one.
export type { ArchiveKind } from '../../shared/storageWords';
export const ARCHIVE_KINDS: readonly ArchiveKind[] = ['task', 'chore_run', 'approval', 'command_approval', 'ledger', 'session'];

/** How long an ended row stays hot before it moves (ms). Documented defaults in docs/STORAGE.md. */
export interface ArchiveAges {
  /** Ended tasks and chore runs. Default 1 day. */
  ended: number;
  /** Settled change-set and command approvals (the Undo window). Default 7 days. */
  approvals: number;
  /** Idle sessions with no live task, pending trigger or dead letter. Default 7 days. */
  sessions: number;
  /** Ledger rows with an outcome. Default 30 days. */
  ledger: number;
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * Ended chore runs the engine keeps hot per chore, whatever their age (`ArchiveOptions.choreRunsKeptHot`):
 * the newest ones are what the Chores view, the 20-run chart, run links and the planner's "failing
 * chore" signal read at start (the run log loads the hot table only), so a daily chore's runs
 * outlive the one-day `ended` age. Older runs move to the archive and a run link still finds them
 * there (`Archive.byId`).
 */
export const CHORE_RUNS_KEPT_HOT = 30;

/** Ended chore runs ready to move that are not among the newest `?` of their chore (params: cutoff, kept, limit). */
export const CHORE_RUNS_BEYOND_KEPT = `SELECT * FROM chore_runs r WHERE r.ended_at IS NOT NULL AND r.ended_at <= ?
  AND (SELECT COUNT(*) FROM chore_runs n WHERE n.chore_id = r.chore_id
    AND (n.started_at > r.started_at OR (n.started_at = r.started_at AND n.id > r.id))) >= ?
  LIMIT ?`;

export const DEFAULT_ARCHIVE_AGES: ArchiveAges = { ended: DAY, approvals: 7 * DAY, sessions: 7 * DAY, ledger: 30 * DAY };

interface KindRule {
  table: string;
  /**
   * Ready rows, at most LIMIT. No ORDER BY on purpose: the order of a move does not matter (the
   * journal records deletes by id), and without it an index range scan stops at LIMIT instead of
   * sorting every ready row for each batch.
   */
  select: string;
  age: keyof ArchiveAges;
  describe(row: Row): { sessionId?: string; taskId?: string; at: number; text: string };
}

const LIVE_TASK = "('running', 'paused')";

function data(row: Row): Record<string, unknown> {
  try {
    return JSON.parse(String(row.data ?? '{}')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

export const RULES: Record<ArchiveKind, KindRule> = {
  task: {
    table: 'tasks',
    select: "SELECT * FROM tasks WHERE status IN ('completed', 'error', 'cancelled') AND updated_at <= ? LIMIT ?",
    age: 'ended',
    describe: (row) => {
      const d = data(row);
      return {
        sessionId: String(row.session_id),
        taskId: String(row.id),
        at: Number(d.endedAt ?? row.updated_at),
        text: [d.name, d.instruction, d.finalSummary].map(str).join('\n'),
      };
    },
  },
  session: {
    table: 'sessions',
    select: `SELECT * FROM sessions s WHERE s.status IN ('idle', 'error') AND s.updated_at <= ?
      AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.session_id = s.id AND t.status IN ${LIVE_TASK})
      AND NOT EXISTS (SELECT 1 FROM triggers g WHERE g.session_id = s.id AND g.status IN ('pending', 'claimed', 'dead'))
      LIMIT ?`,
    age: 'sessions',
    describe: (row) => {
      const d = data(row);
      return { sessionId: String(row.id), at: Number(d.lastActivity ?? row.updated_at), text: str(d.name) };
    },
  },
  chore_run: {
    table: 'chore_runs',
    select: 'SELECT * FROM chore_runs WHERE ended_at IS NOT NULL AND ended_at <= ? LIMIT ?',
    age: 'ended',
    describe: (row) => {
      const d = data(row);
      return { ...(d.taskId ? { taskId: str(d.taskId) } : {}), at: Number(row.ended_at), text: [row.chore_id, row.status, d.reason].map(str).join(' ') };
    },
  },
  approval: {
    table: 'approvals',
    select: "SELECT * FROM approvals WHERE status <> 'pending' AND updated_at <= ? LIMIT ?",
    age: 'approvals',
    describe: (row) => ({ sessionId: String(row.session_id), taskId: String(row.task_id), at: Number(row.updated_at), text: '' }),
  },
  command_approval: {
    table: 'command_approvals',
    select: "SELECT * FROM command_approvals WHERE status IN ('done', 'rejected') AND updated_at <= ? LIMIT ?",
    age: 'approvals',
    describe: (row) => ({ taskId: String(row.task_id), at: Number(row.updated_at), text: '' }),
  },
  ledger: {
    table: 'ledger',
    select: "SELECT * FROM ledger WHERE status <> 'intent' AND updated_at <= ? LIMIT ?",
    age: 'ledger',
    describe: (row) => ({ taskId: String(row.task_id), at: Number(row.updated_at), text: '' }),
  },
};

/** Bytes after which a kind starts a new segment even within the month. */
