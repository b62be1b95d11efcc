/**
 * The `verify:` and `verifyRounds:` keys of a chore (issue 43): the project's own checks that judge
 * a run. The checks run through the same sealed runner as `commands:`, so they are declared under
 * the same grammar and refusals (approval/commands/commandLine.ts).
 */
import * as z from 'zod/v4';
import { declaredCommandProblem } from '../approval/commands/commandLine';

export const verifyKeys = {
  verify: z
    .array(z.string({ error: 'verify entry must be a string' }).refine((s) => s.trim().length > 0, { error: 'verify entry must not be empty' }))
    .min(1, { error: 'verify needs at least one command, e.g. verify: ["npm test"]' })
    .optional(),
  verifyRounds: z
    .number({ error: 'verifyRounds must be a number' })
    .int({ error: 'verifyRounds must be a whole number' })
    .min(1, { error: 'verifyRounds must be 1 or more' })
    .optional(),
};

/** What is wrong with a chore's checks, each at its path relative to the chore. */
export function verifyProblems(c: { verify?: string[] | undefined; verifyRounds?: number | undefined; unsafe?: boolean | undefined }): Array<{
  path: (string | number)[];
  message: string;
}> {
  const problems: Array<{ path: (string | number)[]; message: string }> = [];
  for (const [index, line] of (c.verify ?? []).entries()) {
    const problem = declaredCommandProblem(line, c.unsafe === true);
    if (problem) problems.push({ path: ['verify', index], message: `verify: "${line}" cannot be declared: ${problem}` });
  }
  if (c.verifyRounds !== undefined && c.verify === undefined)
    problems.push({ path: ['verifyRounds'], message: 'verifyRounds only applies with verify: [commands]; remove it or declare the checks' });
  return problems;
}
