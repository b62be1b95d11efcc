/**
 * The GitHub event a fire starts from: on CI read by the command line itself from the event file
 * (`$GITHUB_EVENT_PATH`, cli/eventFile.ts; the workflow passes only the chore id, never `${{ }}`
 * of event text), in VS Code a recorded payload replayed by Run now. Everything in the payload is
 * data written by whoever opened the issue, commented or pushed: it decides whether the chore
 * fires (this file) and reaches the model only through eventText.ts.
 */
import { branchMatches } from './githubBranches';
import type { GithubEventName, GithubTrigger } from './githubTypes';

/** A parsed event: its name, its activity type and the raw payload (untrusted). */
export interface GithubEvent {
  name: GithubEventName | string;
  action?: string;
  payload: Record<string, unknown>;
}

/** The issue or pull request a fire is about (the only target the apply step writes to). */
export interface EventItem {
  /** `owner/name` from the payload's repository. */
  repo: string;
  /** null for events about no issue or pull request (schedule, dispatch, workflow_run without a PR). */
  number: number | null;
  kind: 'issue' | 'pull_request' | 'none';
}

/** The hidden marker every Tasklane output carries; an event whose text carries it is Tasklane's own. */
export const markerPrefix = '<!-- tasklane:';
/** The login GITHUB_TOKEN writes as: events it caused are Tasklane's own too. */
export const workflowBotLogin = 'github-actions[bot]';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * A webhook payload as an event: `eventName` when the runner names it (`$GITHUB_EVENT_NAME`), else
 * inferred from its shape. Throws saying what is wrong with a payload that is not one.
 */
export function eventFromPayload(payload: unknown, eventName: string | undefined): GithubEvent {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new Error('it does not hold a JSON object');
  const p = payload as Obj;
  const name = eventName?.trim() || inferEventName(p);
  if (!name) throw new Error("the event's name is unknown: set GITHUB_EVENT_NAME (GitHub Actions does) or pass a webhook payload of a known shape");
  return { name, ...(str(p.action) !== undefined ? { action: str(p.action) } : {}), payload: p };
}

/** The event name from the payload's shape, for a payload replayed without `$GITHUB_EVENT_NAME`. */
function inferEventName(p: Obj): GithubEventName | undefined {
  if (p.comment && p.issue) return 'issue_comment';
  if (p.review && p.pull_request) return 'pull_request_review';
  if (p.pull_request) return 'pull_request';
  if (p.issue) return 'issues';
  if (p.workflow_run) return 'workflow_run';
  if ('client_payload' in p && 'branch' in p) return 'repository_dispatch';
  if ('inputs' in p && 'workflow' in p) return 'workflow_dispatch';
  if ('schedule' in p) return 'schedule';
  return undefined;
}

/** The repository and the issue or pull request of the event. */
export function eventItem(event: GithubEvent, fallbackRepo?: string): EventItem {
  const p = event.payload;
  const repo = str(obj(p.repository).full_name) ?? fallbackRepo ?? '';
  const issue = obj(p.issue);
  const pr = obj(p.pull_request);
  if (typeof pr.number === 'number') return { repo, number: pr.number, kind: 'pull_request' };
  if (typeof issue.number === 'number') return { repo, number: issue.number, kind: issue.pull_request ? 'pull_request' : 'issue' };
  // A failed run of a pull request's commit is about that pull request (GitHub lists only this
  // repository's pull requests there): the investigation is told it and reports on it.
  const runPr = runPullRequest(p);
  if (typeof runPr.number === 'number') return { repo, number: runPr.number, kind: 'pull_request' };
  return { repo, number: null, kind: 'none' };
}

/** `workflow_run.pull_requests[0]`, or an empty object. */
function runPullRequest(p: Record<string, unknown>): Record<string, unknown> {
  const list = obj(p.workflow_run).pull_requests;
  return obj(Array.isArray(list) ? list[0] : undefined);
}

/**
 * The head commit of the pull request the fire is about, where its check run goes; undefined for
 * a fire about no pull request (or a comment on one, whose payload does not name the head): those
 * get no check run, so none lands on the default branch.
 */
export function pullRequestHeadSha(event: GithubEvent): string | undefined {
  const p = event.payload;
  return str(obj(obj(p.pull_request).head).sha) ?? str(obj(runPullRequest(p).head).sha);
}

export type EventMatch = { fire: true } | { fire: false; reason: string };

/**
 * Whether `event` fires the chore `choreId` with `trigger` (Run workflow naming it, for any chore), or: the event name, the activity type, the label
 * filter, `/tasklane <command>` at the very start of a comment, a failed run of a watched
 * workflow on a watched branch, fork pull requests. A mismatch is recorded as skipped with why.
 */
export function matchEvent(trigger: GithubTrigger, event: GithubEvent, choreId?: string): EventMatch {
  const no = (reason: string): EventMatch => ({ fire: false, reason });
  const p = event.payload;
  // Run workflow runs any chore by its id (review ci-2026-12c s31): the generated workflow offers
  // every chore in its form and each job runs when the form's chore input names it
  // (cli/workflowTriggers.ts), so a dispatch naming this chore is its fire, whatever its event.
  // A dispatch naming another chore is not (a replayed event.json, or a hand-edited workflow).
  if (event.name === 'workflow_dispatch') {
    const named = str(obj(p.inputs).chore);
    if (choreId !== undefined && named !== undefined && named !== choreId) return no(`Run workflow named the chore ${named}; this is ${choreId}`);
    if (trigger.event !== 'workflow_dispatch') return { fire: true };
  }
  if (event.name !== trigger.event) return no(`the event is ${event.name}; this chore fires on ${trigger.event}`);
  if (trigger.types && trigger.event !== 'repository_dispatch' && !trigger.types.includes(event.action ?? ''))
    return no(`the ${event.name} event's activity is ${event.action ?? 'none'}; this chore fires on ${trigger.types.join(', ')}`);
  if (trigger.event === 'repository_dispatch' && !trigger.types?.includes(event.action ?? ''))
    return no(`the dispatch type is ${event.action ?? 'none'}; this chore fires on ${(trigger.types ?? []).join(', ')}`);
  if (trigger.labels) {
    const item = obj(p.pull_request).number !== undefined ? obj(p.pull_request) : obj(p.issue);
    const labels = (Array.isArray(item.labels) ? item.labels : []).map((l) => str(obj(l).name)).filter((l): l is string => l !== undefined);
    if (!labels.some((l) => trigger.labels!.includes(l))) return no(`the item carries none of the labels ${trigger.labels.join(', ')}`);
    // A `labeled` event fires on the label it adds: adding an unrelated label later to an item that
    // still carries the named one is not a new request (ci-2026-12c s8), as GitHub's label triggers work.
    const added = str(obj(p.label).name);
    if (event.action === 'labeled' && added !== undefined && !trigger.labels.includes(added))
      return no(`the label added is ${added}; this chore fires when one of ${trigger.labels.join(', ')} is added`);
  }
  if (trigger.labelCommand !== undefined) {
    // GitHub's label names are unique regardless of case, and the job's `if:` compares without case too.
    const added = str(obj(p.label).name);
    if (event.action !== 'labeled' || added?.toLowerCase() !== trigger.labelCommand.toLowerCase())
      return no(`the label ${trigger.labelCommand} was not applied (this chore fires when it is added)`);
  }
  if (trigger.event === 'issue_comment') {
    const body = str(obj(p.comment).body) ?? '';
    if (commandOf(body) !== trigger.command) return no(`the comment does not start with /tasklane ${trigger.command ?? ''}`.trim());
  }
  if (trigger.event === 'workflow_run') {
    const run = obj(p.workflow_run);
    if (run.conclusion !== 'failure') return no(`the workflow run concluded ${String(run.conclusion ?? 'nothing')}; this chore fires on failure`);
    if (!trigger.workflows?.includes(str(run.name) ?? ''))
      return no(`the workflow "${str(run.name) ?? ''}" is not one of ${(trigger.workflows ?? []).join(', ')}`);
    if (!trigger.branches || !branchMatches(trigger.branches, str(run.head_branch) ?? ''))
      return no(`the run's branch is not one of ${(trigger.branches ?? []).join(', ')}`);
    // A fork's pull request can name its branch main too: only runs of this repository's own branches fire.
    const head = str(obj(run.head_repository).full_name);
    if (head !== undefined && head !== str(obj(p.repository).full_name)) return no(`the failed run is of a fork's branch (${head})`);
  }
  if (trigger.event === 'pull_request' && trigger.branches && !branchMatches(trigger.branches, str(obj(obj(p.pull_request).base).ref) ?? ''))
    return no(`the pull request's base branch is not one of ${trigger.branches.join(', ')}`);
  if ((trigger.event === 'pull_request' || trigger.event === 'pull_request_review') && isForkPullRequest(event) && trigger.forks !== 'read-only')
    return no('the pull request comes from a fork; this chore skips forks (forks: read-only opts in to a read-only review)');
  return { fire: true };
}

/** `/tasklane <command>` at the very start of a comment (leading spaces allowed), else undefined. */
export function commandOf(body: string): string | undefined {
  return /^[ \t]*\/tasklane[ \t]+([a-z0-9-]+)(?:\s|$)/.exec(body)?.[1];
}

export function isForkPullRequest(event: GithubEvent): boolean {
  const pr = obj(event.payload.pull_request);
  const head = str(obj(obj(obj(pr.head).repo)).full_name);
  const base = str(obj(obj(obj(pr.base).repo)).full_name);
  return head !== undefined && base !== undefined && head !== base;
}

/**
 * Why the event is Tasklane's own (its comment or issue carries the hidden marker, or the
 * workflow's bot sent it), so it never fires Tasklane again; undefined otherwise.
 */
export function selfTriggered(event: GithubEvent): string | undefined {
  const p = event.payload;
  const sender = str(obj(p.sender).login);
  if (sender === workflowBotLogin) return `the event was sent by ${workflowBotLogin} (Tasklane's own write)`;
  for (const [field, text] of [
    ['comment.body', obj(p.comment).body],
    ['review.body', obj(p.review).body],
    ['issue.body', event.name === 'issues' ? obj(p.issue).body : undefined],
    ['pull_request.body', event.name === 'pull_request' ? obj(p.pull_request).body : undefined],
  ] as const) {
    if (typeof text === 'string' && text.includes(markerPrefix)) return `${field} carries Tasklane's marker (Tasklane wrote it)`;
  }
  return undefined;
}
