/**
 * The sidebar's session-list views (the requests that fetch them are in src/shared/sidebarApi.ts):
 * the list arrives a page at a time, newest first, across hot and archived sessions; a session's
 * transcript is sent when it is opened; the search box asks the same history search as
 * `Tasklane: Search History`.
 */
/** One line of a session transcript. */
export interface MessageView {
  role: 'user' | 'assistant' | 'error' | 'event';
  text: string;
  /** Epoch ms. */
  at: number;
  /** A reply the person stopped while it streamed (shown with a "stopped" mark). */
  stopped?: boolean;
  /** The line that says a task was started here: the task's id (its block is drawn in its place). */
  taskId?: string;
}

/** A session in the list, without its transcript. */
export interface SessionSummary {
  id: string;
  name: string;
  status: string;
  lastActivity: number;
  waitingForUser: boolean;
  pendingApprovals: number;
  /** The lane's task is paused (its budget, a model error, or the person's Stop): Continue moves it. */
  paused?: boolean;
  /** Only in the archive: opening it reads its stream. */
  archived?: boolean;
  /** A task's lane started from a conversation: that conversation (opening the lane shows its thread). */
  parentId?: string;
  /** A conversation's rows for the tasks it started (the list nests them; no row of their own). */
  tasks?: SessionSummary[];
}

/** One search hit: a session, or a task (opened through its session). */
export interface SessionHitView {
  kind: 'session' | 'task';
  id: string;
  sessionId: string;
  title: string;
  detail: string;
  at: number;
  archived: boolean;
}

export { SESSIONS_FIRST_PAINT_MARK } from './viewConstants';
