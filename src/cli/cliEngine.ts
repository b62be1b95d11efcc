/**
 * The command line's engine: Node adapters in, the one engine graph out (core/createEngine.ts).
 * The folder is seen through an overlay (an approved edit lands there and leaves as the patch),
 * commands and MCP tools are the chore's declared ones only (no person to ask; its servers start
 * with its run, see choreMcpServers.ts), the model and secrets come from
 * the environment. `chores run` uses it for one fire; a host test builds it beside VS Code's and
 * compares what the two expose (core/engineSurface.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { guardReads } from '../core/approval/paths/guardedWorkspace';
import { nodeFs } from '../core/approval/paths/nodeFs';
import type { ChoreOutputs } from '../core/chores/githubTypes';
import { createEngine } from '../core/createEngine';
import { outputCheckHook } from './outputRules';
import { ReadOnlyGit } from '../core/git/readOnlyGit';
import type { ModelPrices } from '../core/model/pricing';
import type { ModelClient } from '../core/model/types';
import type { Logger } from '../core/ports';
import { systemClock } from '../core/ports';
import type { Redactor } from '../core/security/redact';
import { openStore } from '../core/store/openStore';
import { CliChoreMcp } from './choreMcpServers';
import { cliCommandRunner } from './commandRunner';
import { sandboxFor } from './commandSandbox';
import { OverlayWorkspace } from './overlayWorkspace';

export interface CliEngineOptions {
  /** The folder the chore works on. */
  workspace: string;
  /** The chore's `outputs:`: a task_end whose output breaks them is sent back (outputRules.ts). */
  outputs?: ChoreOutputs;
  /** Where the store and the agent's files live. */
  storeDir: string;
  model: () => Promise<ModelClient>;
  /** The person's model prices (TASKLANE_MODEL_PRICES); an unpriced model is charged at the conservative rate. */
  modelPrices?: ModelPrices;
  secrets: (name: string) => string | undefined;
  /**
   * Knows every secret of the environment (model keys, TASKLANE_SECRET_*), and learns each one a
   * chore's MCP server is given: nothing written or printed carries them.
   */
  redactor: Redactor;
  logger: Logger;
  /** The sql.js wasm file; default: the one beside the sql.js package. */
  wasmPath?: string;
  skillDirs: string[];
  /** Where AGENTS.md is read from when not the workspace (a pull request's run: the default branch). */
  instructionsDir?: string;
  /** What declared commands inherit, scrubbed to a few harmless variables (commandRunner.ts). */
  env: Readonly<Record<string, string | undefined>>;
  /** The longest a declared command may run (the chore's maxSeconds). */
  maxCommandMs: number;
  /** The chore lists hosts (`network:`): its commands get the network (commandSandbox.ts). */
  commandNetwork?: boolean;
  /** A run at its budget parks (its store is kept for `--resume`, parkedStore.ts) instead of ending. */
  parkAtBudget?: boolean;
}

/** Opens the store and builds the engine; nothing runs until `engine.start()`. */
export async function openCliEngine(options: CliEngineOptions) {
  const clock = systemClock;
  const { logger, redactor } = options;
  const { db, triggers } = await openStore({
    dir: path.join(options.storeDir, 'store'),
    ...(options.wasmPath ? { wasmPath: options.wasmPath } : {}),
    clock,
    logger,
    // A run can do nothing on a store it does not own: refuse (main.ts says so in one line).
    whenInUse: 'throw',
  });
  const workspace = new OverlayWorkspace(options.workspace);
  // The model's reads pass the same path guard as in VS Code (links out, hard links), overlay included.
  const reads = guardReads(workspace, options.workspace, nodeFs, { caseInsensitive: process.platform !== 'linux' });
  const commands = cliCommandRunner({
    cwd: options.workspace,
    env: options.env,
    // Made once, at the first command; `chores run` has already refused a machine that cannot (main.ts).
    sandbox: sandboxFor(options.commandNetwork === true),
    beforeRun: () => workspace.materialize(),
    maxTimeoutMs: options.maxCommandMs,
  });
  // The chore's declared MCP servers, started when its run starts (a failure fails the run).
  const mcp = new CliChoreMcp({
    workspace: options.workspace,
    env: options.env,
    secrets: options.secrets,
    onSecret: (value) => redactor.addSecret(value),
    logger,
  });
  const engine = await createEngine({
    db,
    triggers,
    clock,
    logger,
    storageDir: path.join(options.storeDir, 'agent'),
    model: options.model,
    // The person ran it on their own folder: nothing here is Restricted Mode.
    trusted: () => true,
    redactor,
    workspace: reads,
    // The repository's history as it is on disk (the run's own edits are only in the overlay).
    git: new ReadOnlyGit(options.workspace, { env: options.env }),
    skillDirs: options.skillDirs,
    workspaceRules: () =>
      options.instructionsDir === undefined
        ? reads.readFile('AGENTS.md').catch(() => undefined)
        : fs.promises.readFile(path.join(options.instructionsDir, 'AGENTS.md'), 'utf8').catch(() => undefined),
    settings: () => ({ maxActionsPerTask: 500, maxTokensPerTask: 50_000_000, ...(options.modelPrices ? { modelPrices: options.modelPrices } : {}) }),
    // Chore proposals always wait for review; here the review is the patch (runChore.ts approvePending).
    edits: { offered: true, root: options.workspace, files: workspace, applier: workspace, policy: () => ({ autoApproveEdits: false }) },
    chores: {
      secrets: { getSecret: async (name) => options.secrets(name) },
      workspaceName: path.basename(options.workspace),
      // On GitHub Actions an escalation links the run's page; elsewhere a run from a temporary store has no link.
      runLink: async () => actionsRunUrl(options.env),
      prepare: (chore) => mcp.prepare(chore),
      ...(options.parkAtBudget ? { parkAtBudget: true } : {}),
    },
    // The chore's declared commands and MCP tools and nothing else: nobody is here to approve another one.
    commands: { runner: commands, gate: { allowedCommands: () => [], trusted: () => true, unattended: true } },
    // The engine builds the chore's MCP servers from the command line's side of them (core/engineMcp.ts).
    mcp: mcp.adapters(),
    ...(options.outputs ? { taskHooks: [outputCheckHook(options.outputs)] } : {}),
  });
  mcp.attach(engine.mcp);
  return { engine, workspace, triggers, mcp };
}

/**
 * The page of the GitHub Actions run this process is part of, from the variables every Actions job
 * sets (`GITHUB_SERVER_URL`, `GITHUB_REPOSITORY`, `GITHUB_RUN_ID`); undefined outside Actions or
 * when one of them is not the shape GitHub gives it.
 */
export function actionsRunUrl(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const server = env.GITHUB_SERVER_URL;
  const repository = env.GITHUB_REPOSITORY;
  const runId = env.GITHUB_RUN_ID;
  if (!server || !repository || !runId) return undefined;
  if (!/^https:\/\/[^\s/?#]+$/.test(server) || !/^[\w.-]+\/[\w.-]+$/.test(repository) || !/^\d+$/.test(runId)) return undefined;
  return `${server}/${repository}/actions/runs/${runId}`;
}
