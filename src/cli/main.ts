/**
 * The `tasklane` command line: the core, headless, for CI and pre-commit.
 *
 *   tasklane chores run <id> [--workspace DIR] [--json] [--patch-out FILE] [--store DIR] [--expect-hash H] [--chores-from DIR] [--event FILE] [--out DIR] [--secrets-dir DIR] [--resume DIR --resume-hash H]
 *   tasklane chores apply --from DIR [--chore ID] [--workspace DIR] [--event FILE]
  tasklane chores status --chore ID [--workspace DIR]   the "started" status on the fire's issue or pull request
 *   tasklane chores ci github [--workspace DIR]
 *   tasklane chores ci verify [--workspace DIR] [--workflow FILE]
  tasklane chores ci settings         print .tasklane/ci-settings.json from TASKLANE_MODEL_* and TASKLANE_CLI_URL
 *   tasklane chores validate [--workspace DIR]
 *   tasklane cli digest | tasklane cli pack --out DIR
 *
 * Exit codes: 0 succeeded, nothing to change (or valid); 1 the run failed, its checks failed, ran out of budget or waits for review;
 * 2 invalid chores file or arguments (the message names the line).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { choresFilePath, parseChoresFile } from '../core/chores/choreFile';
import type { ChoreDefinition } from '../core/chores/types';
import type { Logger, LogTag } from '../core/ports';
import { modelFromEnv, modelIdFromEnv, pricesFromEnv, pricesVariable, redactorFromEnv, secretsFromEnv, UsageError } from './environment';
import { costEstimateNote } from '../core/chores/chorePreview';
import { checkExpectedHash, choreHashes, skillDirsOf } from './ciCommands';
import { ciCommand, ownRoot, ownVersion } from './ciMain';
import { ciProblems } from './ciValidate';
import { cliContentDigest, packCli } from './cliArtifact';
import { WorkflowError } from './githubWorkflow';
import { writePatchFile } from './patch';
import { takeSealedSecrets } from './sealedSecrets';
import { runChoreOnce } from './runChore';
import { requireSandboxFor, SandboxError } from './commandSandbox';
import { checkParkedStore } from './parkedStore';
import { ciStore } from './ciResume';
import { applyCommand, runCiFire } from './ciFire';
import { startedStatus } from './startedStatus';
import { pausedRun } from './pausedCommand';
import { StoreInUseError } from '../core/store/lease';
import { forCiLog } from '../core/security/surfaceText';

const USAGE = `Usage:
  tasklane chores status --chore ID [--workspace DIR]   the "started" status on the fire's issue or pull request
  tasklane chores paused --chore ID [--workspace DIR]   the run id of the chore's paused run a /tasklane continue resumes
  tasklane chores run <id> [--workspace DIR] [--json] [--patch-out FILE] [--out DIR] [--store DIR] [--expect-hash H] [--chores-from DIR] [--event FILE] [--secrets-dir DIR]
                            [--resume DIR --resume-hash H]
  tasklane chores apply --from DIR [--chore ID] [--workspace DIR] [--event FILE]
  tasklane chores ci github [--workspace DIR]
  tasklane chores ci verify [--workspace DIR] [--workflow FILE]
  tasklane chores ci settings         print .tasklane/ci-settings.json from TASKLANE_MODEL_* and TASKLANE_CLI_URL
  tasklane chores validate [--workspace DIR]
  tasklane cli digest                 print this CLI's content digest (what a generated workflow pins)
  tasklane cli pack --out DIR         write this CLI's release asset, tasklane-cli-<version>.tar.gz

Model: TASKLANE_MODEL_PROVIDER (anthropic | openai | openai-compatible), TASKLANE_MODEL_BASE_URL,
TASKLANE_MODEL_ID, and ANTHROPIC_API_KEY or OPENAI_API_KEY. Prices of models Tasklane does not know, in USD
per million tokens: TASKLANE_MODEL_PRICES='{"<id or glob>": {"input": 0.5, "output": 1.5}}' (otherwise their
cost is estimated at the highest known rate). Escalation secrets: TASKLANE_SECRET_<NAME>.
--expect-hash: refuse (exit 2) when the chore's definition hash differs (its workflow is stale);
--chores-from DIR: read .tasklane/chores.yaml, AGENTS.md and skills from DIR (a pull request's
default branch) while the run works on --workspace.
--secrets-dir DIR: read the keys and secrets from the files of DIR (one per variable) and delete it
first, so no process a command can read holds them in its environment (the generated workflow).
--store DIR keeps the store: a run that reaches a budget limit (iterations, input tokens, cost) then
parks there and prints its store hash; --resume DIR --resume-hash H continues it from the same step
with another budget of the chore's size (refused when DIR's contents do not match H).
GitHub (chores on CI): --event defaults to GITHUB_EVENT_PATH; the actor gate asks GITHUB_API_URL with
TASKLANE_GATE_TOKEN; --out writes tasklane-result.json and tasklane.patch; apply writes with
GITHUB_TOKEN to GITHUB_REPOSITORY.
Exit codes: 0 succeeded / nothing_to_change (or skipped; on CI also paused at budget), 1 failed / checks_failed / budget_exhausted / awaiting_review / an output refused (apply: on a pull request),
2 invalid file or arguments.
ci verify: 0 when the workflow file is what ci github prints from the chores and the committed\n.tasklane/ci-settings.json (else this environment's settings; never the workflow's own env), 1 when it is stale.`;

/** Where the bundled CLI finds what ships beside it (dist/sql-wasm.wasm, skills/). */
export interface CliAssets {
  /** Absent when sql.js can find its own wasm (a source checkout). */
  wasmPath?: string;
  skillsDir: string;
  /** The CLI's own version, which the generated workflow installs; default: from package.json beside the CLI. */
  version?: string;
  /** The folder holding bin/, dist/ and skills/: the files the workflow pins by content (cliArtifact.ts). */
  cliRoot?: string;
  /** Tests only: the content digest to write instead of hashing cliRoot (a source checkout has no bundle). */
  cliDigest?: string;
}

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** Runs one command line; resolves with the exit code. */
export async function runCli(argv: string[], io: CliIo, assets: CliAssets): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        workspace: { type: 'string' },
        json: { type: 'boolean', default: false },
        'patch-out': { type: 'string' },
        store: { type: 'string' },
        'open-pr': { type: 'boolean', default: false },
        'expect-hash': { type: 'string' },
        'chores-from': { type: 'string' },
        workflow: { type: 'string' },
        out: { type: 'string' },
        event: { type: 'string' },
        from: { type: 'string' },
        chore: { type: 'string' },
        'secrets-dir': { type: 'string' },
        resume: { type: 'string' },
        'resume-hash': { type: 'string' },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) {
      io.out(`${USAGE}\n`);
      return 0;
    }
    // The secrets the hand-over step wrote (sealedSecrets.ts): read, deleted, and from here on only
    // in this run's environment object, never in the process's own (which commands' /proc can read).
    if (values['secrets-dir']) io = { ...io, env: { ...io.env, ...takeSealedSecrets(path.resolve(io.cwd, values['secrets-dir'])) } };
    const workspace = path.resolve(io.cwd, values.workspace ?? '.');
    const [group, command, ...rest] = positionals;
    if (group === 'cli') return cliCommand(command, rest, values.out, io, assets);
    if (group !== 'chores') throw new UsageError(group ? `Unknown command "${group}".` : 'No command given.');
    // What the run prints (its log, its JSON line, the patch) never carries a secret of the environment.
    const redactor = redactorFromEnv(io.env);
    const logger = cliLogger(io, values.verbose, (text) => redactor.redact(text));
    switch (command) {
      case 'validate': {
        expectArgs(rest, 0);
        const { chores, report } = loadChores(workspace);
        // The CI-only checks (ciValidate.ts): what `ci github` would refuse, before a workflow is generated.
        const ci = ciProblems(chores);
        const lines = [report, ...ci.map((p) => `${choresFilePath}: ${p.severity}: ${p.message}`)].filter(Boolean).join('\n');
        if (ci.some((p) => p.severity === 'error')) throw new UsageError(lines);
        io.out(`${lines || `${choresFilePath}: ${chores.length} chore(s), no problems`}\n`);
        // The chores' cost caps hold either way; say when they will count an estimate.
        const modelId = modelIdFromEnv(io.env);
        const note = chores.length && modelId ? costEstimateNote({ id: modelId, prices: pricesFromEnv(io.env), where: pricesVariable }) : undefined;
        if (note) io.out(`cost: ${note}\n`);
        return 0;
      }
      case 'ci': {
        if (values['open-pr'])
          throw new UsageError(
            '--open-pr is gone: the agent job no longer holds a writing token. Declare `outputs: { pullRequest: { draft: true } }` on the chore and its apply job opens the draft pull request.',
          );
        return await ciCommand({ args: rest, workspace, io, assets, loadChores, logger, ...(values.workflow ? { workflow: values.workflow } : {}) });
      }
      case 'run': {
        const id = rest[0];
        if (!id) throw new UsageError('"chores run" needs the id of the chore to run.');
        expectArgs(rest, 1);
        // A pull request's run reads its chores and instructions from the default branch (--chores-from).
        const definitions = values['chores-from'] ? path.resolve(io.cwd, values['chores-from']) : workspace;
        const { chores, report } = loadChores(definitions);
        if (report) io.err(`${report}\n`);
        const chore = chores.find((c) => c.id === id);
        if (!chore) throw new UsageError(`There is no valid chore "${id}" in ${choresFilePath}; chores: ${chores.map((c) => c.id).join(', ') || 'none'}.`);
        const skillDirs = skillDirsOf(assets.skillsDir, definitions);
        const expected = values['expect-hash'];
        const hash = (await choreHashes([chore], skillDirs, workspace, logger, definitions)).get(chore.id) ?? '';
        if (expected !== undefined) checkExpectedHash(chore, hash, expected);
        // Declared commands never run unsealed: a machine that cannot seal them stops before any model call.
        requireSandboxFor(chore);
        const onCi = chore.trigger.kind === 'github' || values.out !== undefined || values.event !== undefined;
        const ci = onCi ? ciStore(values, io.cwd) : undefined;
        const store = ci ? ci.storeDir : resumeStore(values, io.cwd);
        const runOptions = {
          workspace,
          chore,
          chores,
          model: modelFromEnv(io.env, logger),
          modelPrices: pricesFromEnv(io.env),
          secrets: secretsFromEnv(io.env),
          redactor,
          logger,
          ...(store ? { storeDir: store } : {}),
          ...(values.resume ? { resume: true } : {}),
          ...(assets.wasmPath ? { wasmPath: assets.wasmPath } : {}),
          skillDirs,
          ...(definitions !== workspace ? { instructionsDir: definitions } : {}),
          env: io.env,
        };
        // On CI (a github chore, an event or --out) the fire writes the result manifest the apply job reads.
        if (ci)
          return await runCiFire({
            chore,
            definitionHash: hash,
            values: { ...values, ...(ci.resumeFrom ? { resume: ci.resumeFrom } : {}) },
            io,
            redactor,
            logger,
            run: (narrowed) => {
              ci.prepare();
              return runChoreOnce({
                ...runOptions,
                ...(ci.storeDir ? { storeOnlyIfParked: ci.storeOnlyIfParked } : {}),
                chore: narrowed,
                chores: chores.map((c) => (c.id === narrowed.id ? narrowed : c)),
              });
            },
          });
        const { result, patch } = await runChoreOnce(runOptions);
        if (values['patch-out']) writePatchFile(path.resolve(io.cwd, values['patch-out']), patch);
        io.err(
          redactor.redact(
            `chore ${result.choreId}: run ${result.runId} ${result.parked ? 'paused at budget' : result.status}${result.reason ? `: ${forCiLog(result.reason)}` : ''}; ${result.changedFiles.length} file(s) in the patch\n${result.parked ? `continue it with: chores run ${result.choreId} --resume ${store ?? ''} --resume-hash ${result.parked.storeHash}\n` : ''}`,
          ),
        );
        if (values.json) io.out(`${redactor.redact(JSON.stringify(result))}\n`);
        return result.status === 'succeeded' || result.status === 'nothing_to_change' ? 0 : 1;
      }
      case 'status': {
        expectArgs(rest, 0);
        if (!values.chore) throw new UsageError('"chores status" needs --chore ID, the chore whose fire it announces.');
        redactor.addSecret(io.env.GITHUB_TOKEN);
        return await startedStatus({ choreId: values.chore, chores: loadChores(workspace).chores, io });
      }
      case 'paused': {
        expectArgs(rest, 0);
        if (!values.chore) throw new UsageError('"chores paused" needs --chore ID, the chore whose paused run a /tasklane continue resumes.');
        redactor.addSecret(io.env.TASKLANE_GATE_TOKEN);
        return await pausedRun({ choreId: values.chore, chores: loadChores(workspace).chores, io });
      }
      case 'apply': {
        expectArgs(rest, 0);
        if (!values.from) throw new UsageError('"chores apply" needs --from DIR, the folder chores run --out wrote.');
        const { chores } = loadChores(workspace);
        const skillDirs = skillDirsOf(assets.skillsDir, workspace);
        return await applyCommand({
          from: path.resolve(io.cwd, values.from),
          chores,
          hashOf: async (chore) => (await choreHashes([chore], skillDirs, workspace, logger)).get(chore.id) ?? '',
          io,
          redactor,
          ...(values.chore ? { choreId: values.chore } : {}),
          ...(values.event ? { event: path.resolve(io.cwd, values.event) } : {}),
        });
      }
      default:
        throw new UsageError(command ? `Unknown chores command "${command}".` : 'No chores command given.');
    }
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof WorkflowError ||
      error instanceof SandboxError ||
      (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      io.err(`tasklane: ${error.message}\n${error instanceof WorkflowError || error instanceof SandboxError ? '' : `\n${USAGE}\n`}`);
      return 2;
    }
    if (error instanceof StoreInUseError) {
      // One line, with the advice a command line needs (not a stack, not "close the other VS Code window").
      io.err(
        `tasklane: the store in ${error.dir} is in use by another Tasklane process (${error.owner}); wait for it to finish, or give this run its own --store folder.\n`,
      );
      return 1;
    }
    io.err(`tasklane: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}

function expectArgs(rest: string[], count: number): void {
  if (rest.length > count) throw new UsageError(`Unexpected argument "${rest[count]}".`);
}

/**
 * Reads and validates chores.yaml. Errors are a UsageError (exit 2) naming file, line and column;
 * warnings (clamped limits) come back as a report to print.
 */
function loadChores(workspace: string): { chores: ChoreDefinition[]; report: string } {
  const file = path.join(workspace, choresFilePath);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`${choresFilePath} was not found in ${workspace}; pass --workspace with the repository's folder.`);
  }
  const parsed = parseChoresFile(text);
  const lines = parsed.diagnostics.map((d) => `${choresFilePath}:${d.line}:${d.column}: ${d.severity}: ${d.message}`);
  if (parsed.diagnostics.some((d) => d.severity === 'error')) throw new UsageError(lines.join('\n'));
  return { chores: parsed.chores, report: lines.join('\n') };
}

/** Log lines go to standard error (standard output is the JSON line or the workflow); trace only with --verbose. */
function cliLogger(io: CliIo, verbose: boolean, redact: (text: string) => string): Logger {
  const line = (level: string, tag: string, message: string, error?: unknown) =>
    io.err(redact(`[${level}] [${tag}] ${message}${error ? `: ${error instanceof Error ? error.message : String(error)}` : ''}\n`));
  return {
    trace: (tag: LogTag, message: string) => void (verbose && line('trace', tag, message)),
    info: (tag: LogTag, message: string) => void (verbose && line('info', tag, message)),
    warn: (tag: LogTag, message: string) => line('warn', tag, message),
    error: (tag: LogTag, message: string, error?: unknown) => line('error', tag, message, error),
  };
}

/** `tasklane cli digest` and `tasklane cli pack --out DIR` (cliArtifact.ts: how the CLI is published). */
function cliCommand(command: string | undefined, rest: string[], out: string | undefined, io: CliIo, assets: CliAssets): number {
  expectArgs(rest, 0);
  const root = assets.cliRoot ?? ownRoot();
  if (command === 'digest') {
    io.out(`${cliContentDigest(root)}\n`);
    return 0;
  }
  if (command !== 'pack') throw new UsageError(`"cli" takes digest or pack (got ${command ? `"${command}"` : 'none'}).`);
  if (!out) throw new UsageError('"cli pack" needs --out DIR, the folder to write the release asset to.');
  const packed = packCli(root, path.resolve(io.cwd, out), assets.version ?? ownVersion());
  io.out(`${packed.file}\ncontent digest ${packed.digest}\n`);
  return 0;
}

/** The store folder of a run: --store, or the paused run's folder --resume names once its hash is checked (parkedStore.ts). */
function resumeStore(values: { store?: string; resume?: string; 'resume-hash'?: string }, cwd: string): string | undefined {
  if (values.resume === undefined) {
    if (values['resume-hash'] !== undefined) throw new UsageError("--resume-hash goes with --resume DIR, the paused run's store.");
    return values.store === undefined ? undefined : path.resolve(cwd, values.store);
  }
  const dir = path.resolve(cwd, values.resume);
  if (values.store !== undefined && path.resolve(cwd, values.store) !== dir)
    throw new UsageError("--resume DIR continues in the paused run's own store: leave out --store, or give the same folder.");
  checkParkedStore(dir, values['resume-hash']);
  return dir;
}
