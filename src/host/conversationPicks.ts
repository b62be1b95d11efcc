import type { SessionSummary } from '../shared/protocol';

/** The words of the conversation picker, given by its command (localised there). */
export interface PickWords {
  /** The heading of the conversations whose task waits for the person, above the days. */
  waitingSection: string;
  today: string;
  yesterday: string;
  older: string;
  waiting: string;
  archived: string;
  /** "{0} tasks", with the count put in. */
  tasks: (count: number) => string;
}

/** A row of the picker: a conversation (its id), or a heading. */
export interface ConversationItem {
  label: string;
  description?: string;
  separator?: true;
  /**
   * What picking the row shows: the conversation, or for one whose task waits, that task's lane,
   * which the Chat view shows as its conversation scrolled to the waiting block.
   */
  sessionId?: string;
}

const DAY = 24 * 60 * 60 * 1000;

/** A task that waits for the person's answer or approval. */
const waits = (s: SessionSummary) => s.waitingForUser || s.pendingApprovals > 0;

/**
 * The History title action's rows, as Copilot's chat history lists them: conversations newest
 * first under Today / Yesterday / Older, each named by its title, with what a person scans for
 * (waiting for you, its tasks, archived) beside it, so typing filters by either. Above the days,
 * "Waiting for you": the conversations whose task waits for an answer or an approval, each once,
 * so what waits in another conversation is reached from this native list as well as from the
 * status bar and the badge (src/host/attention.ts). The list pages arrive newest first already
 * (`SessionPages`); days are the local calendar's.
 */
export function conversationItems(sessions: readonly SessionSummary[], now: number, words: PickWords): ConversationItem[] {
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  const startOfToday = midnight.getTime();
  const group = (at: number) => (at >= startOfToday ? words.today : at >= startOfToday - DAY ? words.yesterday : words.older);
  const newestFirst = [...sessions].sort((a, b) => b.lastActivity - a.lastActivity);
  const row = (session: SessionSummary, waiting: SessionSummary | undefined): ConversationItem => {
    const notes = [
      waiting ? words.waiting : undefined,
      session.tasks?.length ? words.tasks(session.tasks.length) : undefined,
      session.archived ? words.archived : undefined,
    ].filter((n): n is string => n !== undefined);
    return { label: session.name, sessionId: waiting?.id ?? session.id, ...(notes.length ? { description: notes.join(' · ') } : {}) };
  };
  /** What waits in a conversation: itself, or the first of its tasks that waits. */
  const waitingIn = (session: SessionSummary) => (waits(session) ? session : session.tasks?.find(waits));
  const items: ConversationItem[] = [];
  const waitingRows = newestFirst.flatMap((session) => {
    const waiting = waitingIn(session);
    return waiting ? [row(session, waiting)] : [];
  });
  if (waitingRows.length) items.push({ label: words.waitingSection, separator: true }, ...waitingRows);
  let heading: string | undefined;
  for (const session of newestFirst) {
    if (waitingIn(session)) continue;
    const day = group(session.lastActivity);
    if (day !== heading) items.push({ label: (heading = day), separator: true });
    items.push(row(session, undefined));
  }
  return items;
}
