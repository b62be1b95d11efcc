/**
 * Paused at budget on CI (issue 43): a fire whose run reaches one of its own pausable limits
 * (iterations, input tokens, cost: core/chores/budgetPause.ts) ends "paused at budget", not
 * failed, and its state is recorded in the result: the limit and its message, the usage, the
 * edits so far (`tasklane.patch`) and the steps. The status comment, the step summary and the
 * check say so, with what a maintainer can do.
 *
 * What is not built yet (said in the result, never implied): continuing that run from its state
 * on a re-fire. The command line does not park (engineAdapters.ts `parkAtBudget`: it exits), its
 * store is a temp folder removed at the end, and its overlay's edits leave only as the patch, so a
 * resume needs (1) `chores run --store DIR` kept and uploaded when a run parks, (2) a re-fire
 * (`/tasklane continue`, or Run workflow with a resume input) that downloads the paused run's
 * artifact (actions: read, the paused run's id from the status comment) and (3) `chores run
 * --resume` that opens that store, puts the patch back into the overlay and continues the parked
 * task with `resumedLimits`. Until then a re-fire starts a new run.
 */
import type { ChoreDefinition } from '../core/chores/types';
import type { ResultManifest } from './resultManifest';

/** The chore budget key of each limit a run pauses at (the key runBudget.ts names in its message). */
const PAUSABLE = { maxIterations: 'iterations', maxInputTokens: 'inputTokens', maxCostUsd: 'costUsd' } as const;

export type PausedState = NonNullable<ResultManifest['paused']>;

/** What a re-fire does today, said on the item and the run page. */
export const RESUME_TODAY =
  'Continuing this run from its recorded state is not built on CI yet: raise the limit in chores.yaml (then regenerate the workflow) and ask again, which starts a new run.';

/**
 * The paused state of a run that ended `budget_exhausted` at a pausable limit, or undefined (it
 * ended for another reason, or at maxSeconds, which ends a run everywhere). `ran` is the chore as
 * this fire ran it: a cost cap lower than the chore's own came from the day's cap across fires.
 */
export function pausedState(
  status: string,
  reason: string | null,
  chore: Pick<ChoreDefinition, 'budget'>,
  ran: Pick<ChoreDefinition, 'budget'>,
  steps: readonly string[],
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
    resume: dayCap ? "The day's cap across fires is reached: the next fire after midnight UTC starts a new run." : RESUME_TODAY,
  };
}
