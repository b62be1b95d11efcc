/**
 * `tasklane chores paused --chore <id>`: the workflow run id of the chore's run paused at budget on
 * the item a `/tasklane continue` comment is about (or, for a cron, schedule or dispatch chore, the run a
 * Run workflow's `continue` input names, once the ledger says it is the paused one), read from the fire ledger (ciResume.ts
 * `findPausedFire`, the same reading the continued run does again before it trusts the store). The
 * generated agent job (workflowContinue.ts) writes it to its step outputs and downloads that run's
 * artifact with it. It prints the id (digits, as the ledger keeps it) or nothing and exits 0 when
 * there is nothing to continue: another event, another command, no paused run on the item. A
 * ledger that cannot be read is an error (exit 1), said in the job log, never "nothing paused".
 */
import { eventItem } from '../core/chores/githubEvent';
import type { ChoreDefinition } from '../core/chores/types';
import { githubApiFromEnv, itemKey } from './ciRun';
import { continuable, dispatchedContinue, findPausedFire, notContinue } from './ciResume';
import { UsageError } from './environment';
import { readGithubEvent } from './eventFile';

interface Io {
  out(text: string): void;
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
}

/** Prints the paused run's id for this event, or nothing; resolves with the exit code. */
export async function pausedRun(input: { choreId: string; chores: readonly ChoreDefinition[]; io: Io }): Promise<number> {
  const { io } = input;
  const chore = input.chores.find((c) => c.id === input.choreId);
  if (!chore) throw new UsageError(`"chores paused": no chore ${input.choreId} in .tasklane/chores.yaml.`);
  const eventFile = io.env.GITHUB_EVENT_PATH;
  if (!continuable(chore) || !eventFile) return 0;
  const event = readGithubEvent(eventFile, io.env.GITHUB_EVENT_NAME);
  if (notContinue(event, chore)) return 0;
  const item = eventItem(event, io.env.GITHUB_REPOSITORY);
  const token = io.env.TASKLANE_GATE_TOKEN;
  const named = dispatchedContinue(event);
  const found = await findPausedFire(chore.id, itemKey(item), token ? githubApiFromEnv(io.env, token, item.repo) : undefined, named);
  if ('paused' in found) {
    io.out(`${found.paused.run}\n`);
    return 0;
  }
  if (found.skip === 'event') return 0;
  // A Run workflow that names a run which is not the paused one: nothing is downloaded, and the run
  // step (which reads the ledger again) records the refusal where the person looks, the run's summary.
  if (named !== undefined && !('unread' in found)) {
    io.err(`chore ${chore.id}: not continued: ${found.reason}.\n`);
    return 0;
  }
  io.err(
    `chore ${chore.id}: cannot find the paused run to continue: ${found.reason}. Nothing was continued; ask again with /tasklane continue once the ledger can be read.\n`,
  );
  return 1;
}
