/**
 * A conversation's views: its row (the History quick pick lists them, the Chat view names the one
 * it shows) and the lines of its transcript, sent when the Chat view opens it (`sessions.open` in
 * src/shared/sidebarApi.ts).
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
  /** A line the core wrote, as a code and its values: the page words it (`text` is its English, shown when the page knows no such code). */
  said?: { code: 'invalid_tool_calls'; detail: string };
}

/** A session's row, without its transcript. */
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
  /** A conversation's rows for the tasks it started (nested in it; no row of their own). */
  tasks?: SessionSummary[];
}
