/**
 * The sidebar protocol's session-list part (src/shared/protocol.ts joins it with the rest): the
 * list arrives a page at a time, newest first, across hot and archived sessions; a session's
 * transcript is sent when it is opened; the search box asks the same history search as
 * `Tasklane: Search History`.
 */
import * as z from 'zod';

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

export type SessionHostMessage =
  /** A page of the list after `after` (absent: the first page). */
  | { type: 'sessions.page'; after?: { at: number; id: string }; sessions: SessionSummary[]; hasMore: boolean }
  /** An opened session's transcript tail (hot or archived). */
  | { type: 'sessions.opened'; session: SessionSummary; messages: MessageView[] }
  | { type: 'sessions.results'; requestId: string; query: string; hits: SessionHitView[]; error?: string };

const id = z.string().min(1).max(200);

export const sessionMessageSchemas = [
  z.object({ type: z.literal('sessions.page'), after: z.object({ at: z.number().int().nonnegative(), id }).optional() }),
  z.object({ type: z.literal('sessions.open'), sessionId: id }),
  z.object({ type: z.literal('sessions.search'), requestId: id, query: z.string().max(500) }),
] as const;

export type SessionWebviewMessage = z.infer<(typeof sessionMessageSchemas)[number]>;

export { SESSIONS_FIRST_PAINT_MARK } from './viewConstants';
