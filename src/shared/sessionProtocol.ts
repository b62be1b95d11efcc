/**
 * The sidebar protocol's session-list part (src/shared/protocol.ts joins it with the rest): the
 * list arrives a page at a time, newest first, across hot and archived sessions; a session's
 * transcript is sent when it is opened; the search box asks the same history search as
 * `Tasklane: Search History`.
 */
import { z } from 'zod';
import type { MessageView, SessionSummary } from './protocol';

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
