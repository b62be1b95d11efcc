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
import type { AgentChange, MessageRole, MessageSaid, MessageView, TaskEvent, TaskEventKind } from './types';
import { decodeRows } from '../store/decodeRow';
import type { DurableRowError } from '../store/decodeRow';
import { decodeSession, decodeTask } from './durableRows';

/** Transcript lines kept in memory per session (the sidebar pages older ones from the stream). */
export const TRANSCRIPT_LINES = 100;
/** Ended tasks kept in the snapshot (in the database they wait for the archive mover). */
const ENDED_TASKS_KEPT = 50;
/** Transcript tails read at once (load, search): bounds open files whatever the number of sessions. */
const LOAD_CONCURRENCY = 4;

export function newId(prefix: string, now: number): string {
  return `${prefix}${now.toString(36)}${randomBytes(4).toString('hex')}`;
}

export class EngineState {
  readonly sessions = new Map<string, SessionRecord>();
  readonly tasks = new Map<string, TaskRecord>();
  /** Transcript tails read so far; a session's is read on first need (`loadTranscript`), not at activation. */
  private readonly transcripts = new Map<string, MessageView[]>();
  /** Tails being read, and the lines appended meanwhile (merged by seq when the read ends). */
  private readonly loading = new Map<string, { done: Promise<MessageView[]>; appended: Array<{ seq: number; message: MessageView }> }>();
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
   * Reads only what live work needs: the hot session rows (idle ones leave for the archive after a
   * while), the running and paused tasks, and the transcript tails of their sessions. Any other
   * session's tail is read the first time something needs it (a turn in it, the sidebar opening
   * it, a search), a page at a time, its file open only while it is read. Activation then costs
   * the same with ten idle sessions or ten thousand (docs/STORAGE.md).
   */
  async load(): Promise<void> {
    // A row that does not decode is logged with its id and field and left out (store/decodeRow.ts).
    const report = (error: DurableRowError) => this.logger.error('STORE', error.message);
    const sessionRows = this.db.query('SELECT data FROM sessions').map((row) => row.data);
    for (const session of decodeRows(sessionRows, decodeSession, report)) this.sessions.set(session.id, session);
    const taskRows = this.db.query("SELECT data FROM tasks WHERE status IN ('running', 'paused')").map((row) => row.data);
    for (const task of decodeRows(taskRows, decodeTask, report)) this.tasks.set(task.id, task);
    // Live work is read now: sessions of running and paused tasks and sessions mid-turn or
    // waiting. Their number is bounded by the caps on running tasks, not by the history.
    const live = new Set([...this.tasks.values()].map((t) => t.sessionId));
    for (const session of this.sessions.values()) if (session.status === 'working' || session.status === 'waiting') live.add(session.id);
    await this.loadTranscripts([...live].filter((id) => this.sessions.has(id)));
  }

  /** Whether a session's transcript tail is in memory (then `transcript()` is complete). */
  hasTranscript(sessionId: string): boolean {
    return this.transcripts.has(sessionId);
  }

  /**
   * The session's transcript tail, read from its stream on first use and then kept current by
   * `appendMessage`. Lines appended while the tail is being read are merged by seq, so none is
   * lost or doubled.
   */
  async loadTranscript(sessionId: string): Promise<MessageView[]> {
    const cached = this.transcripts.get(sessionId);
    if (cached) return cached;
    let pending = this.loading.get(sessionId);
    if (!pending) {
      const appended: Array<{ seq: number; message: MessageView }> = [];
      const done = this.streams.tail(sessionId, 'message', TRANSCRIPT_LINES, TRANSCRIPT_LINES * 4).then((events) => {
        const seen = new Set(events.map((e) => e.seq));
        const lines = [...events.map(toMessage), ...appended.filter((a) => !seen.has(a.seq)).map((a) => a.message)].slice(-TRANSCRIPT_LINES);
        // A session removed while its tail was read stays removed.
        if (this.loading.get(sessionId)?.done === done && this.sessions.has(sessionId)) this.transcripts.set(sessionId, lines);
        return lines;
      });
      pending = { done, appended };
      this.loading.set(sessionId, pending);
      void done
        .finally(() => {
          if (this.loading.get(sessionId)?.done === done) this.loading.delete(sessionId);
        })
        .catch(() => undefined);
    }
    return pending.done;
  }

  /** Reads the tails of these sessions a few at a time (bounded open files). */
  async loadTranscripts(sessionIds: Iterable<string>): Promise<void> {
    const ids = [...sessionIds].filter((id) => !this.transcripts.has(id));
    const worker = async (): Promise<void> => {
      for (let id = ids.pop(); id !== undefined; id = ids.pop()) await this.loadTranscript(id);
    };
    await Promise.all(Array.from({ length: Math.min(LOAD_CONCURRENCY, ids.length) }, worker));
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

  /** The transcript tail in memory: empty for a session whose tail was not read yet (see `loadTranscript`). */
  transcript(sessionId: string): MessageView[] {
    return this.transcripts.get(sessionId) ?? [];
  }

  createSession(init: { id?: string; name: string; taskId?: string; parentId?: string }): SessionRecord {
    const now = this.clock.now();
    const session: SessionRecord = {
      id: init.id ?? newId('s-', now),
      name: init.name,
      status: 'idle',
      lastActivity: now,
      ...(init.taskId ? { taskId: init.taskId } : {}),
      ...(init.parentId ? { parentId: init.parentId } : {}),
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
    this.loading.delete(sessionId);
    this.db.mutate('DELETE FROM sessions WHERE id = ?', [sessionId]);
    this.publish({ type: 'sessionRemoved', sessionId, ...(movedTo ? { movedTo } : {}) });
  }

  /** The archive took an idle session: drop it from memory (its rows already left the database). */
  forgetSession(sessionId: string): void {
    if (!this.sessions.delete(sessionId)) return;
    this.transcripts.delete(sessionId);
    this.loading.delete(sessionId);
    this.publish({ type: 'sessionRemoved', sessionId, archived: true });
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
  async appendMessage(
    sessionId: string,
    role: MessageRole,
    text: string,
    extra: { retryable?: boolean; stopped?: boolean; arrivedDuring?: number; taskId?: string; requestId?: string; said?: MessageSaid } = {},
  ): Promise<MessageView> {
    const asked: MessageView = {
      role,
      text,
      at: this.clock.now(),
      ...(extra.retryable ? { retryable: true } : {}),
      ...(extra.stopped ? { stopped: true } : {}),
      ...(extra.arrivedDuring ? { arrivedDuring: extra.arrivedDuring } : {}),
      ...(extra.taskId ? { taskId: extra.taskId } : {}),
      ...(extra.requestId ? { requestId: extra.requestId } : {}),
      ...(extra.said ? { said: extra.said } : {}),
    };
    // The stream redacts secrets; the sidebar, the transcript and EVENT.md show what was stored.
    const written = await this.streams.append(sessionId, 'message', { ...asked }, asked.at);
    const message: MessageView = { ...asked, text: typeof written.data.text === 'string' ? written.data.text : text };
    // Only a tail in memory is kept current; one not read yet will be read with this line in it,
    // and one being read merges it by seq.
    const lines = this.transcripts.get(sessionId);
    if (lines) {
      lines.push(message);
      if (lines.length > TRANSCRIPT_LINES) lines.splice(0, lines.length - TRANSCRIPT_LINES);
    } else this.loading.get(sessionId)?.appended.push({ seq: written.seq, message });
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

  /**
   * Everything mutated so far is durable (database group commit, event stream fsyncs) and the
   * EVENT.md lines queued so far are written, so a settled turn has left nothing in flight.
   */
  async commit(): Promise<void> {
    await Promise.all([this.db.commit(), this.streams.flush(), this.eventMd.settled()]);
  }
}

/** A stream's `message` event as a transcript line. */
export function toMessage(event: TaskEvent): MessageView {
  const d = event.data as unknown as MessageView;
  return {
    role: d.role,
    text: d.text,
    at: d.at ?? event.at,
    ...(d.retryable ? { retryable: true } : {}),
    ...(d.stopped ? { stopped: true } : {}),
    ...(d.arrivedDuring ? { arrivedDuring: d.arrivedDuring } : {}),
    ...(typeof d.taskId === 'string' ? { taskId: d.taskId } : {}),
    ...(typeof d.requestId === 'string' ? { requestId: d.requestId } : {}),
    ...(isSaid(d.said) ? { said: d.said } : {}),
  };
}

/** A stored `said` the page can word; anything else (a damaged row, a code of a newer version) shows the text. */
function isSaid(said: unknown): said is MessageSaid {
  const s = said as Partial<MessageSaid> | null | undefined;
  return typeof s === 'object' && s !== null && s.code === 'invalid_tool_calls' && typeof s.detail === 'string';
}
