/**
 * `tasklane chores ci github` (print the workflow) and `tasklane chores ci verify` (exit 1 while
 * the committed workflow is not what `ci github` would print now, with the command that fixes it).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ChoreDefinition } from '../core/chores/types';
import type { Logger } from '../core/ports';
import { cliContentDigest, defaultCliUrl } from './cliArtifact';
import { choreHashes, skillDirsOf, verifyWorkflow } from './ciCommands';
import { pricesFromEnv, pricesVariable, UsageError } from './environment';
import { DEFAULT_WORKFLOW_FILE, githubWorkflow } from './githubWorkflow';
import type { WorkflowOptions } from './githubWorkflow';

export interface CiCommandInput {
  /** What follows `chores ci`: the target (`github` or `verify`). */
  args: string[];
  workspace: string;
  io: { out(text: string): void; err(text: string): void; env: Readonly<Record<string, string | undefined>> };
  /** As the CLI's CliAssets: the built-in skills folder, the version and the CLI's own files or digest. */
  assets: { skillsDir: string; version?: string; cliRoot?: string; cliDigest?: string };
  loadChores: (workspace: string) => { chores: ChoreDefinition[]; report: string };
  /** `ci verify --workflow FILE`, relative to the workspace; default {@link DEFAULT_WORKFLOW_FILE}. */
  workflow?: string;
  /** Where a problem of an mcp.json entry is told. */
  logger: Pick<Logger, 'warn'>;
}

type Model = NonNullable<WorkflowOptions['model']>;

/** Runs `chores ci <target>`; resolves with the exit code. */
export async function ciCommand(input: CiCommandInput): Promise<number> {
  const { args, workspace, io } = input;
  const target = args[0];
  if (target !== 'github' && target !== 'verify') throw new UsageError(`"chores ci" takes github or verify (got ${target ? `"${target}"` : 'none'}).`);
  if (args.length > 1) throw new UsageError(`Unexpected argument "${args[1]}".`);
  if (target === 'github' && input.workflow) throw new UsageError('--workflow is for "chores ci verify"; "chores ci github" prints the workflow.');
  const { chores, report } = input.loadChores(workspace);
  if (report) io.err(`${report}\n`);
  pricesFromEnv(io.env); // a mistyped price fails here, not in the first scheduled run
  const fromEnv: Model = {
    provider: io.env.TASKLANE_MODEL_PROVIDER,
    id: io.env.TASKLANE_MODEL_ID,
    baseUrl: io.env.TASKLANE_MODEL_BASE_URL,
    prices: io.env[pricesVariable]?.trim(),
  };
  let cliUrl = io.env.TASKLANE_CLI_URL?.trim() || undefined;
  // The digest is always this CLI's own: a workflow whose digest was edited is stale, whatever it says.
  const generate = async (model: Model) => {
    const hashes = await choreHashes(chores, skillDirsOf(input.assets.skillsDir, workspace), workspace, input.logger);
    const cli = {
      digest: input.assets.cliDigest ?? cliContentDigest(input.assets.cliRoot ?? ownRoot()),
      url: cliUrl ?? defaultCliUrl(input.assets.version ?? ownVersion()),
    };
    return githubWorkflow(chores, { model, cli, hashOf: (c) => hashes.get(c.id) ?? '' });
  };
  if (target === 'github') {
    io.out(await generate(fromEnv));
    return 0;
  }
  const relative = input.workflow ?? DEFAULT_WORKFLOW_FILE;
  const file = path.resolve(workspace, relative);
  // The model settings were written from the generating machine's environment; a CI check that
  // does not set them compares with the ones the file names.
  const committed = committedModel(file);
  // Where the asset is mirrored is the team's choice; what it must contain is not (the digest).
  cliUrl ??= committed.cliUrl;
  const model: Model = {
    provider: fromEnv.provider ?? committed.provider,
    id: fromEnv.id ?? committed.id,
    baseUrl: fromEnv.baseUrl ?? committed.baseUrl,
    prices: fromEnv.prices ?? committed.prices,
  };
  const verdict = verifyWorkflow(file, relative, await generate(model));
  if (verdict.ok) io.out(`${verdict.message}\n`);
  else io.err(`${verdict.message}\n`);
  return verdict.ok ? 0 : 1;
}

/** TASKLANE_MODEL_* and TASKLANE_CLI_URL of the committed workflow's top-level env (empty when unreadable). */
function committedModel(file: string): Model & { cliUrl?: string } {
  try {
    const parsed = parseYaml(fs.readFileSync(file, 'utf8')) as { env?: Record<string, unknown> } | null;
    const env = parsed?.env ?? {};
    const text = (key: string) => (typeof env[key] === 'string' ? env[key] : undefined);
    return {
      provider: text('TASKLANE_MODEL_PROVIDER'),
      id: text('TASKLANE_MODEL_ID'),
      baseUrl: text('TASKLANE_MODEL_BASE_URL'),
      prices: text(pricesVariable),
      cliUrl: text('TASKLANE_CLI_URL'),
    };
  } catch {
    return {};
  }
}

/** The folder holding this CLI's bin/tasklane.js: one up from the bundle (dist/), two from the source (src/cli/). */
export function ownRoot(): string {
  const found = [path.join(__dirname, '..'), path.join(__dirname, '..', '..')].find((dir) => fs.existsSync(path.join(dir, 'bin', 'tasklane.js')));
  if (!found) throw new UsageError('The Tasklane CLI cannot find its own files, so it cannot pin itself in the workflow.');
  return found;
}

/** The version in the CLI's package.json: one folder up from the bundle (dist/), two from the source (src/cli/). */
export function ownVersion(): string {
  for (const file of [path.join(__dirname, '..', 'package.json'), path.join(__dirname, '..', '..', 'package.json')]) {
    try {
      const { name, version } = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (name === 'tasklane' && typeof version === 'string') return version;
    } catch {
      // not this one
    }
  }
  throw new UsageError('The Tasklane CLI cannot find its own package.json, so it cannot pin its version in the workflow.');
}
