import type { Agent } from '../core/engine/agent';
import { emptyTotals } from '../core/engine/records';
import type { SessionListItem } from '../core/engine/sessionPages';
import type { SessionSummary } from '../shared/protocol';
import type { SessionHostMessage, SessionWebviewMessage } from '../shared/sessionProtocol';
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

/** The first page of the session list, for the sidebar's initial state. */
export async function firstSessionPage(agent: ListAgent): Promise<{ sessions: SessionSummary[]; hasMore: boolean }> {
  const page = await agent.views.sessionPage();
  return { sessions: page.sessions.map((s) => summary(agent, s)), hasMore: page.hasMore };
}

/** Answers the sidebar's session-list messages: pages, opening a session, the search box. */
export async function handleSessionMessage(agent: ListAgent, message: SessionWebviewMessage): Promise<SessionHostMessage | undefined> {
  switch (message.type) {
    case 'sessions.page': {
      const page = await agent.views.sessionPage(message.after);
      return {
        type: 'sessions.page',
        ...(message.after ? { after: message.after } : {}),
        sessions: page.sessions.map((s) => summary(agent, s)),
        hasMore: page.hasMore,
      };
    }
    case 'sessions.open': {
      const messages = await agent.views.sessionMessages(message.sessionId);
      const hot = agent.views.sessionRow(message.sessionId);
      let session: SessionSummary | undefined = hot.session && toSessionSummary(hot.session, hot.tasks);
      if (!session) {
        const found = await agent.history.session(message.sessionId);
        if (!found) throw new Error(`There is no session ${message.sessionId}, in the hot store or the archive.`);
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
      return {
        type: 'sessions.opened',
        session,
        messages: messages.map(toMessageView),
      };
    }
    case 'sessions.search': {
      const query = message.query.trim();
      if (!query) return { type: 'sessions.results', requestId: message.requestId, query, hits: [] };
      const hits = await agent.history.search(query, 30);
      return {
        type: 'sessions.results',
        requestId: message.requestId,
        query,
        hits: hits.map((h) => ({ kind: h.kind, id: h.id, sessionId: h.sessionId, title: h.title, detail: h.detail, at: h.at, archived: h.archived })),
      };
    }
  }
}
