/**
 * The engine's hot state: sessions and tasks cached in memory, persisted as rows of the durable
 * database, plus each session's transcript and events in its append-only stream. Every change is
 * published as one incremental `AgentChange` (never the whole state).
 */
import { randomBytes } from 'node:crypto';
import type { Clock, Logger } from '../ports';
import type { DurableDb } from '../store/types';
import type { AppendFile, EventStreams } from './eventLog';
import { choreMark } from '../memory/memory';
import { emptyTotals, sessionView, taskView } from './records';
import type { SessionRecord, TaskRecord } from './records';
import type { AgentChange, MessageRole, MessageView, TaskEvent, TaskEventKind } from './types';
import { upgradeActionSets } from '../actions/actionSets';

/** Transcript lines kept in memory per session (the sidebar pages older ones from the stream). */
export const TRANSCRIPT_LINES = 100;
/** Ended tasks kept in the snapshot (in the database they wait for the archive mover). */
const ENDED_TASKS_KEPT = 50;
/** Transcript tails read at once during load: bounds open files whatever the number of sessions. */
const LOAD_CONCURRENCY = 4;

export function newId(prefix: string, now: number): string {
  return `${prefix}${now.toString(36)}${randomBytes(4).toString('hex')}`;
}

export class EngineState {
  readonly sessions = new Map<string, SessionRecord>();
  readonly tasks = new Map<string, TaskRecord>();
  private readonly transcripts = new Map<string, MessageView[]>();
  private readonly listeners = new Set<(change: AgentChange) => void>();

  constructor(
    /** The hot database (the memory cursor and the archive share it). */
    readonly db: DurableDb,
    readonly streams: EventStreams,
    private readonly eventMd: AppendFile,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Reads only what live work needs: the hot sessions (idle ones leave for the archive after a
   * while), running and paused tasks, and each hot session's transcript tail. Tails are read a few
   * at a time, a page at a time, each file open only while it is read: the cost follows the live
   * sessions, not the history (docs/STORAGE.md).
   */
  async load(): Promise<void> {
    for (const row of this.db.query('SELECT data FROM sessions')) {
      const session = JSON.parse(String(row.data)) as SessionRecord;
      this.sessions.set(session.id, session);
    }
    for (const row of this.db.query("SELECT data FROM tasks WHERE status IN ('running', 'paused')")) {
      const task = upgradeActionSets(JSON.parse(String(row.data)) as TaskRecord);
      this.tasks.set(task.id, task);
    }
    const ids = [...this.sessions.keys()];
    const worker = async (): Promise<void> => {
      for (let id = ids.pop(); id !== undefined; id = ids.pop()) {
        const messages = await this.streams.tail(id, 'message', TRANSCRIPT_LINES, TRANSCRIPT_LINES * 4);
        this.transcripts.set(id, messages.map(toMessage));
      }
    };
    await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, worker));
  }

  onChange(listener: (change: AgentChange) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  publish(change: AgentChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger.error('REACT', 'A change listener threw; the engine carries on.', error);
      }
    }
  }

  transcript(sessionId: string): MessageView[] {
    return this.transcripts.get(sessionId) ?? [];
  }

  createSession(init: { id?: string; name: string; taskId?: string }): SessionRecord {
    const now = this.clock.now();
    const session: SessionRecord = {
      id: init.id ?? newId('s-', now),
      name: init.name,
      status: 'idle',
      lastActivity: now,
      ...(init.taskId ? { taskId: init.taskId } : {}),
      usage: emptyTotals(),
    };
    this.transcripts.set(session.id, []);
    this.saveSession(session);
    return session;
  }

  saveSession(session: SessionRecord): void {
    this.sessions.set(session.id, session);
    this.db.mutate(
      'INSERT INTO sessions (id, status, data, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET status = excluded.status, data = excluded.data, updated_at = excluded.updated_at',
      [session.id, session.status, JSON.stringify(session), this.clock.now()],
    );
    const { messages: _m, ...view } = sessionView(session, []);
    this.publish({ type: 'session', session: view });
  }

  /** Moves a provisional session's lines elsewhere (the router attached the message to a task). */
  removeSession(sessionId: string, movedTo?: string): void {
    this.sessions.delete(sessionId);
    this.transcripts.delete(sessionId);
    this.db.mutate('DELETE FROM sessions WHERE id = ?', [sessionId]);
    this.publish({ type: 'sessionRemoved', sessionId, ...(movedTo ? { movedTo } : {}) });
  }

  /** The archive took an idle session: drop it from memory (its rows already left the database). */
  forgetSession(sessionId: string): void {
    if (!this.sessions.delete(sessionId)) return;
    this.transcripts.delete(sessionId);
    this.publish({ type: 'sessionRemoved', sessionId });
  }

  saveTask(task: TaskRecord): void {
    this.tasks.set(task.id, task);
    // An ended task keeps its row, marked ended, until the archive mover moves it out of the hot
    // database (docs/DESIGN.md §5, docs/STORAGE.md): deleting it here would lose it from search.
    this.db.mutate(
      'INSERT INTO tasks (id, session_id, status, data, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET status = excluded.status, data = excluded.data, updated_at = excluded.updated_at',
      [task.id, task.sessionId, task.status, JSON.stringify(task), this.clock.now()],
    );
    if (task.status === 'completed' || task.status === 'error' || task.status === 'cancelled') this.pruneEnded();
    this.publish({ type: 'task', task: taskView(task) });
  }

  private pruneEnded(): void {
    const ended = [...this.tasks.values()].filter((t) => t.endedAt).sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0));
    for (const task of ended.slice(0, Math.max(0, ended.length - ENDED_TASKS_KEPT))) this.tasks.delete(task.id);
  }

  /** The live task of a session, if any. */
  taskOf(sessionId: string): TaskRecord | undefined {
    const session = this.sessions.get(sessionId);
    const task = session?.taskId ? this.tasks.get(session.taskId) : undefined;
    return task && (task.status === 'running' || task.status === 'paused') ? task : undefined;
  }

  activeTasks(): TaskRecord[] {
    return [...this.tasks.values()].filter((t) => t.status === 'running' || t.status === 'paused');
  }

  async appendEvent(sessionId: string, kind: TaskEventKind, data: Record<string, unknown>): Promise<TaskEvent> {
    const event = await this.streams.append(sessionId, kind, data, this.clock.now());
    this.publish({ type: 'taskEvent', taskId: sessionId, event });
    return event;
  }

  /** Appends a transcript line (stream + memory + EVENT.md mirror) and bumps the session. */
  async appendMessage(sessionId: string, role: MessageRole, text: string, extra: { retryable?: boolean; stopped?: boolean; arrivedDuring?: number } = {}): Promise<MessageView> {
    const asked: MessageView = { role, text, at: this.clock.now(), ...(extra.retryable ? { retryable: true } : {}), ...(extra.stopped ? { stopped: true } : {}), ...(extra.arrivedDuring ? { arrivedDuring: extra.arrivedDuring } : {}) };
    // The stream redacts secrets; the sidebar, the transcript and EVENT.md show what was stored.
    const written = await this.streams.append(sessionId, 'message', { ...asked }, asked.at);
    const message: MessageView = { ...asked, text: typeof written.data.text === 'string' ? written.data.text : text };
    const lines = this.transcripts.get(sessionId) ?? [];
    lines.push(message);
    if (lines.length > TRANSCRIPT_LINES) lines.splice(0, lines.length - TRANSCRIPT_LINES);
    this.transcripts.set(sessionId, lines);
    this.publish({ type: 'message', sessionId, message });
    void this.mirror(sessionId, role, message.text);
    const session = this.sessions.get(sessionId);
    if (session) session.lastActivity = message.at;
    return message;
  }

  /** One line per notable event in EVENT.md, the human-readable global log. */
  mirror(sessionId: string, kind: string, text: string): Promise<void> {
    const line = text.replace(/\s+/g, ' ').slice(0, 300);
    // Chore runs are marked, so memory distillation leaves them out (memory.ts `choreMark`).
    const taskId = this.sessions.get(sessionId)?.taskId;
    const chore = taskId ? this.tasks.get(taskId)?.chore : undefined;
    const from = chore ? ` ${choreMark(chore.choreId)}` : '';
    return this.eventMd.append(`- ${new Date(this.clock.now()).toISOString()} \`${sessionId}\` **${kind}**${from} ${line}\n`).catch((error) => {
      this.logger.warn('REACT', `Could not append to EVENT.md: ${(error as Error).message}`);
    });
  }

  /** Everything mutated so far is durable: database group commit and event stream fsyncs. */
  async commit(): Promise<void> {
    await Promise.all([this.db.commit(), this.streams.flush()]);
  }
}

function toMessage(event: TaskEvent): MessageView {
  const d = event.data as unknown as MessageView;
  return { role: d.role, text: d.text, at: d.at ?? event.at, ...(d.retryable ? { retryable: true } : {}), ...(d.stopped ? { stopped: true } : {}), ...(d.arrivedDuring ? { arrivedDuring: d.arrivedDuring } : {}) };
}
