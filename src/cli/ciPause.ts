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
 * on that store (ciResume.ts), which the generated workflow runs (workflowContinue.ts). A fire run without a kept store (`--store` elsewhere, no `--out`)
 * says RESUME_TODAY: raise the limit and ask again.
 */
import type { ChoreDefinition } from '../core/chores/types';
import { continuable } from './ciResume';
import type { ResultManifest } from './resultManifest';

/** The chore budget key of each limit a run pauses at (the key runBudget.ts names in its message). */
const PAUSABLE = { maxIterations: 'iterations', maxInputTokens: 'inputTokens', maxCostUsd: 'costUsd' } as const;

export type PausedState = NonNullable<ResultManifest['paused']>;

/** What a re-fire does today, said on the item and the run page. */
export const RESUME_TODAY =
  'Continuing this run from its recorded state is not built on CI yet: raise the limit in chores.yaml (then regenerate the workflow) and ask again, which starts a new run.';

/**
 * What a maintainer can do when the run's store is kept in its artifact (ciResume.ts). The
 * generated workflow continues it on `/tasklane continue` for the chores ciResume.ts `continuable`
 * names (it finds the run in the fire ledger and downloads its artifact: workflowContinue.ts);
 * any other chore's paused run is said as it is: kept, but run again with a raised limit.
 */
export function resumeKept(storeHash: string, continued: boolean): string {
  const kept = `Its store is kept there too (store hash ${storeHash.slice(0, 12)}…, recorded in the fire ledger)`;
  return continued
    ? `${kept}: a maintainer's \`/tasklane continue\` comment here continues it from the same step, with another budget of the chore's size (the day's cap across fires still holds). Or raise the limit in chores.yaml (then regenerate the workflow) and ask again, which starts a new run.`
    : `${kept}, but the generated workflow continues only issue and issue-comment chores: raise the limit in chores.yaml (then regenerate the workflow) and ask again, which starts a new run.`;
}

/**
 * The paused state of a run that ended `budget_exhausted` at a pausable limit, or undefined (it
 * ended for another reason, or at maxSeconds, which ends a run everywhere). `ran` is the chore as
 * this fire ran it: a cost cap lower than the chore's own came from the day's cap across fires.
 */
export function pausedState(
  status: string,
  reason: string | null,
  chore: Pick<ChoreDefinition, 'budget' | 'trigger'>,
  ran: Pick<ChoreDefinition, 'budget'>,
  steps: readonly string[],
  storeHash?: string,
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
        ? resumeKept(storeHash, continuable(chore))
        : RESUME_TODAY,
    ...(storeHash ? { storeHash } : {}),
  };
}
