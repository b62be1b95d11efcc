/**
 * The session list a page at a time, newest first, across hot sessions and the archive, so the
 * sidebar never holds or draws a year of sessions at once (docs/STORAGE.md, "The archive").
 *
 * Pages are keyset-paged on (lastActivity, id), both descending: a page is "the next `limit`
 * sessions after this cursor". A session created while someone scrolls is newer than every
 * cursor, so it never shifts a later page (it reaches the sidebar as a live `session` change);
 * a session archived meanwhile keeps its lastActivity, so it stays where it was in the order.
 * Nothing is shown twice and nothing that was there when paging began is skipped, unless it
 * became active again (then it is newer than the cursor, and its live change shows it on top).
 *
 * The list is of conversations: a task's lane started from one (`SessionRecord.parentId`) is not a
 * row of its own but nested under that conversation, and the conversation's place in the order is
 * its newest activity, its tasks' included (a task at work keeps its conversation on top). A lane
 * whose conversation is in neither the hot store nor the archive is a row of its own, so nothing
 * is ever lost from the list.
 */
import type { Archive } from '../store/archive';
import { DurableRowError } from '../store/decodeRow';
import { decodeSession } from './durableRows';
import type { EngineState } from './engineState';
import type { SessionRecord } from './records';
import type { SessionStatus } from './types';

/** Sessions per page the sidebar asks for. */
export const SESSION_PAGE = 50;

/** Where the previous page ended: its last session's lastActivity and id. */
export interface SessionCursor {
  at: number;
  id: string;
}

/** One row of the session list. */
export interface SessionListItem {
  id: string;
  name: string;
  status: SessionStatus;
  lastActivity: number;
  taskId?: string;
  /** A task's lane: the conversation it is listed under. */
  parentId?: string;
  /** Only in the archive (idle for a while); opening it reads its stream. */
  archived: boolean;
  /** A conversation's task lanes, oldest first (absent: none). Its `lastActivity` includes theirs. */
  tasks?: SessionListItem[];
}

export interface SessionPage {
  sessions: SessionListItem[];
  hasMore: boolean;
}

/** `a` comes before `b` in the list (newer first, then id descending). */
function before(a: { lastActivity: number; id: string }, b: { lastActivity: number; id: string }): boolean {
  return a.lastActivity > b.lastActivity || (a.lastActivity === b.lastActivity && a.id > b.id);
}

const compare = (a: SessionListItem, b: SessionListItem) => (before(a, b) ? -1 : before(b, a) ? 1 : 0);

function item(session: Pick<SessionRecord, 'id' | 'name' | 'status' | 'lastActivity' | 'taskId' | 'parentId'>, archived: boolean): SessionListItem {
  return {
    id: session.id,
    name: session.name,
    status: session.status,
    lastActivity: session.lastActivity,
    ...(session.taskId ? { taskId: session.taskId } : {}),
    ...(session.parentId ? { parentId: session.parentId } : {}),
    archived,
  };
}

/**
 * Rows of the list from `items`: lanes whose conversation is among `items` go under it, and the
 * conversation's activity becomes the newest of its own and its tasks'.
 */
function nest(items: SessionListItem[]): SessionListItem[] {
  const byId = new Map(items.map((i) => [i.id, i]));
  const children = new Map<string, SessionListItem[]>();
  const rows: SessionListItem[] = [];
  for (const i of items) {
    if (i.parentId && byId.has(i.parentId)) {
      const list = children.get(i.parentId) ?? [];
      list.push(i);
      children.set(i.parentId, list);
    } else rows.push(i);
  }
  return rows.map((row) => {
    const tasks = children.get(row.id);
    if (!tasks) return row;
    tasks.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { ...row, lastActivity: Math.max(row.lastActivity, ...tasks.map((t) => t.lastActivity)), tasks };
  });
}

export class SessionPages {
  /** Archived sessions, in list order; read on the first page that reaches past the hot ones. */
  private archived?: SessionListItem[];

  constructor(private readonly deps: { state: EngineState; archive?: Archive; report?: (error: DurableRowError) => void }) {}

  /** The archive took sessions: the archived index is read again when next needed. */
  invalidate(): void {
    this.archived = undefined;
  }

  /** The list row that shows `sessionId`: its own, or its conversation's (with the tasks nested); hot sessions only. */
  row(sessionId: string): SessionListItem | undefined {
    const { sessions } = this.deps.state;
    const session = sessions.get(sessionId);
    if (!session) return undefined;
    const top = session.parentId ? sessions.get(session.parentId) : undefined;
    const parent = top ?? session;
    const lanes = [...sessions.values()].filter((s) => s.parentId === parent.id);
    return nest([parent, ...lanes].map((s) => item(s, false)))[0];
  }

  page(cursor: SessionCursor | undefined, limit = SESSION_PAGE): SessionPage {
    const after = (s: SessionListItem) => !cursor || before({ lastActivity: cursor.at, id: cursor.id }, s);
    const hot = nest([...this.deps.state.sessions.values()].map((s) => item(s, false)))
      .filter(after)
      .sort(compare);
    let rows = hot.slice(0, limit + 1);
    if (rows.length <= limit && this.deps.archive) {
      const hotIds = new Set(this.deps.state.sessions.keys());
      const archived = this.archivedIndex();
      // First archived row after the cursor (the index is sorted): binary search.
      let lo = 0;
      let hi = archived.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (after(archived[mid])) hi = mid;
        else lo = mid + 1;
      }
      const more: SessionListItem[] = [];
      for (let i = lo; i < archived.length && more.length + rows.length <= limit; i++) if (!hotIds.has(archived[i].id)) more.push(archived[i]);
      rows = [...rows, ...more].sort(compare);
    }
    return { sessions: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  private archivedIndex(): SessionListItem[] {
    if (!this.archived) {
      const byId = new Map<string, SessionListItem>();
      for (const record of this.deps.archive?.records('session') ?? []) {
        try {
          const session = decodeSession(record.row.data, record.id);
          byId.set(session.id, item(session, true));
        } catch (error) {
          // A row that does not decode is reported and left out of the list.
          if (!(error instanceof DurableRowError)) throw error;
          this.deps.report?.(error);
        }
      }
      // Each side nests what it holds: a lane archived before its conversation is a row of its own.
      this.archived = nest([...byId.values()]).sort(compare);
    }
    return this.archived;
  }
}
