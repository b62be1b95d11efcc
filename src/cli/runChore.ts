/**
 * `tasklane chores run <id>`: one fire of a chore, headless, with the same engine, store, budgets,
 * successWhen, failure policy and escalation as in VS Code. What differs is the host:
 *  - the workspace is the folder on disk seen through an overlay: an edit the run proposes is
 *    approved into the overlay at once (nobody is at a CI machine to review it) and leaves as one
 *    unified diff, so the working tree is never touched and a person reviews the patch instead;
 *  - only the chore's declared commands run, and only its declared MCP tools, on servers started
 *    here (no terminal, no allowlist to consult, no VS Code tasks);
 *  - the model comes from TASKLANE_MODEL_* variables, secrets from TASKLANE_SECRET_<NAME>.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChangeSetDecider } from '../core/approval/changes/changeSetDecider';
import type { ChangeSetStore } from '../core/approval/changes/changeSetStore';
import type { ChoreRunner } from '../core/chores/choreRunner';
import type { ChoreRunLog, ChoreRunRecord, ChoreStep } from '../core/chores/runLog';
import type { ChoreDefinition } from '../core/chores/types';
import type { Agent } from '../core/engine/agent';
import type { Logger } from '../core/ports';
import type { TriggerStore } from '../core/store/types';
import { openCliEngine } from './cliEngine';
import type { CliEngineOptions } from './cliEngine';
import { unifiedDiff } from './patch';
import { parkedRunOf } from '../core/chores/budgetPause';
import { UsageError } from './environment';
import { restoreParkedEdits, saveParkedEdits, storeHash } from './parkedStore';

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
  /** The last round of the chore's `verify:` checks; present when the chore declares checks, empty when none ran. */
  verify?: Array<{ command: string; exitCode: number | null; durationMs: number; ok: boolean; problem?: string }>;
  /** Rounds of checks the run used. */
  checkRounds?: number;
  /**
   * Set when the run parked at its budget (status `budget_exhausted`, the run itself still open in
   * the kept store): the store's hash a `--resume` must be given (parkedStore.ts).
   */
  parked?: { storeHash: string };
}

/** A CLI engine's options (cliEngine.ts), with the chore to fire; the store is a temp folder unless given. */
export interface RunChoreOptions extends Omit<CliEngineOptions, 'storeDir' | 'maxCommandMs' | 'commandNetwork'> {
  chore: ChoreDefinition;
  /** Every loaded chore (the runner knows them all; only `chore` fires). */
  chores: ChoreDefinition[];
  /** Where the store lives; default a temp folder removed afterwards. */
  storeDir?: string;
  /**
   * Continue the chore's run parked in `storeDir` (its hash already checked, parkedStore.ts)
   * instead of firing a new one. A run in a kept store parks at its budget either way.
   */
  resume?: boolean;
  /** On CI: `storeDir` is kept only when the run parks (it is uploaded with the run's artifact); otherwise removed. */
  storeOnlyIfParked?: boolean;
}

/** Runs the fire to its end (retries included) and returns the last run, the patch text and the task's final output. */
export async function runChoreOnce(
  options: RunChoreOptions,
): Promise<{ result: CliRunResult; patch: string; output?: Record<string, unknown>; trace: ChoreStep[] }> {
  const ownStore = options.storeDir === undefined;
  const storeDir = options.storeDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cli-'));
  const { logger, redactor } = options;
  // Parking needs the store to outlive the process: only a kept store (--store) parks.
  const park = !ownStore;
  const { engine, workspace, triggers, mcp } = await openCliEngine({
    ...options,
    storeDir,
    parkAtBudget: park,
    maxCommandMs: options.chore.budget.maxSeconds * 1000,
    ...(options.chore.network?.length ? { commandNetwork: true } : {}),
    ...(options.chore.outputs ? { outputs: options.chore.outputs } : {}),
  });
  const { agent } = engine;
  const { runner, runLog } = engine.chores;
  const { changeSets } = engine;
  runner.setChores(options.chores);
  const since = Date.now();
  const outcome = await (async () => {
    try {
      await agent.whenReady();
      await runner.attach(agent);
      const approvals = approvePending(agent, changeSets.store, changeSets.decider, logger);
      if (options.resume) restoreParkedEdits(storeDir, workspace);
      engine.start();
      const ended = lastRunOf(options.chore.id, runner, runLog, triggers, agent, park ? since : undefined);
      if (options.resume) await continueParked(options.chore.id, runLog, agent);
      else await runner.fire(options.chore.id, 'manual', 'command line');
      const run = await ended;
      // What the run's end started on its own (cancelling its task, a notice) is done before the
      // store closes: "The Tasklane store is closed" must never cost an escalation.
      await runner.settled();
      await approvals.settled();
      const changes = await workspace.changes();
      if (run.parked) await saveParkedEdits(storeDir, workspace);
      const output = finalTaskOutput(agent, run.taskId);
      return {
        ...(output ? { output } : {}),
        trace: run.steps,
        result: {
          runId: run.runId,
          choreId: run.choreId,
          // A parked run is still open in its store; to the caller it ended at its budget, paused.
          status: run.parked ? 'budget_exhausted' : run.status,
          reason: run.parked ? run.parked.message : run.reason,
          ...(run.parked ? { parked: { storeHash: '' } } : {}),
          usage: run.usage,
          steps: run.steps.map((s) => ({ name: s.name, status: s.status, durationMs: s.durationMs })),
          changedFiles: changes.map((c) => c.path),
          ...(options.chore.verify?.length
            ? {
                verify: (run.verify ?? []).map(({ command, exitCode, durationMs, ok, problem }) => ({
                  command,
                  exitCode,
                  durationMs,
                  ok,
                  ...(problem ? { problem } : {}),
                })),
                checkRounds: run.checkRounds ?? 0,
              }
            : {}),
        },
        // A secret the run read can sit in a context line: the patch leaves redacted too.
        patch: redactor.redact(unifiedDiff(changes)),
      };
    } finally {
      await mcp.stop();
      await engine.shutdown();
      // The folder ends as the run found it: the run's edits leave only as the patch.
      await workspace.restore();
      if (ownStore) fs.rmSync(storeDir, { recursive: true, force: true });
    }
  })();
  // Hashed once the store is closed: exactly what a resume will open.
  if (outcome.result.parked) outcome.result.parked.storeHash = storeHash(storeDir);
  else if (options.storeOnlyIfParked) fs.rmSync(storeDir, { recursive: true, force: true });
  return outcome;
}

/** Continues the task of the chore's parked run; its guard raises the limits (budgetPause.ts resumedLimits). */
async function continueParked(choreId: string, runLog: ChoreRunLog, agent: Agent): Promise<void> {
  const run = parkedRunOf(runLog, choreId);
  if (!run) throw new UsageError(`--resume: the store holds no run of ${choreId} paused at budget (it ended, or is another chore's); start a new run instead.`);
  await agent.continueTask(run.taskId);
}

/** The JSON object the run's task handed to task_end (what successWhen judged; on CI, the proposed outputs). */
function finalTaskOutput(agent: Agent, taskId: string | undefined): Record<string, unknown> | undefined {
  return taskId ? agent.views.snapshot().tasks.find((t) => t.id === taskId)?.output : undefined;
}

/**
 * Approves every pending proposal into the overlay as soon as the agent's state changes. A chore
 * turn that proposed edits waits for its decision like in VS Code; the decision here is "into the
 * patch", and the task wakes with the applied files as it would after a person's approval.
 */
function approvePending(agent: Agent, store: ChangeSetStore, decider: ChangeSetDecider, logger: Logger): { settled(): Promise<void> } {
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
  const subscription = agent.views.onDidChange(() => {
    chain = chain.then(sweep, sweep);
  });
  return {
    async settled() {
      subscription.dispose();
      await chain;
    },
  };
}

/**
 * Resolves with the fire's last run once it has ended (the runner says so after its failure policy,
 * escalation included, and the fire's release: the record alone is written before them) and no
 * retry of it is still queued.
 */
function lastRunOf(
  choreId: string,
  runner: Pick<ChoreRunner, 'onRunEnded'>,
  runLog: ChoreRunLog,
  triggers: Pick<TriggerStore, 'pending'>,
  agent: Agent,
  parkedSince?: number,
): Promise<ChoreRunRecord> {
  const told = new Set<string>();
  return new Promise((resolve) => {
    const check = () => {
      const run = runLog.history(choreId)[0];
      // A run that parked during this process (not the park a resume starts from) is this fire's end too.
      const parked = parkedSince !== undefined && run?.status === 'running' && run.parked !== undefined && run.parked.at >= parkedSince;
      if (!run || (!parked && (run.status === 'running' || !told.has(run.runId)))) return;
      // A retry is a trigger in the chore's session: the fire is over when none is left. The
      // retry may be queued just after the run's end is written, so settled triggers look again.
      if (triggers.pending(`chore:${choreId}`).length > 0) return;
      unsubscribe();
      settled.dispose();
      changed();
      resolve(run);
    };
    const changed = runLog.onDidChange(check);
    const ends = runner.onRunEnded((run) => {
      told.add(run.runId);
      check();
    });
    const unsubscribe = () => ends.dispose();
    const settled = agent.onDidSettle(check);
  });
}
