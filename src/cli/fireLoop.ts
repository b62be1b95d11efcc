/**
 * No fire loop (issue 38): a chore with `outputs.pushToPullRequest` commits to a pull request's
 * branch; pushed with TASKLANE_PR_TOKEN (so the repository's CI starts), that push sends
 * `pull_request: synchronize`, which fires every chore that runs on the pull request's pushes,
 * the one that pushed included. If it pushes again, it fires again, for ever (and two pushing
 * chores could take turns).
 *
 * Decision: every commit Tasklane pushes carries a trailer, `Tasklane-Chore: <id>` (pushToPull.ts),
 * and a synchronize fire of a chore that may push (one with pushToPullRequest) whose new head
 * carries it is skipped before the actor gate and any model call, recorded in the ledger as
 * stopped (`loop`: no cost, no fire) and told on the item's status. Every loop needs a chore that
 * pushes on a push, so this ends all of them; a chore that does not push (a reviewer) still fires
 * on Tasklane's commit, once, as it would on anyone's. The next push by a person fires as usual.
 * Why the commit and not the ledger's record of the pushed sha: the commit is the one fact every
 * chore can read (one request with the gate token's `contents: read`), whichever chore pushed it
 * and whatever its ledger says; the trailer names that chore. Anyone may write the trailer in
 * their own commit: that only keeps pushing chores from firing on it.
 * Where the head cannot be read (no gate token, GitHub refuses), the fire is skipped too: a
 * pushing chore never fires on a push it cannot tell from its own.
 */
import type { GithubEvent } from '../core/chores/githubEvent';
import type { ChoreDefinition } from '../core/chores/types';
import type { GithubApi } from './githubApi';

const TRAILER = 'Tasklane-Chore';

/** The trailer pushToPull.ts writes last in a commit's message: the chore that pushed it. */
export function pushedTrailer(choreId: string): string {
  return `${TRAILER}: ${choreId}`;
}

/** The chore that pushed a commit with this message (its trailer paragraph, the last), or undefined for anyone else's. */
export function pushedBy(message: string): string | undefined {
  const last =
    message
      .trimEnd()
      .split(/\n[ \t]*\n/)
      .at(-1) ?? '';
  for (const line of last.split('\n')) {
    const m = /^Tasklane-Chore:[ \t]*([a-z0-9][a-z0-9-]*)[ \t]*$/i.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/** Why this fire is skipped as a loop, or undefined when it may go on. */
export async function fireLoop(chore: ChoreDefinition, event: GithubEvent, api: GithubApi | undefined): Promise<string | undefined> {
  if (!chore.outputs?.pushToPullRequest || event.name !== 'pull_request' || event.payload.action !== 'synchronize') return undefined;
  const pr = event.payload.pull_request as { head?: { sha?: unknown } } | undefined;
  const head = typeof event.payload.after === 'string' ? event.payload.after : pr?.head?.sha;
  const cannot = (why: string) =>
    `cannot tell whether the pull request's new head is Tasklane's own push (${why}); a chore that pushes to pull requests does not fire on a push it cannot tell from its own`;
  if (typeof head !== 'string' || !/^[0-9a-f]{40}$/.test(head)) return cannot('the event names no head commit');
  if (!api) return cannot('no TASKLANE_GATE_TOKEN to read it with');
  let message: string;
  try {
    message = await api.commitMessage(head);
  } catch (error) {
    return cannot(`GitHub refused to show ${head.slice(0, 12)}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const by = pushedBy(message);
  if (by === undefined) return undefined;
  return `the pull request's new head ${head.slice(0, 12)} is Tasklane's own commit (pushed by chore ${by}): a fire on it could push again, and again. The next push by a person fires the chore as usual`;
}
