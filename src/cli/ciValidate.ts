/**
 * The CI-only checks of `tasklane chores validate`: every refusal `tasklane chores ci github` would
 * make, found before anyone generates a workflow (review ci-2026-12c: `validate` said "no problems"
 * for chores the generator then refused). It runs the generator itself, so there is one source of
 * truth for what CI can express, never a second list of rules that drifts from it.
 *
 * Severity: a chore with a `github` trigger runs nowhere but CI, so a refusal is an error. A cron
 * chore also runs in VS Code, where a seconds field is fine, so its
 * refusal is a warning saying the chore will not be in the workflow as written.
 */
import type { ChoreDefinition } from '../core/chores/types';
import { githubWorkflow, WorkflowError } from './githubWorkflow';

export interface CiProblem {
  severity: 'error' | 'warning';
  message: string;
}

/** Stand-ins for what validate does not know (the consent hashes, the CLI asset); the generator checks only their form. */
const PLACEHOLDER = { hashOf: () => '0'.repeat(64), cli: { digest: '0'.repeat(64), url: 'https://example.com/tasklane-cli.tar.gz' } };

/** What `ci github` would refuse in these chores, chore by chore and then across them (one `on:`, one dispatch form). */
export function ciProblems(chores: readonly ChoreDefinition[]): CiProblem[] {
  const problems: CiProblem[] = [];
  const accepted: ChoreDefinition[] = [];
  for (const chore of chores) {
    if (chore.trigger.kind !== 'cron' && chore.trigger.kind !== 'github') continue;
    const refusal = refusalOf([chore]);
    if (refusal === undefined) accepted.push(chore);
    else
      problems.push({
        severity: chore.trigger.kind === 'github' ? 'error' : 'warning',
        message:
          chore.trigger.kind === 'github'
            ? `on CI: ${refusal}`
            : `on CI: ${refusal} (the chore still runs in VS Code; \`chores ci github\` refuses it as written)`,
      });
  }
  // What only the chores together can break: inputs two dispatch chores declare differently.
  const together = accepted.length > 1 ? refusalOf(accepted) : undefined;
  if (together !== undefined) problems.push({ severity: 'error', message: `on CI: ${together}` });
  return problems;
}

function refusalOf(chores: readonly ChoreDefinition[]): string | undefined {
  try {
    githubWorkflow(chores, PLACEHOLDER);
    return undefined;
  } catch (e) {
    if (e instanceof WorkflowError) return e.message;
    throw e;
  }
}
