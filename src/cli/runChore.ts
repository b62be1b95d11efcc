/**
 * `tasklane chores run <id>`: one fire of a chore, headless, with the same engine, store, budgets,
 * successWhen, failure policy and escalation as in VS Code. What differs is the host:
 *  - the workspace is the folder on disk seen through an overlay: an edit the run proposes is
 *    approved into the overlay at once (nobody is at a CI machine to review it) and leaves as one
 *    unified diff, so the working tree is never touched and a person reviews the patch instead;
 *  - commands and VS Code tasks are not available (no terminal, no allowlist to consult);
 *  - the model comes from TASKLANE_MODEL_* variables, secrets from TASKLANE_SECRET_<NAME>.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Ledger } from '../core/actions/ledger';
import { ChangeSetDecider } from '../core/approval/changeSetDecider';
import { DbChangeSetStore } from '../core/approval/changeSetStore';
import { createEditActions } from '../core/approval/editActions';
import { applyTimeGuard } from '../core/approval/editTarget';
import { guardReads } from '../core/approval/guardedWorkspace';
import { nodeFs } from '../core/approval/nodeFs';
import { ChoreRunner } from '../core/chores/choreRunner';
import { choreIdOf } from '../core/engine/records';
import { ChoreRunLog, DbRunPersistence } from '../core/chores/runLog';
import type { ChoreRunRecord } from '../core/chores/runLog';
import type { ChoreDefinition } from '../core/chores/types';
import { Agent } from '../core/engine/agent';
import type { ModelClient } from '../core/model/types';
import type { ModelPrices } from '../core/model/pricing';
import type { Logger } from '../core/ports';
import { systemClock } from '../core/ports';
import { openDurableDb } from '../core/store/durableDb';
import { loadSqlJs } from '../core/store/sqlJs';
import { createTriggerStore } from '../core/store/triggerStore';
import type { TriggerStore } from '../core/store/types';
import { OverlayWorkspace } from './overlayWorkspace';
import { unifiedDiff } from './patch';

/** What `chores run` reports: the JSON object of its last line with --json. */
export interface CliRunResult {
  runId: string;
  choreId: string;
  status: ChoreRunRecord['status'];
  reason: string | null;
  usage: ChoreRunRecord['usage'];
  steps: Array<{ name: string; status: string; durationMs: number | null }>;
  /** Files the patch changes (empty when the run proposed no edit). */
  changedFiles: string[];
}

export interface RunChoreOptions {
  workspace: string;
  chore: ChoreDefinition;
  /** Every loaded chore (the runner knows them all; only `chore` fires). */
  chores: ChoreDefinition[];
  model: () => Promise<ModelClient>;
  /** The person's model prices (TASKLANE_MODEL_PRICES); an unpriced model is charged at the conservative rate. */
  modelPrices?: ModelPrices;
  secrets: (name: string) => string | undefined;
  logger: Logger;
  /** Where the store lives; default a temp folder removed afterwards. */
  storeDir?: string;
  /** The sql.js wasm file; default: the one beside the sql.js package. */
  wasmPath?: string;
  skillDirs: string[];
}

/** Runs the fire to its end (retries included) and returns the last run plus the patch text. */
export async function runChoreOnce(options: RunChoreOptions): Promise<{ result: CliRunResult; patch: string }> {
  const ownStore = options.storeDir === undefined;
  const storeDir = options.storeDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cli-'));
  const clock = systemClock;
  const { logger } = options;
  const db = await openDurableDb({ dir: path.join(storeDir, 'store'), sqlJs: await loadSqlJs(options.wasmPath), clock, logger });
  const triggers = await createTriggerStore(db, { clock, logger });
  const workspace = new OverlayWorkspace(options.workspace);
  const ledger = new Ledger(db, clock);
  const runLog = new ChoreRunLog(new DbRunPersistence(db), clock);
  const runner = new ChoreRunner({
    triggers,
    runLog,
    clock,
    logger,
    ledger,
    secrets: { getSecret: async (name) => options.secrets(name) },
    workspaceName: path.basename(options.workspace),
  });
  runner.setChores(options.chores);
  const changeSets = new DbChangeSetStore(db, clock);
  const decider = new ChangeSetDecider({
    store: changeSets,
    files: workspace,
    applier: workspace,
    ledger,
    durable: () => db.durable,
    triggers,
    logger,
    recheck: applyTimeGuard(options.workspace, nodeFs, { caseInsensitive: process.platform !== 'linux' }),
  });
  // The edit actions need task sources from the agent they are given to.
  const built: { agent?: Agent } = {};
  const editActions = createEditActions({
    root: options.workspace,
    fs: nodeFs,
    files: workspace,
    store: changeSets,
    decider,
    clock,
    // Chore proposals always wait for review; here the review is the patch (see approvePending).
    policy: () => ({ autoApproveEdits: false }),
    taskChore: (taskId) => {
      const task = built.agent?.snapshot().tasks.find((t) => t.id === taskId);
      return task ? choreIdOf(task) : undefined;
    },
    caseInsensitive: process.platform !== 'linux',
  });
  // The model's reads pass the same path guard as in VS Code (links out, hard links), overlay included.
  const guardOptions = { caseInsensitive: process.platform !== 'linux' };
  const reads = guardReads(workspace, options.workspace, nodeFs, guardOptions);
  const agent = new Agent({
    db,
    triggers,
    model: options.model,
    workspace: reads,
    clock,
    logger,
    storageDir: path.join(storeDir, 'agent'),
    skillDirs: options.skillDirs,
    workspaceRules: () => reads.readFile('AGENTS.md').catch(() => undefined),
    settings: () => ({ maxActionsPerTask: 500, maxTokensPerTask: 50_000_000, ...(options.modelPrices ? { modelPrices: options.modelPrices } : {}) }),
    actions: editActions,
    hooks: runner,
  });
  built.agent = agent;
  try {
    await agent.whenReady();
    await runner.attach(agent);
    const approvals = approvePending(agent, changeSets, decider, logger);
    agent.start();
    const ended = lastRunOf(options.chore.id, runLog, triggers, agent);
    await runner.fire(options.chore.id, 'manual', 'command line');
    const run = await ended;
    await approvals.settled();
    const changes = await workspace.changes();
    return {
      result: {
        runId: run.runId,
        choreId: run.choreId,
        status: run.status,
        reason: run.reason,
        usage: run.usage,
        steps: run.steps.map((s) => ({ name: s.name, status: s.status, durationMs: s.durationMs })),
        changedFiles: changes.map((c) => c.path),
      },
      patch: unifiedDiff(changes),
    };
  } finally {
    runner.dispose();
    await agent.shutdown();
    await triggers.close();
    await db.close();
    if (ownStore) fs.rmSync(storeDir, { recursive: true, force: true });
  }
}

/**
 * Approves every pending proposal into the overlay as soon as the agent's state changes. A chore
 * turn that proposed edits waits for its decision like in VS Code; the decision here is "into the
 * patch", and the task wakes with the applied files as it would after a person's approval.
 */
function approvePending(agent: Agent, store: DbChangeSetStore, decider: ChangeSetDecider, logger: Logger): { settled(): Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  const sweep = async () => {
    for (const set of await store.list({ status: 'pending' })) {
      try {
        await decider.approve(set.id);
        logger.info('CHORE', `change set ${set.id} (${set.files.map((f) => f.path).join(', ')}) went into the patch`);
      } catch (error) {
        logger.warn('CHORE', `change set ${set.id} could not go into the patch: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  const subscription = agent.onDidChange(() => {
    chain = chain.then(sweep, sweep);
  });
  return {
    async settled() {
      subscription.dispose();
      await chain;
    },
  };
}

/** Resolves with the fire's last run once it has ended and no retry of it is still queued. */
function lastRunOf(choreId: string, runLog: ChoreRunLog, triggers: Pick<TriggerStore, 'pending'>, agent: Agent): Promise<ChoreRunRecord> {
  return new Promise((resolve) => {
    const check = () => {
      const run = runLog.history(choreId)[0];
      if (!run || run.status === 'running') return;
      // A retry is a trigger in the chore's session: the fire is over when none is left. The
      // retry may be queued just after the run's end is written, so settled triggers look again.
      if (triggers.pending(`chore:${choreId}`).length > 0) return;
      unsubscribe();
      settled.dispose();
      resolve(run);
    };
    const unsubscribe = runLog.onDidChange(check);
    const settled = agent.onDidSettle(check);
  });
}
