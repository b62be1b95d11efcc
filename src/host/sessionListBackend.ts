/**
 * Conversations for the native History quick pick (their rows, paged newest first across hot and
 * archived sessions) and one conversation's opening for the Chat view (the `sessions.open` request).
 * The Chat view holds no list of its own: it is the thread and the composer (issue 36).
 */
import type { Agent } from '../core/engine/agent';
import { emptyTotals } from '../core/engine/records';
import type { SessionCursor, SessionListItem } from '../core/engine/sessionPages';
import type { SessionSummary } from '../shared/protocol';
import type { SidebarResults } from '../shared/sidebarApi';
import { toListSummary, toMessageView, toSessionSummary } from './viewMapping';

type ListAgent = Pick<Agent, 'views' | 'history'>;

/** A list row with its live task's badges (hot sessions), or as archived; a conversation's task lanes nested in it. */
function summary(agent: ListAgent, item: SessionListItem): SessionSummary {
  if (item.archived) {
    const tasks = item.tasks?.map((t) => summary(agent, t));
    return {
      id: item.id,
      name: item.name,
      status: item.status,
      lastActivity: item.lastActivity,
      waitingForUser: false,
      pendingApprovals: 0,
      archived: true,
      ...(item.parentId ? { parentId: item.parentId } : {}),
      ...(tasks?.length ? { tasks } : {}),
    };
  }
  const row = (id: string, fallback: SessionListItem) => {
    const { session, tasks } = agent.views.sessionRow(id);
    return { session: session ?? { ...fallback, usage: emptyTotals() }, tasks };
  };
  return toListSummary({ ...row(item.id, item), lastActivity: item.lastActivity, children: (item.tasks ?? []).map((t) => row(t.id, t)) });
}

/** The first page of the conversations, newest first (the History quick pick, historyPick.ts). */
export async function firstSessionPage(agent: ListAgent): Promise<{ sessions: SessionSummary[]; hasMore: boolean }> {
  const page = await agent.views.sessionPage();
  return { sessions: page.sessions.map((s) => summary(agent, s)), hasMore: page.hasMore };
}

/** A page of the conversations after `after` (the History quick pick reads them page by page). */
export async function sessionPage(agent: ListAgent, after: SessionCursor | undefined): Promise<{ sessions: SessionSummary[]; hasMore: boolean }> {
  const page = await agent.views.sessionPage(after);
  return { sessions: page.sessions.map((s) => summary(agent, s)), hasMore: page.hasMore };
}

/** A session's row and transcript tail, hot or archived (the `sessions.open` request). */
export async function openSession(agent: ListAgent, sessionId: string): Promise<SidebarResults['sessions.open']> {
  const messages = await agent.views.sessionMessages(sessionId);
  const hot = agent.views.sessionRow(sessionId);
  let session: SessionSummary | undefined = hot.session && toSessionSummary(hot.session, hot.tasks);
  if (!session) {
    const found = await agent.history.session(sessionId);
    if (!found) throw new Error(`There is no session ${sessionId}, in the hot store or the archive.`);
    const s = found.session;
    session = {
      id: s.id,
      name: s.name,
      status: s.status,
      lastActivity: s.lastActivity,
      waitingForUser: false,
      pendingApprovals: 0,
      archived: found.archived,
      ...(s.parentId ? { parentId: s.parentId } : {}),
    };
  }
  return { session, messages: messages.map(toMessageView) };
}
