/**
 * `tasklane chores ci github` (print the workflow), `tasklane chores ci verify` (exit 1 while the
 * committed workflow is not what `ci github` would print now from the chores and the consented
 * settings, with the command that fixes it) and `tasklane chores ci settings` (print the settings
 * file from the environment: ciSettings.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChoreDefinition } from '../core/chores/types';
import type { Logger } from '../core/ports';
import { cliContentDigest, defaultCliUrl } from './cliArtifact';
import { choreHashes, skillDirsOf, verifyWorkflow } from './ciCommands';
import { pricesFromEnv, pricesVariable, UsageError } from './environment';
import { CI_SETTINGS_FILE, ciSettingsText, consentedSettings, describeSettings, settingsFromEnv } from './ciSettings';
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
  if (target !== 'github' && target !== 'verify' && target !== 'settings')
    throw new UsageError(`"chores ci" takes github, verify or settings (got ${target ? `"${target}"` : 'none'}).`);
  if (args.length > 1) throw new UsageError(`Unexpected argument "${args[1]}".`);
  if (target !== 'verify' && input.workflow) throw new UsageError('--workflow is for "chores ci verify".');
  if (target === 'settings') {
    // What the environment sets now, as the committed settings file (the person reviews and commits it).
    pricesFromEnv(io.env);
    io.out(ciSettingsText(settingsFromEnv(io.env)));
    return 0;
  }
  const { chores, report } = input.loadChores(workspace);
  if (report) io.err(`${report}\n`);
  // The settings consented to: the committed file, else the environment; never the workflow's own
  // env block, which is the file under review (ciSettings.ts).
  const { settings, from } = consentedSettings(workspace, io.env);
  pricesFromEnv(settings.prices ? { [pricesVariable]: settings.prices } : {}); // a mistyped price fails here, not in the first scheduled run
  const model: Model = { provider: settings.provider, id: settings.id, baseUrl: settings.baseUrl, prices: settings.prices };
  // The digest is always this CLI's own: a workflow whose digest was edited is stale, whatever it says.
  const cli = {
    digest: input.assets.cliDigest ?? cliContentDigest(input.assets.cliRoot ?? ownRoot()),
    url: settings.cliUrl ?? defaultCliUrl(input.assets.version ?? ownVersion()),
  };
  const hashes = await choreHashes(chores, skillDirsOf(input.assets.skillsDir, workspace), workspace, input.logger);
  const generated = githubWorkflow(chores, { model, cli, hashOf: (c) => hashes.get(c.id) ?? '' });
  if (target === 'github') {
    io.out(generated);
    return 0;
  }
  const relative = input.workflow ?? DEFAULT_WORKFLOW_FILE;
  const verdict = verifyWorkflow(path.resolve(workspace, relative), relative, generated);
  const source =
    from === 'file'
      ? `Compared with the chores and ${CI_SETTINGS_FILE}.`
      : `Compared with the chores and the settings of this environment (no ${CI_SETTINGS_FILE}; the workflow's own env block is never trusted).`;
  const told = `${verdict.message}\n${source} ${describeSettings(settings, cli)}\n`;
  if (verdict.ok) io.out(told);
  else io.err(told);
  return verdict.ok ? 0 : 1;
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
