/**
 * Where a workspace's checks for interactive tasks come from (issue 43), decided once here:
 *  - the person's own settings (`tasklane.checks.commands`, user scope only: a repository's
 *    `.vscode/settings.json` cannot set what runs), which need no further yes; else
 *  - the repository's proposal, `.tasklane/checks.json` (`{"commands": ["npm test"], "rounds": 3}`),
 *    which runs only once the person has said yes to exactly that definition (a consent of kind
 *    `checks` bound to its hash, like a chore's: any edit of the file asks again).
 * Each command is checked like a chore's `commands:` (one program and its arguments, no shell, no
 * escape hatch): a check that could run anything is refused before anyone is asked.
 */
import * as z from 'zod/v4';
import { declaredCommandProblem } from '../approval/commands/commandLine';
import { definitionHash } from '../consent/definitionHash';
import { checkRoundLimits } from './checkRun';
import type { WorkspaceChecks } from './taskChecks';

/** The repository's proposal file, relative to the workspace folder. */
export const CHECKS_FILE = '.tasklane/checks.json';

const fileSchema = z.strictObject({
  commands: z
    .array(z.string().trim().min(1, { error: 'a command must not be empty' }))
    .min(1, { error: 'commands needs at least one command, e.g. ["npm test"]' }),
  rounds: z
    .number()
    .int()
    .min(1)
    .max(checkRoundLimits.cap, { error: `rounds is at most ${checkRoundLimits.cap}` })
    .optional(),
});

/** Commands checked like a chore's `commands:`, and the rounds defaulted: the checks, or what is wrong with them. */
export function normalizeChecks(commands: readonly string[], rounds: number | undefined): { checks: WorkspaceChecks } | { problem: string } {
  const lines = [...new Set(commands.map((c) => c.trim()).filter(Boolean))];
  for (const line of lines) {
    const problem = declaredCommandProblem(line, false);
    if (problem) return { problem: `"${line}" cannot be a check: ${problem}` };
  }
  if (!lines.length) return { problem: 'no command given' };
  return { checks: { commands: lines, rounds: Math.min(rounds ?? checkRoundLimits.default, checkRoundLimits.cap) } };
}

/** The repository's proposal read from its text, with the hash a consent binds to, or why it cannot be used. */
export function parseChecksFile(text: string): { checks: WorkspaceChecks; hash: string } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `${CHECKS_FILE} is not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  const parsed = fileSchema.safeParse(value);
  if (!parsed.success) return { problem: `${CHECKS_FILE}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'file'}: ${i.message}`).join('; ')}` };
  const normal = normalizeChecks(parsed.data.commands, parsed.data.rounds);
  if ('problem' in normal) return { problem: `${CHECKS_FILE}: ${normal.problem}` };
  return { checks: normal.checks, hash: checksHash(normal.checks) };
}

/** What a consent to a repository's checks is bound to: the commands in order and the rounds. */
export function checksHash(checks: WorkspaceChecks): string {
  return definitionHash({ kind: 'checks', commands: checks.commands, rounds: checks.rounds });
}

/** The checks in force, where they came from, and (for a proposal still waiting) what waits. */
export type ResolvedChecks =
  { source: 'settings' | 'repository'; checks: WorkspaceChecks } | { source: 'none'; waiting?: { checks: WorkspaceChecks; hash: string }; problem?: string };

/** Decides which checks judge the workspace's tasks (see the file comment). */
export function resolveWorkspaceChecks(input: {
  /** The person's own setting, already read at user scope; undefined or empty when not set. */
  user?: { commands: readonly string[]; rounds?: number };
  /** The text of `.tasklane/checks.json`, undefined when there is none. */
  repositoryFile?: string;
  /** Whether the person said yes to a repository proposal with this hash. */
  consented(hash: string): boolean;
}): ResolvedChecks {
  if (input.user?.commands.length) {
    const normal = normalizeChecks(input.user.commands, input.user.rounds);
    return 'problem' in normal ? { source: 'none', problem: `tasklane.checks.commands: ${normal.problem}` } : { source: 'settings', checks: normal.checks };
  }
  if (input.repositoryFile === undefined) return { source: 'none' };
  const proposal = parseChecksFile(input.repositoryFile);
  if ('problem' in proposal) return { source: 'none', problem: proposal.problem };
  return input.consented(proposal.hash) ? { source: 'repository', checks: proposal.checks } : { source: 'none', waiting: proposal };
}

/** What the model is told about the checks in force (in the workspace rules of every request). */
export function checksRule(checks: WorkspaceChecks): string {
  return `# Checks\nWhen a task that changed files calls task_end, these checks run in order and judge it: ${checks.commands
    .map((c) => `\`${c}\``)
    .join(', ')}. It is done only when each exits 0; a failure comes back with its output (at most ${checks.rounds} rounds).`;
}
