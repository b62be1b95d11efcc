/**
 * Paused at budget on CI (issue 43): a fire whose run reaches one of its own pausable limits
 * (iterations, input tokens, cost: core/chores/budgetPause.ts) ends "paused at budget", not
 * failed, and its state is recorded in the result: the limit and its message, the usage, the
 * edits so far (`tasklane.patch`) and the steps. The status comment, the step summary and the
 * check say so, with what a maintainer can do.
 *
 * Continuing it: a CI fire with `--out` parks (the run stays open in its store, which is kept in
 * OUT/store and uploaded with the artifact, parkedStore.ts), the apply job records the store's hash
 * in the fire ledger, and a maintainer's `/tasklane continue` re-fires the chore with `--resume`
 * on that store (ciResume.ts), which the generated workflow runs (workflowContinue.ts); a
 * cron, schedule or Run workflow chore's is continued by Run workflow naming the paused run (its
 * `continue` input). A fire run without a kept store (`--store` elsewhere, no `--out`) says
 * RESUME_TODAY: raise the limit and ask again.
 */
import type { ChoreDefinition } from '../core/chores/types';
import { CONTINUE_INPUT, continueGesture } from './ciResume';
import type { ResultManifest } from './resultManifest';

/** The chore budget key of each limit a run pauses at (the key runBudget.ts names in its message). */
const PAUSABLE = { maxIterations: 'iterations', maxInputTokens: 'inputTokens', maxCostUsd: 'costUsd' } as const;

export type PausedState = NonNullable<ResultManifest['paused']>;

/** What a re-fire does today, said on the item and the run page. */
export const RESUME_TODAY =
  'Continuing this run from its recorded state is not built on CI yet: raise the limit in chores.yaml (then regenerate the workflow) and ask again, which starts a new run.';

/** The name the generated workflow gives itself (githubWorkflow.ts), for `gh workflow run`. */
export const WORKFLOW_NAME = 'Tasklane chores';

/** What starts a new run instead, said after every way to continue and in place of one. */
const RAISE = 'raise the limit in chores.yaml (then regenerate the workflow) and fire it again, which starts a new run';

/**
 * What a maintainer can do when the run's store is kept in its artifact (ciResume.ts). The words
 * name the gesture the generated workflow continues this chore's paused runs with
 * (`continueGesture`): a `/tasklane continue` comment on the item, or Run workflow naming the chore
 * and this run's id (`runId`: GITHUB_RUN_ID, the id the ledger binds the store to), as a form and
 * as the `gh` command line; a chore the workflow does not continue says why and what to do instead.
 */
export function resumeKept(storeHash: string, chore: Pick<ChoreDefinition, 'id' | 'trigger'>, runId: string | undefined, byHand = false): string {
  const kept = `Its store is kept there too (store hash ${storeHash.slice(0, 12)}…, recorded in the fire ledger)`;
  const more = "with another budget of the chore's size (the day's cap across fires still holds)";
  const gesture = continueGesture(chore);
  // An issue chore run by hand (Run workflow) fired about no issue: no comment can name its run.
  if (gesture === 'comment' && byHand)
    return `${kept}, but a run by hand of an issue chore is about no issue, so no \`/tasklane continue\` comment can name it: ${RAISE}.`;
  if (gesture === 'comment') return `${kept}: a maintainer's \`/tasklane continue\` comment here continues it from the same step, ${more}. Or ${RAISE}.`;
  if (gesture === 'dispatch' && runId && /^\d+$/.test(runId))
    return `${kept}: to continue it from the same step, ${more}, a maintainer runs the workflow "${WORKFLOW_NAME}" (Actions, Run workflow) with chore \`${chore.id}\` and continue \`${runId}\`, or \`gh workflow run "${WORKFLOW_NAME}" -f chore=${chore.id} -f ${CONTINUE_INPUT}=${runId}\`. Or ${RAISE}.`;
  const isPull = chore.trigger.kind === 'github' && (chore.trigger.github.event === 'pull_request' || chore.trigger.github.event === 'pull_request_review');
  if (isPull)
    return `${kept}, but the workflow does not continue pull-request chores: a continue would run the pull request's code again with the keys, on a head that may have moved since. ${RAISE.replace(/^r/, 'R')} (push to the pull request, or Run workflow with this chore).`;
  return `${kept}, but the workflow continues only issue, issue-comment, schedule and Run workflow chores: ${RAISE}.`;
}

/**
 * The paused state of a run that ended `budget_exhausted` at a pausable limit, or undefined (it
 * ended for another reason, or at maxSeconds, which ends a run everywhere). `ran` is the chore as
 * this fire ran it: a cost cap lower than the chore's own came from the day's cap across fires.
 */
export function pausedState(
  status: string,
  reason: string | null,
  chore: Pick<ChoreDefinition, 'id' | 'budget' | 'trigger'>,
  ran: Pick<ChoreDefinition, 'budget'>,
  steps: readonly string[],
  storeHash?: string,
  runId?: string,
  /** The fire was a Run workflow (workflow_dispatch) naming the chore, not its own event. */
  byHand = false,
): PausedState | undefined {
  if (status !== 'budget_exhausted' || !reason) return undefined;
  const key = /\(budget\.(maxIterations|maxInputTokens|maxCostUsd)\)/.exec(reason)?.[1] as keyof typeof PAUSABLE | undefined;
  if (!key) return undefined;
  const dayCap = key === 'maxCostUsd' && ran.budget.maxCostUsd < chore.budget.maxCostUsd;
  const message = reason.replace(/^Chore budget exhausted: /, '');
  return {
    limit: PAUSABLE[key],
    message: dayCap
      ? `${message}: what the day's cap across fires (budget.maxCostUsdPerDay) left for this fire, below the chore's own $${chore.budget.maxCostUsd}`
      : message,
    steps: steps.slice(-20),
    resume: dayCap
      ? "The day's cap across fires is reached: the next fire after midnight UTC starts a new run."
      : storeHash
        ? resumeKept(storeHash, chore, runId, byHand)
        : RESUME_TODAY,
    ...(storeHash ? { storeHash } : {}),
  };
}
