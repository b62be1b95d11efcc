/**
 * History: what keeps a year of use cheap and findable. It runs the archive mover and the
 * retention rules in the background (docs/STORAGE.md, "The archive" and "Retention"), answers
 * history searches across hot state and archive, opens archived sessions, and reports what is kept
 * and how big it is (dead letters included; retrying and dismissing them is deadLetters.ts).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Clock, Logger } from '../ports';
import type { Archive, ArchiveKind } from '../store/archive';
import { ARCHIVE_KINDS } from '../store/archive';
import { decodeRows, DurableRowError } from '../store/decodeRow';
import type { DurableDb, Row, SqlValue, TriggerStore } from '../store/types';
import { decodeSession, decodeTask } from './durableRows';
import type { EngineState } from './engineState';
import type { SessionRecord, TaskRecord } from './records';
import type { AgentSettings, HistoryHit } from './types';
import { taskState } from '../../shared/taskState';
import type { StorageItem } from '../../shared/storageWords';

const DAY = 86_400_000;
/** Documented defaults (docs/STORAGE.md, README "Storage"). */
export const STORAGE_DEFAULTS = { settledTriggerDays: 7, ledgerDays: 30, sessionDays: 7, approvalDays: 7 } as const;
/** Rows moved per synchronous step (short, so a turn waiting behind one is barely delayed). */
const MOVE_BATCH = 100;
/** The mover uses at most 1 / (1 + this) of the thread while it has a backlog. */
const MOVE_REST_FACTOR = 4;
/** First background pass after start, then one per interval. */
const FIRST_PASS_MS = 60_000;
const PASS_INTERVAL_MS = 10 * 60_000;
/** A scratch dir of a task that is not live is removed once it is this old (a task just starting makes its dir first). */
const SCRATCH_MIN_AGE_MS = 60 * 60_000;

export interface HistoryDeps {
  db: DurableDb;
  state: EngineState;
  triggers: TriggerStore;
  /** Absent when the store has no folder (tests with an in-memory store). */
  archive?: Archive;
  storageDir: string;
  /** The store folder (journal, snapshots, history, archive) for the size report. */
  storeDir?: string;
  clock: Clock;
  logger: Logger;
  settings: () => AgentSettings;
  signal: AbortSignal;
}

/** One line of the storage report: what is kept, where, and how big. */
/** What is kept, as data: src/shared/storageWords.ts gives it words in the person's language. */
export type { StorageItem };

export interface RetentionReport {
  triggerHistoryLines: number;
  scratchDirs: string[];
}

export class History {
  private timer?: { cancel(): void };
  private pass?: Promise<unknown>;

  constructor(private readonly deps: HistoryDeps) {}

  /** Ages per archive rule from the settings (days → ms). */
  archiveAges(): { ended: number; approvals: number; sessions: number; ledger: number } {
    const s = { ...STORAGE_DEFAULTS, ...this.deps.settings().storage };
    return { ended: DAY, approvals: s.approvalDays * DAY, sessions: s.sessionDays * DAY, ledger: s.ledgerDays * DAY };
  }

  /** The archived row of a kind with this id, as it was hot (a chore run a link names); undefined without an archive. */
  archived(kind: ArchiveKind, id: string): Row | undefined {
    return this.deps.archive?.byId(kind, id)?.row;
  }

  /** Starts the background passes (archive moves, then retention). */
  start(): void {
    this.schedule(FIRST_PASS_MS);
  }

  /** The rows that decode; each other one is logged with its id and field (store/decodeRow.ts). */
  private decoded<T>(rows: Array<SqlValue | undefined>, decode: (data: SqlValue | undefined) => T): T[] {
    return decodeRows(rows, decode, (error) => this.reportRow(error));
  }

  private reportRow(error: unknown): void {
    if (!(error instanceof DurableRowError)) throw error;
    this.deps.logger.error('STORE', error.message);
  }

  private schedule(ms: number): void {
    if (this.deps.signal.aborted) return;
    this.timer = this.deps.clock.setTimeout(() => {
      this.pass = this.runPass().finally(() => this.schedule(PASS_INTERVAL_MS));
    }, ms);
  }

  async stop(): Promise<void> {
    this.timer?.cancel();
    await this.pass;
  }

  /** One background pass; errors are logged, never thrown (the next pass tries again). */
  async runPass(): Promise<{ moved: number; retention: RetentionReport }> {
    let moved = 0;
    try {
      moved = await this.moveAll();
    } catch (error) {
      this.deps.logger.warn('STORE', `Archive pass failed (${(error as Error).message}); rows stay hot and the next pass retries.`);
    }
    const retention = await this.retention().catch((error: unknown) => {
      this.deps.logger.warn('STORE', `Retention pass failed: ${(error as Error).message}`);
      return { triggerHistoryLines: 0, scratchDirs: [] };
    });
    if (moved || retention.triggerHistoryLines || retention.scratchDirs.length) {
      this.deps.logger.info(
        'STORE',
        `history: ${moved} rows archived, ${retention.triggerHistoryLines} trigger-history lines and ${retention.scratchDirs.length} scratch dirs removed`,
      );
    }
    return { moved, retention };
  }

  /** Moves every ready row to the archive, a batch at a time, yielding between batches. */
  async moveAll(kinds: readonly ArchiveKind[] = ARCHIVE_KINDS): Promise<number> {
    const archive = this.deps.archive;
    if (!archive) return 0;
    // Rows copied to the archive must be the durable ones (see archive.ts).
    await this.deps.db.commit();
    let moved = 0;
    for (const kind of kinds) {
      for (;;) {
        if (this.deps.signal.aborted) return moved;
        // An archived session is findable by its transcript tail too: read the tails of the
        // sessions about to move (a session not opened since activation has none in memory).
        if (kind === 'session') await this.deps.state.loadTranscripts(archive.ready('session', MOVE_BATCH).map((row) => String(row.id)));
        const started = performance.now();
        const n = archive.moveBatch(kind, MOVE_BATCH);
        moved += n;
        if (n < MOVE_BATCH) break;
        // Paced, not just yielded: a batch blocks the thread (select, write, fdatasync, delete), so
        // the mover rests MOVE_REST_FACTOR times as long as the batch took, leaving most of the
        // thread to turns (a real timer: this paces CPU, it is not logical time).
        const took = performance.now() - started;
        await new Promise((resolve) => setTimeout(resolve, Math.max(2, took * MOVE_REST_FACTOR)));
      }
    }
    await this.deps.db.commit();
    return moved;
  }

  /**
   * Retention (deletes, unlike the archive): trigger-history lines settled more than
   * `settledTriggerDays` ago, and scratch dirs of tasks that are not running or paused.
   */
  async retention(now = this.deps.clock.now()): Promise<RetentionReport> {
    const days = { ...STORAGE_DEFAULTS, ...this.deps.settings().storage }.settledTriggerDays;
    const triggerHistoryLines = await this.deps.triggers.pruneHistory(now - days * DAY);
    const scratchRoot = path.join(this.deps.storageDir, 'scratch');
    const live = new Set(this.deps.state.activeTasks().map((t) => t.id));
    const scratchDirs: string[] = [];
    for (const name of await fs.readdir(scratchRoot).catch(() => [] as string[])) {
      if (live.has(name)) continue;
      const dir = path.join(scratchRoot, name);
      const stat = await fs.stat(dir).catch(() => undefined);
      if (!stat?.isDirectory() || now - stat.mtimeMs < SCRATCH_MIN_AGE_MS) continue;
      await fs.rm(dir, { recursive: true, force: true });
      scratchDirs.push(name);
    }
    return { triggerHistoryLines, scratchDirs };
  }

  /**
   * Sessions and tasks whose name, instruction, summary or transcript contains `query`, newest
   * first. With a chore `scope`, only that chore's own tasks: no session (a conversation) and no
   * task of the person or of another chore.
   */
  async search(query: string, limit = 50, scope?: { choreId: string }): Promise<HistoryHit[]> {
    const needle = query.trim().toLowerCase();
    if (!needle) return [];
    const hits = new Map<string, HistoryHit>();
    const add = (hit: HistoryHit): void => {
      if (!hits.has(`${hit.kind}:${hit.id}`)) hits.set(`${hit.kind}:${hit.id}`, hit);
    };
    const inScope = (task: TaskRecord) => !scope || task.chore?.choreId === scope.choreId;
    // Hot sessions' tails are read on first need (not at activation); a search is such a need.
    if (!scope) await this.deps.state.loadTranscripts(this.deps.state.sessions.keys());
    for (const session of scope ? [] : this.deps.state.sessions.values()) {
      const text = `${session.name}\n${this.deps.state
        .transcript(session.id)
        .map((m) => m.text)
        .join('\n')}`.toLowerCase();
      if (text.includes(needle)) add(sessionHit(session, false));
    }
    for (const task of this.decoded(
      this.deps.db.query('SELECT data FROM tasks').map((row) => row.data),
      decodeTask,
    )) {
      if (inScope(task) && `${task.name}\n${task.instruction}\n${task.finalSummary ?? ''}`.toLowerCase().includes(needle)) add(taskHit(task, false));
    }
    for (const record of this.deps.archive?.search(needle, { limit }) ?? []) {
      try {
        if (record.kind === 'session') {
          if (!scope) add(sessionHit(decodeSession(record.row.data, record.id), true));
        } else {
          const task = decodeTask(record.row.data, record.id);
          if (inScope(task)) add(taskHit(task, true));
        }
      } catch (error) {
        this.reportRow(error);
      }
    }
    return [...hits.values()].sort((a, b) => b.at - a.at).slice(0, limit);
  }

  /** A session by id, hot or archived, with its tasks (hot and archived). */
  async session(sessionId: string): Promise<{ session: SessionRecord; archived: boolean; tasks: TaskRecord[] } | undefined> {
    const hot = this.deps.state.sessions.get(sessionId);
    const archivedRecords = this.deps.archive?.bySession(sessionId, ['session', 'task']) ?? [];
    const archivedSession = archivedRecords.find((r) => r.kind === 'session');
    const session = hot ?? (archivedSession ? this.decoded([archivedSession.row.data], decodeSession)[0] : undefined);
    if (!session) return undefined;
    const tasks = new Map<string, TaskRecord>();
    const archivedTasks = archivedRecords.filter((r) => r.kind === 'task').map((r) => r.row.data);
    const hotTasks = this.deps.db.query('SELECT data FROM tasks WHERE session_id = ?', [sessionId]).map((row) => row.data);
    // Hot rows last: a task both archived and hot (a crash mid-move) is read as it is now.
    for (const task of this.decoded([...archivedTasks, ...hotTasks], decodeTask)) tasks.set(task.id, task);
    return { session, archived: !hot, tasks: [...tasks.values()].sort((a, b) => a.createdAt - b.createdAt) };
  }

  /** What is kept, where, how big, and the rule that removes or moves it. */
  async storage(): Promise<StorageItem[]> {
    const s = { ...STORAGE_DEFAULTS, ...this.deps.settings().storage };
    const items: StorageItem[] = [];
    const { storeDir } = this.deps;
    if (storeDir) {
      const store = await dirSize(storeDir, (name) => /^(journal-|snapshot-)/.test(name));
      items.push({ key: 'hot', where: storeDir, count: store.files, bytes: store.bytes });
      const triggerHistory = await dirSize(path.join(storeDir, 'history'));
      items.push({
        key: 'triggerHistory',
        where: path.join(storeDir, 'history'),
        count: triggerHistory.files,
        bytes: triggerHistory.bytes,
        days: s.settledTriggerDays,
      });
    }
    // The days each kind's rule counts (tasks and chore runs: one day, not a setting).
    const days: Record<ArchiveKind, number> = {
      task: 1,
      chore_run: 1,
      approval: s.approvalDays,
      command_approval: s.approvalDays,
      ledger: s.ledgerDays,
      session: s.sessionDays,
    };
    for (const stat of this.deps.archive?.stats() ?? []) {
      items.push({
        key: 'archive',
        archive: { kind: stat.kind, hotRows: stat.hotRows, damaged: stat.damaged },
        where: path.join('archive', stat.kind),
        count: stat.records,
        bytes: stat.bytes,
        days: days[stat.kind],
      });
    }
    const events = await dirSize(path.join(this.deps.storageDir, 'events'));
    items.push({ key: 'events', where: path.join(this.deps.storageDir, 'events'), count: events.files, bytes: events.bytes });
    const scratch = await dirSize(path.join(this.deps.storageDir, 'scratch'), undefined, true);
    items.push({ key: 'scratch', where: path.join(this.deps.storageDir, 'scratch'), count: scratch.files, bytes: scratch.bytes });
    for (const name of ['EVENT.md', 'TASK_HISTORY.md', 'MEMORY.md']) {
      const stat = await fs.stat(path.join(this.deps.storageDir, name)).catch(() => undefined);
      items.push({
        key: name === 'MEMORY.md' ? 'memory' : 'file',
        name,
        where: path.join(this.deps.storageDir, name),
        count: stat ? 1 : 0,
        bytes: stat?.size ?? 0,
      });
    }
    const dead = this.deps.triggers.deadLetters();
    items.push({ key: 'deadLetters', where: 'hot database', count: dead.length, bytes: 0 });
    return items;
  }
}

function sessionHit(session: SessionRecord, archived: boolean): HistoryHit {
  return {
    kind: 'session',
    id: session.id,
    sessionId: session.id,
    title: session.name,
    detail: `session · ${session.status}`,
    at: session.lastActivity,
    archived,
  };
}

function taskHit(task: TaskRecord, archived: boolean): HistoryHit {
  return {
    kind: 'task',
    id: task.id,
    sessionId: task.sessionId,
    title: task.name,
    // The state word the task's block shows (verified, done, not checked, checks failed…), not the engine's status.
    detail: `task · ${taskState(task)}${task.finalSummary ? ` · ${task.finalSummary.slice(0, 80)}` : ''}`,
    at: task.endedAt ?? task.createdAt,
    archived,
  };
}

async function dirSize(dir: string, match?: (name: string) => boolean, countDirs = false): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  const walk = async (current: string, top: boolean): Promise<void> => {
    for (const entry of await fs.readdir(current, { withFileTypes: true }).catch(() => [])) {
      if (top && match && !match(entry.name)) continue;
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (top && countDirs) files++;
        await walk(full, false);
      } else {
        if (!countDirs) files++;
        bytes += (await fs.stat(full).catch(() => undefined))?.size ?? 0;
      }
    }
  };
  await walk(dir, true);
  return { files, bytes };
}
