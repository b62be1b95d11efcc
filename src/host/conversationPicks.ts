import type { SessionSummary } from '../shared/protocol';

/** The words of the conversation picker, given by its command (localised there). */
export interface PickWords {
  today: string;
  yesterday: string;
  older: string;
  waiting: string;
  archived: string;
  /** "{0} tasks", with the count put in. */
  tasks: (count: number) => string;
}

/** A row of the picker: a conversation (its id), or a day's heading. */
export interface ConversationItem {
  label: string;
  description?: string;
  separator?: true;
  sessionId?: string;
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * The History title action's rows, as Copilot's chat history lists them: conversations newest
 * first under Today / Yesterday / Older, each named by its title, with what a person scans for
 * (waiting for you, its tasks, archived) beside it, so typing filters by either. The list pages
 * arrive newest first already (`SessionPages`); days are the local calendar's.
 */
export function conversationItems(sessions: readonly SessionSummary[], now: number, words: PickWords): ConversationItem[] {
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  const startOfToday = midnight.getTime();
  const group = (at: number) => (at >= startOfToday ? words.today : at >= startOfToday - DAY ? words.yesterday : words.older);
  const items: ConversationItem[] = [];
  let heading: string | undefined;
  for (const session of [...sessions].sort((a, b) => b.lastActivity - a.lastActivity)) {
    const day = group(session.lastActivity);
    if (day !== heading) items.push({ label: (heading = day), separator: true });
    const waits = session.waitingForUser || session.pendingApprovals > 0 || (session.tasks ?? []).some((t) => t.waitingForUser || t.pendingApprovals > 0);
    const notes = [
      waits ? words.waiting : undefined,
      session.tasks?.length ? words.tasks(session.tasks.length) : undefined,
      session.archived ? words.archived : undefined,
    ].filter((n): n is string => n !== undefined);
    items.push({ label: session.name, sessionId: session.id, ...(notes.length ? { description: notes.join(' · ') } : {}) });
  }
  return items;
}
