/**
 * What binds a CI run to the chore definition that was reviewed (security review 2026-12b
 * finding 8, issue 24): the hash `ci github` writes into each job, the `--expect-hash` check of
 * `chores run`, and `ci verify`, which fails while the committed workflow is not what would be
 * generated now. The hash is the consent hash of VS Code's Enable (core/consent/choreConsentHash.ts:
 * the normalised definition, the bodies of the skills it names and the review of each MCP server it
 * declares), computed over the same skill folders and mcp.json the run reads, so a skill edited on
 * the default branch also makes the workflow stale.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { choreConsentHash } from '../core/consent/choreConsentHash';
import type { ChoreServerSources } from '../core/consent/choreConsentHash';
import { choreSkillBodies } from '../core/consent/definitionHash';
import type { ChoreDefinition } from '../core/chores/types';
import { McpReviewer } from '../core/mcp/mcpReview';
import type { Logger } from '../core/ports';
import { discoverSkills } from '../core/skills/skills';
import { workspaceMcpServers } from './choreMcpServers';
import { WorkflowError } from './workflowText';

/** The skill folders a run reads: the built-in ones, then the repository's (first name wins). */
export function skillDirsOf(builtIn: string, repository: string): string[] {
  return [builtIn, ...['.agents/skills', '.github/skills', '.claude/skills'].map((d) => path.join(repository, d))];
}

/**
 * Each chore's consent hash, as VS Code's Enable computes it: with the skill bodies found in
 * `skillDirs`, the AGENTS.md the run reads, and the review of each MCP server it declares, defined in the chore or in
 * `workspace`'s `.vscode/mcp.json` (the servers a run there starts, reviewed over that folder).
 */
export async function choreHashes(
  chores: readonly ChoreDefinition[],
  skillDirs: readonly string[],
  workspace: string,
  logger: Pick<Logger, 'warn'>,
  /** Where the run reads AGENTS.md (a pull request's run: the default branch); the workspace by default. */
  instructionsDir = workspace,
): Promise<Map<string, string>> {
  const known = await discoverSkills(skillDirs);
  // The workspace rules reach every chore's prompt, so they are in every chore's hash.
  const rules = await fs.promises.readFile(path.join(instructionsDir, 'AGENTS.md'), 'utf8').catch(() => undefined);
  const needsServers = chores.some((c) => c.mcp);
  const reviewer = new McpReviewer(workspace);
  const sources: ChoreServerSources = {
    configured: needsServers ? workspaceMcpServers(workspace, logger) : [],
    review: (definition) => reviewer.review(definition),
  };
  return new Map(chores.map((c) => [c.id, choreConsentHash(c, choreSkillBodies(c, known, rules), sources)]));
}

/** The command that brings a stale workflow up to date, for the messages of `--expect-hash` and `ci verify`. */
export function regenerateCommand(workflowFile: string): string {
  return `tasklane chores ci github > ${workflowFile}`;
}

/** Refuses (exit 2) a run whose chore changed since its workflow was generated. */
export function checkExpectedHash(chore: ChoreDefinition, actual: string, expected: string): void {
  if (actual === expected) return;
  throw new WorkflowError(
    `chore ${chore.id} changed since the workflow that runs it was generated (definition ${actual.slice(0, 12)}, the workflow expects ${expected.slice(0, 12)}): the workflow is stale, so nothing ran. Review the change, then regenerate the workflow with \`${regenerateCommand('.github/workflows/tasklane.yml')}\` and commit it.`,
  );
}

/** `ci verify`: whether the committed `file` (shown as `shown`) is the generated text; the message says what to do. */
export function verifyWorkflow(file: string, shown: string, generated: string): { ok: boolean; message: string } {
  let committed: string;
  try {
    committed = fs.readFileSync(file, 'utf8');
  } catch {
    return { ok: false, message: `${shown} does not exist. Generate it with \`${regenerateCommand(shown)}\` and commit it.` };
  }
  if (committed === generated) return { ok: true, message: `${shown} is up to date with .tasklane/chores.yaml.` };
  const a = committed.split('\n');
  const b = generated.split('\n');
  let line = 0;
  while (line < a.length && line < b.length && a[line] === b[line]) line++;
  return {
    ok: false,
    message: `${shown} is stale: it differs from what .tasklane/chores.yaml generates from line ${line + 1} on. Regenerate it with \`${regenerateCommand(shown)}\`, review the diff and commit it.`,
  };
}
