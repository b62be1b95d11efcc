/**
 * The `setup:` key of a chore (issue 38): what the agent job runs before the chore, such as
 * `npm ci`, so its declared commands find their dependencies (review ci-2026-12c s8: a setup step
 * added by hand failed `ci verify`). Each entry is one exact command line, under the grammar and
 * refusals of `commands:` (approval/commands/commandLine.ts), in order; it is part of the chore's
 * consent hash like every key, and the workflow generator writes each as a step of the agent job
 * (cli/workflowJobs.ts), which is how `ci verify` accepts it.
 *
 * Decisions: setup runs on CI only (VS Code runs a chore in the person's workspace, which they set
 * up); so a chore that never runs on CI (a file or task trigger) may not declare it. Setup steps
 * run the repository's code before the keys are handed to the CLI, so a process one leaves behind
 * could read them: that code is the default branch's, or a same-repository pull request's (whose
 * author can edit the workflow anyway), never a fork's, so `setup:` with `forks: read-only` is refused.
 */
import * as z from 'zod/v4';
import { declaredCommandProblem } from '../approval/commands/commandLine';

/** Most setup steps a chore declares. */
const MAX_SETUP = 10;

export const setupKeys = {
  setup: z
    .array(z.string({ error: 'setup entry must be a string' }).refine((s) => s.trim().length > 0, { error: 'setup entry must not be empty' }))
    .min(1, { error: 'setup needs at least one command, e.g. setup: ["npm ci"]' })
    .max(MAX_SETUP, { error: `setup has more than ${MAX_SETUP} commands` })
    .optional(),
};

/** What is wrong with a chore's setup, each at its path relative to the chore. */
export function setupProblems(c: {
  setup?: string[] | undefined;
  unsafe?: boolean | undefined;
  trigger: { cron?: unknown; github?: { forks?: string } | undefined };
}): Array<{ path: (string | number)[]; message: string }> {
  if (c.setup === undefined) return [];
  const problems: Array<{ path: (string | number)[]; message: string }> = [];
  if (c.trigger.github === undefined && c.trigger.cron === undefined)
    problems.push({ path: ['setup'], message: 'setup only applies to a chore that runs on CI (trigger: { github: … } or a cron); remove it' });
  if (c.trigger.github?.forks === 'read-only')
    problems.push({
      path: ['setup'],
      message: "setup cannot go with forks: read-only: it would run a fork's code before the model key is handed over; remove one of them",
    });
  for (const [index, line] of c.setup.entries()) {
    const problem = declaredCommandProblem(line, c.unsafe === true);
    if (problem) problems.push({ path: ['setup', index], message: `setup: "${line}" cannot be declared: ${problem}` });
  }
  return problems;
}
