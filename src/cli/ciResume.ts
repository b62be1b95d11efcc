/**
 * Continuing a CI run paused at its budget (issue 43): a maintainer's `/tasklane continue` on the
 * item re-fires the chore with `chores run <id> --out DIR --resume STORE`, STORE being the paused
 * run's kept store from its artifact (parkedStore.ts). What binds the two, and why:
 *  - the paused run is the latest fire of this chore on this item in the fire ledger
 *    (fireLedger.ts), and only if that record says it parked: a fire after it (a new run, a
 *    continue that finished) supersedes it, and records of fires that never ran (stopped) do not;
 *  - the record carries the store's hash, written by the apply job from the agent job's manifest
 *    into the check run's `external_id`, which no person and no model text can edit: a store
 *    artifact whose files differ (edited, swapped, another run's) is refused before any model
 *    call, visibly (`skip: resume`, a status line on the item);
 *  - who may continue is the chore's actor gate on the commenter, as for any comment command
 *    (ciRun.ts runs it after this), and the budgets across fires still hold: the day's cap narrows
 *    the continued run's new budget like any fire's, so a continue is never unbounded.
 * A comment on an item with no paused run of this chore is not a fire of it (skipped silently,
 * like any event that does not match), so one `/tasklane continue` does not post a status per chore.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GithubEvent } from '../core/chores/githubEvent';
import { DEFAULT_ACTOR_GATE } from '../core/chores/githubTypes';
import { checkActorGate } from './actorGate';
import type { ChoreDefinition } from '../core/chores/types';
import { UsageError } from './environment';
import type { GithubApi } from './githubApi';
import { readLedger } from './fireLedger';
import { commandOf } from '../core/chores/githubEvent';
import type { FireRecord } from './fireBudget';
import { storeHash } from './parkedStore';

/** The kept store's folder in `--out`: uploaded with the result, so a paused run's state travels in its artifact. */
export const STORE_FOLDER = 'store';

/**
 * Where a CI fire keeps its store: `--store` as given; else, with `--out`, in OUT/store, kept only
 * when the run parks; a `--resume DIR` copies the paused run's store there first (after runOnCi
 * checked it against the ledger), so a run that parks again leaves its store in its own artifact.
 */
export function ciStore(
  values: { out?: string; store?: string; resume?: string; 'resume-hash'?: string },
  cwd: string,
): { storeDir?: string; storeOnlyIfParked: boolean; resumeFrom?: string; prepare(): void } {
  if (values['resume-hash'] !== undefined)
    throw new UsageError('--resume-hash is for a run by hand: on CI the paused run is bound to its store by the fire ledger.');
  if (values.resume === undefined) {
    if (values.store !== undefined) return { storeDir: path.resolve(cwd, values.store), storeOnlyIfParked: false, prepare: () => undefined };
    if (values.out === undefined) return { storeOnlyIfParked: false, prepare: () => undefined };
    return { storeDir: path.join(path.resolve(cwd, values.out), STORE_FOLDER), storeOnlyIfParked: true, prepare: () => undefined };
  }
  if (values.out === undefined || values.store !== undefined)
    throw new UsageError('--resume on CI needs --out DIR (the continued run keeps its store there) and no --store.');
  const from = path.resolve(cwd, values.resume);
  const storeDir = path.join(path.resolve(cwd, values.out), STORE_FOLDER);
  return {
    storeDir,
    storeOnlyIfParked: true,
    resumeFrom: from,
    prepare: () => {
      fs.rmSync(storeDir, { recursive: true, force: true });
      fs.cpSync(from, storeDir, { recursive: true });
    },
  };
}

/** The comment command that continues a paused run. */
export const CONTINUE_COMMAND = 'continue';

/** The Run workflow input that names the paused run to continue (cron, schedule and dispatch chores). */
export const CONTINUE_INPUT = 'continue';

/**
 * How the generated workflow continues this chore's paused runs, or undefined when it does not.
 * Every chore has a budget, so any run can pause; the gesture has to name the paused run and run
 * it on the checkout the paused fire had:
 *  - `comment`: `issues` and `issue_comment` chores. The paused fire and the `/tasklane continue`
 *    comment are both about the same item, and both check out the same code (the default branch; a
 *    comment chore that pushes to the commented pull request checks out its head for either event);
 *  - `dispatch`: `cron:`, `schedule` and `workflow_dispatch` chores. Their fires are about no
 *    item a comment could name, so a maintainer runs the workflow (Run workflow) naming the chore
 *    and, in the `continue` input, the paused run's id, which its summary prints. Both check out
 *    the default branch. Dispatching needs write access, and the actor gate still judges who
 *    dispatched (a cron chore has no `actors:`: the default gate, write access or more).
 *    A `cron:` chore is continued the same way: the workflow runs it on its schedule and on Run
 *    workflow naming it, both on the default branch, and its agent job reads the fire ledger and
 *    its apply job writes the fire's record (no item) like a schedule chore's, so the paused fire's
 *    record binds its run id to its store (`cronContinue` below). Run by hand without the
 *    workflow (`tasklane chores run` with no `--out`) it keeps no ledger and nothing continues it
 *    but `--resume` with the store hash it printed;
 *  - none for `pull_request` / `pull_request_review` chores (decided for now, and looked at again:
 *    the pieces below are each possible, but not one of them is there yet). A continue is a comment
 *    or a dispatch, events that run with the repository's secrets, so it may check out nothing of a
 *    fork's; and the paused fire ran on the merge commit GitHub recomputes whenever either branch
 *    moves, so it has to meet that exact tree again. What a continue would need, in this order:
 *     1. the sha: recorded by the apply job from its own GITHUB_SHA (the same run's merge commit),
 *        never from the agent's manifest, beside the store hash in the ledger record;
 *     2. the trust of that record: a `pull_request` run runs the workflow file of the pull request's
 *        merge commit, so for these chores the apply job that writes the record is the pull request
 *        author's to edit (for issue chores it is always the default branch's). Any sha and hash in
 *        it are only as trusted as that author's write access; and GitHub serves any commit of the
 *        fork network by sha through this repository, so a checkout by a recorded sha alone could be
 *        a fork's code. The continue must check the sha against GitHub itself: a commit whose
 *        parents are the base's and one of the pull request's own commits (`pulls/N/commits`), the
 *        pull request's head repository being this one (`pulls/N`, asked: a comment's payload does
 *        not say; a deleted fork counts as a fork), all before the checkout;
 *     3. the order of the job: the default branch checked out first (chores.yaml), the CLI
 *        installed, the fork and sha checks and the ledger lookup, and only then the checkout of
 *        the sha, before `setup:` and the keys; a fork's continue refused with a status line;
 *     4. an old merge commit is unreachable once GitHub recomputes the ref and may be collected:
 *        its checkout failing has to be said as "push again", not as a crashed job; and outputs
 *        that name a head (a review, a push to the branch) would land on the head of now;
 *     5. a test runner that checks out commits by sha (test/support/workflowRunner.ts copies one
 *        tree per checkout), to prove end to end which tree the continued run met.
 *    Until then their paused runs say so (ciPause.ts): raise the limit and push again, or run the
 *    chore by hand;
 *  - none for `repository_dispatch` and `workflow_run` chores (their fires carry another system's
 *    payload, which a continue cannot replay).
 */
export function continueGesture(chore: Pick<ChoreDefinition, 'trigger'>): 'comment' | 'dispatch' | undefined {
  if (chore.trigger.kind === 'cron') return 'dispatch';
  if (chore.trigger.kind !== 'github') return undefined;
  const event = chore.trigger.github.event;
  if (event === 'issues' || event === 'issue_comment') return 'comment';
  if (event === 'schedule' || event === 'workflow_dispatch') return 'dispatch';
  return undefined;
}

/** Whether the generated workflow continues this chore's paused runs at all. */
export function continuable(chore: Pick<ChoreDefinition, 'trigger'>): boolean {
  return continueGesture(chore) !== undefined;
}

/** The run id a Run workflow's `continue` input names ('' when none), or undefined for another event. */
export function dispatchedContinue(event: GithubEvent): string | undefined {
  if (event.name !== 'workflow_dispatch') return undefined;
  const inputs = event.payload.inputs as Record<string, unknown> | undefined;
  const value = inputs?.[CONTINUE_INPUT];
  return typeof value === 'string' ? value.trim() : '';
}

/** Why the event is not a continue of this chore, or undefined when it is one. */
export function notContinue(event: GithubEvent, chore: Pick<ChoreDefinition, 'id' | 'trigger'>): string | undefined {
  if (continueGesture(chore) === 'dispatch') {
    const named = (event.payload.inputs as Record<string, unknown> | undefined)?.chore;
    if (typeof named === 'string' && named !== chore.id) return `Run workflow named the chore ${named.slice(0, 40)}; this is ${chore.id}`;
    return dispatchedContinue(event)
      ? undefined
      : `a paused run of this chore is continued by Run workflow with the paused run's id in its "${CONTINUE_INPUT}" input; the event is ${event.name}`;
  }
  if (event.name !== 'issue_comment' || event.action !== 'created')
    return `a paused run is continued by a /tasklane ${CONTINUE_COMMAND} comment; the event is ${event.name}`;
  const comment = event.payload.comment as { body?: unknown } | undefined;
  const body = typeof comment?.body === 'string' ? comment.body : '';
  return commandOf(body) === CONTINUE_COMMAND ? undefined : `the comment does not start with /tasklane ${CONTINUE_COMMAND}`;
}

/**
 * Why a Run workflow that names a run in its `continue` input continues nothing of this chore, or
 * undefined (no run named, or the chore is one the dispatch continues). Said, never ignored: the
 * person asked for a continue and would otherwise get a new run from the first step.
 */
export function misdirectedContinue(event: GithubEvent, chore: Pick<ChoreDefinition, 'id' | 'trigger'>): string | undefined {
  if (!dispatchedContinue(event) || continueGesture(chore) === 'dispatch') return undefined;
  return continueGesture(chore) === 'comment'
    ? `chore ${chore.id}'s paused runs are continued by a /tasklane ${CONTINUE_COMMAND} comment on their issue, not by Run workflow; nothing ran`
    : `the workflow does not continue chore ${chore.id}'s paused runs (its event cannot be replayed with the keys safely); raise its limit in chores.yaml, regenerate the workflow and run it again. Nothing ran`;
}

/** The item's paused fire: its latest fire that ran, when that one parked; else undefined. */
export function pausedFire(records: readonly FireRecord[], item: string | null): (FireRecord & { paused: { run: string; store: string } }) | undefined {
  const latest = records
    .filter((r) => r.item === item && !r.stopped)
    .sort((a, b) => a.at.localeCompare(b.at))
    .at(-1);
  return latest?.paused ? (latest as FireRecord & { paused: { run: string; store: string } }) : undefined;
}

/** Why the store folder may not be continued from (not the paused run's), or undefined when it is. */
export function storeMismatch(dir: string, paused: { run: string; store: string }): string | undefined {
  let actual: string;
  try {
    actual = storeHash(dir);
  } catch {
    return `the paused run's store (from run ${paused.run}'s artifact) is missing; download that run's artifact and ask again`;
  }
  return actual === paused.store
    ? undefined
    : `the store given does not match what run ${paused.run} recorded when it paused (its files were edited or are another run's); nothing ran. Start a new run instead`;
}

/**
 * The paused fire a continue on `item` resumes, read from the ledger with the gate's token; a
 * ledger that cannot be read refuses the continue (fail closed). With `named` (a Run workflow's
 * `continue` input) the item's paused fire must be that run: any other id, or no paused fire at
 * all, is refused visibly (`skip: resume`), since the person asked for that run by name. Without
 * it (a comment) no paused fire is no fire at all.
 */
export async function findPausedFire(
  choreId: string,
  item: string | null,
  api: GithubApi | undefined,
  named?: string,
): Promise<{ paused: { run: string; store: string } } | { skip: 'event' | 'resume'; reason: string; unread?: true }> {
  if (!api)
    return { skip: 'resume', unread: true, reason: 'the fire ledger cannot be read (no repository or no TASKLANE_GATE_TOKEN), so no paused run can be found' };
  if (named !== undefined && !/^\d{1,20}$/.test(named))
    return { skip: 'resume', reason: `"${named.slice(0, 40)}" is not a workflow run id (digits); give the id the paused run's summary names` };
  let records: FireRecord[];
  try {
    records = await readLedger(api, choreId);
  } catch (error) {
    return { skip: 'resume', unread: true, reason: `the fire ledger could not be read whole (${error instanceof Error ? error.message : String(error)})` };
  }
  const fire = pausedFire(records, item);
  if (named === undefined) return fire ? { paused: fire.paused } : { skip: 'event', reason: `no run of ${choreId} on this item is paused at budget` };
  if (!fire)
    return {
      skip: 'resume',
      reason: `run ${named} is not paused: no run of ${choreId} is paused at budget now (its latest run ended, or never paused); nothing ran`,
    };
  if (fire.paused.run !== named)
    return {
      skip: 'resume',
      reason: `run ${named} is not the paused run of ${choreId}: run ${fire.paused.run} is (only the latest run can be continued); nothing ran`,
    };
  return { paused: fire.paused };
}

/**
 * Whether a `cron:` chore's fire in the generated workflow continues its paused run (issue 43),
 * before the caps across fires: `{}` for a new fire (its schedule, or Run workflow with no
 * `continue` input), `{ paused }` for a continue the ledger and the gate allow, else why not. Its
 * ledger records name no item, so the paused fire is the chore's latest one; the same checks as a
 * schedule chore's continue (ciRun.ts), in the same order: the event is the Run workflow that names
 * this chore, the named run is the paused one, the person who dispatched passes the default actor
 * gate. The store is checked against the record after the caps (`storeMismatch`), as there.
 */
export async function cronContinue(
  chore: Pick<ChoreDefinition, 'id' | 'trigger'>,
  event: GithubEvent | undefined,
  resume: string | undefined,
  api: GithubApi | undefined,
): Promise<{ paused?: { run: string; store: string } } | { skip: 'event' | 'resume' | 'gate'; reason: string }> {
  const named = event ? dispatchedContinue(event) || undefined : undefined;
  if (resume === undefined) {
    if (named === undefined) return {};
    // Asked to continue, and nothing was downloaded to continue from: never a new run in its place.
    const found = await findPausedFire(chore.id, null, api, named);
    return {
      skip: 'resume',
      reason: 'skip' in found ? found.reason : `run ${named}'s store was not downloaded (its artifact is gone, or expired after 30 days); nothing ran`,
    };
  }
  if (!event) return { skip: 'resume', reason: `continuing a paused run of ${chore.id} needs the Run workflow event that asks for it (--event)` };
  const not = notContinue(event, chore);
  if (not) return { skip: 'event', reason: `the event does not continue this chore: ${not}` };
  const found = await findPausedFire(chore.id, null, api, named);
  if ('skip' in found) return { skip: found.skip, reason: found.reason };
  const verdict = await checkActorGate(DEFAULT_ACTOR_GATE, event, api);
  return verdict.allowed ? { paused: found.paused } : { skip: 'gate', reason: verdict.reason };
}
