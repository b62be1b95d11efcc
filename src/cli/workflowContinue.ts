/**
 * The generated workflow's half of continuing a run paused at budget (issue 43; the CLI's half is
 * ciResume.ts): for each chore ciResume.ts `continueGesture` names, the agent job also runs on the
 * gesture (a `/tasklane continue` comment for issue chores; Run workflow naming the chore with the
 * paused run's id in the `continue` input for cron, schedule and dispatch chores) and, before the run step,
 *  1. finds the paused run's workflow run id in the fire ledger (`tasklane chores paused`, with the
 *     job's read-only token) and writes it to the step outputs (digits or nothing);
 *  2. downloads that run's artifact (`run-id`, `github-token`: the job holds `actions: read` for
 *     it, the only job that does) into RESUME_DIR, outside every checkout;
 *  3. hands the run step `--resume RESUME_DIR/store` through `env:` (an expression in a `run:`
 *     script would be a template injection even for digits the ledger wrote; the script only
 *     expands a variable).
 * Both steps run before the chore's setup steps, so nothing the repository runs precedes the token
 * they hold. The store is not trusted for having been downloaded: the run step checks its hash
 * against the ledger's record before any model call (ciRun.ts). When no run is paused the run step
 * runs without `--resume` and the CLI skips the comment silently (it is not the chore's event).
 */
import { CONTINUE_COMMAND, CONTINUE_INPUT, continuable, continueGesture, STORE_FOLDER } from './ciResume';
import type { ChoreDefinition } from '../core/chores/types';
import { ACTIONS, choreIdText, uses } from './workflowText';

/** Where the paused run's artifact is downloaded (beside the result folder, outside the checkouts). */
export const RESUME_DIR = 'tasklane-resume';

/** The step id whose `run` output is the paused run's id. */
const STEP = 'paused';

/** The `if:` of a continue: a created comment starting with `/tasklane continue` (the CLI checks the exact command). */
export const CONTINUE_CONDITION = `github.event_name == 'issue_comment' && github.event.action == 'created' && startsWith(github.event.comment.body, '/tasklane ${CONTINUE_COMMAND}')`;

/**
 * The `if:` of a Run workflow that continues this chore: the form names it and its `continue` input
 * is not empty (the CLI checks the id against the ledger). The job already runs on Run workflow
 * naming the chore (workflowTriggers.ts), so this only decides the continue's steps.
 */
export function dispatchContinueCondition(choreId: string): string {
  return `github.event_name == 'workflow_dispatch' && inputs.chore == '${choreIdText(choreId)}' && inputs.${CONTINUE_INPUT} != ''`;
}

/** Whether the workflow continues this chore's paused runs (the chore as the generator holds it). */
export function continuesOnCi(c: { chore: Pick<ChoreDefinition, 'trigger'> }): boolean {
  return continuable(c.chore);
}

/** Whether the chore's agent job also runs on a `/tasklane continue` comment. */
export function continuesOnComment(c: { chore: Pick<ChoreDefinition, 'trigger'> }): boolean {
  return continueGesture(c.chore) === 'comment';
}

/** The agent job's steps that find and download the paused run's store (none for other chores). */
export function continueSteps(c: { chore: Pick<ChoreDefinition, 'id' | 'trigger'> }, artifactName: string): string[] {
  if (!continuesOnCi(c)) return [];
  const id = choreIdText(c.chore.id);
  const condition = continuesOnComment(c) ? CONTINUE_CONDITION : dispatchContinueCondition(c.chore.id);
  return [
    `      - name: Find the paused run of chore ${id}`,
    `        id: ${STEP}`,
    `        if: ${JSON.stringify(condition)}`,
    '        env:',
    '          TASKLANE_GATE_TOKEN: ${{ github.token }}',
    '        run: |',
    `          run="$(tasklane chores paused --workspace repo --chore ${id})"`,
    '          echo "run=$run" >> "$GITHUB_OUTPUT"',
    // The event condition again (not only the output): the download can run on no other event.
    `      - if: ${JSON.stringify(`${condition} && steps.${STEP}.outputs.run != ''`)}`,
    `        ${uses(ACTIONS.downloadArtifact)}`,
    '        with:',
    `          name: ${artifactName}`,
    `          path: ${RESUME_DIR}`,
    `          run-id: \${{ steps.${STEP}.outputs.run }}`,
    '          github-token: ${{ github.token }}',
  ];
}

/** The run step's `env:` lines and the words its command line ends with (none for other chores). */
export function resumeArgument(c: { chore: Pick<ChoreDefinition, 'trigger'> }): { env: string[]; words: string[] } {
  if (!continuesOnCi(c)) return { env: [], words: [] };
  return {
    env: [`          RESUME_STORE: \${{ steps.${STEP}.outputs.run && '${RESUME_DIR}/${STORE_FOLDER}' || '' }}`],
    words: ['${RESUME_STORE:+--resume "$RESUME_STORE"}'],
  };
}
