/**
 * The agent's read model: what every view (the sidebar, the palette commands, `tasklane.getState`,
 * the language-model tools, the chore runner) reads, and the one change feed that tells them when
 * to read again. Nothing here writes: sending, stopping, retrying and dismissing go through the
 * Agent and DeadLetters, which publish their changes here (engineState.ts `onChange`).
 */
import { exportSession } from './historyExport';
import type { ExportResult } from './historyExport';
import type { AgentParts } from './agentParts';
import { toMessage } from './engineState';
import { sessionView, taskView } from './records';
import { SESSION_PAGE } from './sessionPages';
import type { SessionCursor, SessionPage } from './sessionPages';
import type { AgentChange, AgentSnapshot, MessageView, SessionView, TaskEvent, TaskView } from './types';

/** A session with its live task, as a list row draws it. */
export interface SessionRowView {
  session: SessionView;
  tasks: TaskView[];
}

/** A row of the session list: a session, and for a conversation the lanes of the tasks it started. */
export interface ListRowView extends SessionRowView {
  /** The row's place in the list: the newest activity of the session and its task lanes. */
  lastActivity: number;
  children: SessionRowView[];
}

/** Transcript lines a snapshot carries per session. */
const SNAPSHOT_MESSAGES = 50;

export class AgentViews {
  constructor(
    private readonly parts: AgentParts,
    /** Resolves once the state is loaded: a view asked earlier waits rather than reading half. */
    private readonly ready: Promise<void>,
  ) {}

  /** The tools a turn granted `actionSets` is offered now, by name, in the order its request lists them. */
  toolNames(actionSets: readonly string[]): string[] {
    return this.parts.env.registry.tools(actionSets).map((tool) => tool.name);
  }

  /** Every hot session (newest activity first, with its transcript tail), every task, the dead letters. */
  snapshot(): AgentSnapshot {
    const { state, env, deadLetters } = this.parts;
    return {
      sessions: [...state.sessions.values()]
        .sort((a, b) => b.lastActivity - a.lastActivity)
        .map((s) => {
          const live = env.liveTurns.get(s.id);
          return { ...sessionView(s, state.transcript(s.id).slice(-SNAPSHOT_MESSAGES)), ...(live ? { liveTurnId: live.id } : {}) };
        }),
      tasks: [...state.tasks.values()].sort((a, b) => b.createdAt - a.createdAt).map(taskView),
      deadLetters: deadLetters.list(),
    };
  }

  /** One task as it is now (a view that re-draws a task for a change that is not the agent's). */
  task(taskId: string): TaskView | undefined {
    const task = this.parts.state.tasks.get(taskId);
    return task && taskView(task);
  }

  /**
   * One session's row (no transcript) with its live task, without building the whole snapshot:
   * the sidebar re-draws one row per change.
   */
  sessionRow(sessionId: string): { session: SessionView | undefined; tasks: TaskView[] } {
    const { state } = this.parts;
    const session = state.sessions.get(sessionId);
    const task = state.taskOf(sessionId);
    return { session: session && sessionView(session, []), tasks: task ? [taskView(task)] : [] };
  }

  /**
   * The session list's row that shows `sessionId` (its own, or for a task's lane, its
   * conversation's), with each session's live task: the sidebar re-draws that row on a change.
   */
  listRow(sessionId: string): ListRowView | undefined {
    const { state, pages } = this.parts;
    const item = pages.row(sessionId);
    if (!item) return undefined;
    const view = (id: string) => {
      const session = state.sessions.get(id);
      const task = state.taskOf(id);
      return session && { session: sessionView(session, []), tasks: task ? [taskView(task)] : [] };
    };
    const top = view(item.id);
    if (!top) return undefined;
    return { ...top, lastActivity: item.lastActivity, children: (item.tasks ?? []).flatMap((t) => view(t.id) ?? []) };
  }

  /** A page of the session list (newest first, hot and archived), after `cursor` (see sessionPages.ts). */
  async sessionPage(cursor?: SessionCursor, limit = SESSION_PAGE): Promise<SessionPage> {
    await this.ready;
    return this.parts.pages.page(cursor, limit);
  }

  /**
   * A session's transcript tail, hot or archived: read from its stream on first need (activation
   * reads none), then kept in memory for a hot session. The sidebar asks for it when it opens one.
   */
  async sessionMessages(sessionId: string): Promise<MessageView[]> {
    await this.ready;
    const { state } = this.parts;
    if (state.sessions.has(sessionId)) return (await state.loadTranscript(sessionId)).slice(-SNAPSHOT_MESSAGES);
    const events = await state.streams.tail(sessionId, 'message', SNAPSHOT_MESSAGES, SNAPSHOT_MESSAGES * 4);
    return events.map(toMessage);
  }

  /** A task's event stream, newest last, before `beforeSeq` (the Details view pages back with it). */
  readTaskEvents(taskId: string, options: { beforeSeq?: number; limit: number }): Promise<TaskEvent[]> {
    return this.parts.state.streams.read(taskId, options);
  }

  /** Writes a session's full trace (hot or archived) as JSONL and Markdown into `outDir`. */
  async exportSession(sessionId: string, outDir: string): Promise<ExportResult> {
    await this.ready;
    const { history, state, deps, env, archive } = this.parts;
    return exportSession({ history, streams: state.streams, db: deps.db, redact: env.redact, ...(archive ? { archive } : {}) }, sessionId, outDir);
  }

  /** Every change to sessions, tasks, transcripts, live turns and dead letters. */
  onDidChange(listener: (change: AgentChange) => void): { dispose(): void } {
    return this.parts.state.onChange(listener);
  }
}
