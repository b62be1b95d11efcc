/**
 * One status per item (ci-2026-12c §6): a fire about an issue or a pull request keeps one sticky
 * comment per chore on it, written by the apply job and edited in place on every later fire. It
 * says the outcome (the check title), the run link, the cost and what was applied or refused, so
 * the item shows what happened even when the fire was refused, stopped, cancelled or failed: the
 * check run appears only on a pull request's head, and an issue has no checks at all.
 *
 * The status comment is not the chore's `comment` output (the model's text, its own marker): it is
 * Tasklane's account of the fire, built from the manifest's numbers and the apply report; any
 * model-derived words in it (a refused label, a run's reason) pass through the same neutralising as
 * posted outputs, so it pings nobody and links nowhere new.
 */
import type { CommentSummary, GithubApi } from './githubApi';

/** The hidden marker of a chore's status comment (distinct from its comment output's marker). */
export function statusMarker(choreId: string): string {
  return `<!-- tasklane:chore=${choreId} status -->`;
}

export interface StatusFacts {
  choreId: string;
  /** The outcome in one line: the check run's title. */
  title: string;
  /** The summary's lines (status, verdict, cost, commands, outputs), already safe to post. */
  lines: readonly string[];
  /** The workflow run's page, when known. */
  runUrl?: string;
}

/** The status comment's body. */
export function statusBody(facts: StatusFacts): string {
  return [
    `**Tasklane · ${facts.choreId}**: ${facts.title}${facts.runUrl ? ` ([run](${facts.runUrl}))` : ''}`,
    '',
    // A line quoting run text cannot open an HTML comment: no hidden marker can ride in it and make
    // this comment pass for another chore's status or output.
    ...facts.lines.map((line) => line.replace(/<!--/g, '&lt;!--')),
    '',
    statusMarker(facts.choreId),
  ].join('\n');
}

/** Only a bot's comment is Tasklane's: a person can paste the marker, and keeps their comment. */
function ownStatus(comments: readonly CommentSummary[], choreId: string): CommentSummary | undefined {
  return comments.find((c) => c.user?.type === 'Bot' && (c.body ?? '').includes(statusMarker(choreId)));
}

/** Writes the status on item `number`, editing the earlier one in place; says which it did. */
export async function upsertStatus(api: GithubApi, number: number, facts: StatusFacts): Promise<string> {
  const body = statusBody(facts);
  const existing = ownStatus(await api.comments(number), facts.choreId);
  if (existing) {
    await api.updateComment(existing.id, body);
    return `status comment on #${number} updated in place`;
  }
  await api.createComment(number, body);
  return `status comment on #${number}`;
}
