/**
 * How the agent job hands its secrets to the CLI without any process a declared command can read
 * holding them in its environment (issue 38 item 3; security review 2026-12c finding 1: a declared
 * `npm test` printed OPENAI_API_KEY and TASKLANE_GATE_TOKEN from `/proc/<parent>/environ`).
 *
 * `/proc/<pid>/environ` shows a process's *initial* environment, readable by any process of the
 * same user, whatever the process later deletes from its own `process.env`. The command's
 * ancestors are the CLI, the step's bash and the runner. So the secrets must never be in the
 * initial environment of the CLI or of the step that starts it (decision):
 *  - one step ({@link HAND_OVER_SCRIPT}) has them in its `env:`, writes each non-empty one to a
 *    file of a private folder (mode 700, files 600) and exits before any command of the chore exists;
 *  - the run step has no secret in its `env:` and passes `--secrets-dir`; the CLI reads the files
 *    and deletes the folder as its first act ({@link takeSealedSecrets}), so the values live only in
 *    its memory and in what it gives a server that names one (an MCP server's own secret);
 *  - a command is a child of the CLI and cannot read its memory: `/proc/<pid>/mem` needs ptrace
 *    rights, which Yama's `ptrace_scope = 1` (GitHub's Ubuntu runners) refuses for an ancestor;
 *  - declared commands also get only an allowlisted environment (commandRunner.ts).
 * What is not sealed: an MCP server's own secret is in that server's environment, readable by a
 * command of the same user; commands have the network (docs/SECURITY.md).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from './environment';

/** The folder the hand-over step writes, under the runner's temp folder (never in a checkout). */
export const SECRETS_DIR = '$RUNNER_TEMP/tasklane-keys';

/** A variable name as the hand-over step writes it: nothing else becomes a file name or a shell word. */
const NAME = /^[A-Z_][A-Z0-9_]{0,99}$/;

/** The hand-over step's script for these variable names (taken from its own `env:`). */
export function handOverScript(names: readonly string[]): string {
  for (const name of names) if (!NAME.test(name)) throw new UsageError(`${JSON.stringify(name)} is not a variable name the workflow can hand over.`);
  return [
    'umask 077',
    `dir="${SECRETS_DIR}"`,
    'rm -rf "$dir" && mkdir -m 700 "$dir"',
    `for name in ${names.join(' ')}; do`,
    '  if [ -n "${!name}" ]; then printf \'%s\' "${!name}" > "$dir/$name"; fi',
    'done',
  ].join('\n');
}

/**
 * Reads every secret file of `dir` (file name = variable name) and deletes the folder; throws
 * UsageError when it holds anything else. Called before the run starts anything.
 */
export function takeSealedSecrets(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    throw new UsageError(
      `--secrets-dir ${dir} cannot be read (${error instanceof Error ? error.message.split('\n')[0] : String(error)}): the hand-over step must run first in the same job.`,
      { cause: error },
    );
  }
  try {
    for (const name of names) {
      const file = path.join(dir, name);
      if (!NAME.test(name) || !fs.lstatSync(file).isFile())
        throw new UsageError(`--secrets-dir ${dir} holds "${name}", which is not a secret file the hand-over step writes.`);
      out[name] = fs.readFileSync(file, 'utf8');
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
