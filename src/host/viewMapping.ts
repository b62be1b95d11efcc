import type { TaskEdits } from '../core/approval/changes/revertibleTasks';
import type { AgentChange, DeadLetterView as CoreDeadLetter, TaskEvent, TaskView as CoreTask, SessionView as CoreSession } from '../core/engine/types';
import type { StepPresenter } from './stepPresenter';
import type { DeadLetterView, HostMessage, MessageView, SessionSummary, SessionView, TaskView, TraceEventView } from '../shared/protocol';

/**
 * Engine views → sidebar protocol. The engine speaks in its own terms (counters with limits,
 * structured event data); the sidebar gets what it draws: short summaries, pretty JSON detail.
 */
export function toSessionSummary(session: Omit<CoreSession, 'messages'>, tasks: readonly CoreTask[]): SessionSummary {
  const task = tasks.find((t) => t.sessionId === session.id && (t.status === 'running' || t.status === 'paused'));
  return {
    id: session.id,
    name: session.name,
    status: session.status,
    lastActivity: session.lastActivity,
    waitingForUser: task?.waitingForUser ?? false,
    pendingApprovals: task?.waitingForApproval ? 1 : 0,
    ...(task?.paused ? { paused: true } : {}),
    ...(session.parentId ? { parentId: session.parentId } : {}),
  };
}

/** A row of the session list: a session with its live task, and a conversation's task lanes. */
export interface ListRow {
  session: Omit<CoreSession, 'messages'> | undefined;
  tasks: readonly CoreTask[];
  /** The row's place in the list (the newest activity of the session and its lanes); default the session's. */
  lastActivity?: number;
  children?: ReadonlyArray<{ session: Omit<CoreSession, 'messages'>; tasks: readonly CoreTask[] }>;
}

/**
 * A conversation's row with the tasks it started nested in it; its badges say what any of them
 * waits for, so a task waiting for the person shows on the one row the person knows.
 */
export function toListSummary(row: ListRow & { session: Omit<CoreSession, 'messages'> }): SessionSummary {
  const own = toSessionSummary(row.session, row.tasks);
  const tasks = (row.children ?? []).map((c) => toSessionSummary(c.session, c.tasks));
  if (tasks.length === 0) return { ...own, lastActivity: row.lastActivity ?? own.lastActivity };
  return {
    ...own,
    lastActivity: row.lastActivity ?? Math.max(own.lastActivity, ...tasks.map((t) => t.lastActivity)),
    waitingForUser: own.waitingForUser || tasks.some((t) => t.waitingForUser),
    pendingApprovals: own.pendingApprovals + tasks.reduce((n, t) => n + t.pendingApprovals, 0),
    tasks,
  };
}

export function toSessionView(session: CoreSession, tasks: readonly CoreTask[]): SessionView {
  return {
    ...toSessionSummary(session, tasks),
    messages: session.messages.map(toMessageView),
    ...(session.liveTurnId ? { liveTurnId: session.liveTurnId } : {}),
  };
}

/** A transcript line for the sidebar (the one mapping: `init` tails, live lines, opened sessions). */
export function toMessageView({ role, text, at, stopped, taskId, said }: CoreSession['messages'][number]): MessageView {
  return { role, text, at, ...(stopped ? { stopped: true } : {}), ...(taskId ? { taskId } : {}), ...(said ? { said } : {}) };
}

/** `edits`: what is left of the task's applied edits (RevertibleTasks), which the core task does not know. */
export function toTaskView(task: CoreTask, edits: TaskEdits = 'none'): TaskView {
  return {
    id: task.id,
    sessionId: task.sessionId,
    name: task.name,
    mode: task.mode,
    status: task.status,
    todos: task.todos,
    counters: {
      actions: task.counters.actions.used,
      tokens: task.counters.tokens.used,
      cost: task.usage.cost,
      ...(task.usage.costEstimated ? { costEstimated: true } : {}),
    },
    budget: { actions: task.counters.actions.limit, tokens: task.counters.tokens.limit, cost: task.counters.cost?.limit },
    waitingForUser: task.waitingForUser,
    ...(task.waitingForApproval ? { waitingForApproval: true } : {}),
    paused: task.paused,
    ...(task.stopping ? { stopping: true } : {}),
    ...(task.pauseReason ? { pauseReason: task.pauseReason } : {}),
    ...(task.finalSummary ? { finalSummary: task.finalSummary } : {}),
    ...(task.checks ? { checks: task.checks } : {}),
    ...(edits === 'revertible' ? { revertible: true } : {}),
    ...(edits === 'reverted' ? { editsReverted: true } : {}),
  };
}

export function toDeadLetterView(dead: CoreDeadLetter): DeadLetterView {
  return { id: dead.id, sessionId: dead.sessionId, source: dead.source, attempts: dead.attempts, error: dead.lastError ?? 'unknown error' };
}

const DETAIL_LIMIT = 4000;

/** One trace row: a one-line summary and a bounded detail (keeps each update well under 10 KB). */
export function toTraceEvent(event: TaskEvent): TraceEventView {
  const data = event.data;
  const name = typeof data.action === 'string' ? data.action : typeof data.name === 'string' ? data.name : '';
  const text = typeof data.text === 'string' ? data.text : typeof data.error === 'string' ? data.error : '';
  const summary = [name, text].filter(Boolean).join(': ').replace(/\s+/g, ' ').slice(0, 200) || event.kind;
  const detail = JSON.stringify(data, null, 2);
  return {
    seq: event.seq,
    type: event.kind,
    at: event.at,
    summary,
    detail:
      detail.length > DETAIL_LIMIT ? `${detail.slice(0, DETAIL_LIMIT)}\n… (${detail.length - DETAIL_LIMIT} more characters in the task's event log)` : detail,
    durationMs: typeof data.durationMs === 'number' ? data.durationMs : undefined,
  };
}

/** The list row that shows a session (`AgentViews.listRow`: a task's lane is shown in its conversation's row). */
export type SessionRowLookup = (sessionId: string) => ListRow | undefined;

/**
 * An engine change as the few small sidebar messages it becomes. A task change also re-draws the
 * row that shows its session (its conversation's, for a task started from one), whose badges
 * (waiting, to review) come from the task; a task event that is a step of the task also becomes
 * its row in the thread (`steps` remembers actions under way).
 */
export function toHostMessages(
  change: AgentChange,
  row: SessionRowLookup,
  steps?: StepPresenter,
  edits: (taskId: string) => TaskEdits = () => 'none',
): HostMessage[] {
  switch (change.type) {
    case 'message':
      return [{ type: 'messageAppended', sessionId: change.sessionId, message: toMessageView(change.message) }];
    case 'session': {
      const shown = row(change.session.id);
      return [{ type: 'sessionPatch', session: shown?.session ? toListSummary({ ...shown, session: shown.session }) : toSessionSummary(change.session, []) }];
    }
    case 'task': {
      const shown = row(change.task.sessionId);
      return [
        { type: 'taskPatch', task: toTaskView(change.task, edits(change.task.id)) },
        ...(shown?.session ? [{ type: 'sessionPatch' as const, session: toListSummary({ ...shown, session: shown.session }) }] : []),
      ];
    }
    case 'taskEvent': {
      const step = steps?.present(change.taskId, change.event);
      return [
        { type: 'traceAppended', taskId: change.taskId, event: toTraceEvent(change.event) },
        ...(step ? [{ type: 'thread.step' as const, taskId: change.taskId, steps: [step] }] : []),
      ];
    }
    case 'deadLetters':
      return [{ type: 'deadLetters', deadLetters: change.deadLetters.map(toDeadLetterView) }];
    case 'sessionRemoved':
      return [{ type: 'sessionRemoved', sessionId: change.sessionId, movedTo: change.movedTo, ...(change.archived ? { archived: true } : {}) }];
    case 'turn':
      return [{ type: 'turnState', sessionId: change.sessionId, turnId: change.turnId, running: change.running }];
    case 'stream':
      return [{ type: 'streamDelta', sessionId: change.sessionId, turnId: change.turnId, delta: change.delta }];
    case 'actionProgress': {
      const step = steps?.progress(change.taskId, change.callId, change.note);
      return step ? [{ type: 'thread.step', taskId: change.taskId, steps: [step] }] : [];
    }
  }
}
