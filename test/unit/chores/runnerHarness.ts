/**
 * Chore runner test harness: the real durable store (the run log in it, as in production), the
 * real Agent with the runner's hooks, the real SDK client against the scripted model server, and a
 * fake clock. Waits are exact: the engine's idle signals and the runner's own (`onRunEnded`, `settled`).
 *
 * These are the ChoreRunner's own unit tests, so the runner is built here, not through
 * createEngine (src/core/createEngine.ts): a test injects what the engine would fix (a gated
 * ledger, a spend ledger on its own clock, a scheduler that records `markDone`). The runner and
 * the agent still share one ledger, as the engine wires them.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Ledger } from '../../../src/core/actions/ledger';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { ChoreRunner } from '../../../src/core/chores/choreRunner';
import type { ChoreRunnerOptions } from '../../../src/core/chores/choreRunner';
import { ChoreRunLog, DbRunPersistence } from '../../../src/core/chores/runLog';
import type { ChoreRunRecord } from '../../../src/core/chores/runLog';
import type { ChoreDefinition } from '../../../src/core/chores/types';
import { createAgent } from '../../../src/core/engine/agent';
import type { Agent } from '../../../src/core/engine/agent';
import type { AgentDeps } from '../../../src/core/engine/agent';
import { openDurableDb } from '../../../src/core/store/durableDb';
import type { OpenedDurableDb } from '../../../src/core/store/durableDb';
import { createTriggerStore } from '../../../src/core/store/triggerStore';
import type { StartingTriggerStore } from '../../../src/core/store/triggerStore';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { FakeClock } from '../../fakes/fakeClock';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';
import { modelFactory, waitForIdle } from '../engine/harness';
import { sqlJs } from '../store/helpers';

export interface RunnerHarness {
  agent: Agent;
  runner: ChoreRunner;
  runLog: ChoreRunLog;
  clock: FakeClock;
  triggers: StartingTriggerStore;
  db: OpenedDurableDb;
  logger: MemoryLogger;
  /** The agent's storage folder (EVENT.md, MEMORY.md…). */
  storageDir: string;
  /** Fires the runner marked done (chore id and fire time). */
  done: Array<[string, number]>;
  /** Waits until the engine has nothing to do until time moves and the runner has no work of its own in flight. */
  idle(): Promise<void>;
  /** Waits until the chore's newest run has ended (its failure policy applied, its fire released) and returns it. */
  ended(choreId: string): Promise<ChoreRunRecord>;
  close(): Promise<void>;
  /** Shuts this harness down keeping its storage, and opens a new one on it (a reload of VS Code). */
  reopen(): Promise<RunnerHarness>;
}

/** Parses chores.yaml text and fails the test on any error, so a fixture typo is loud. */
export function choresFrom(yaml: string): ChoreDefinition[] {
  const parsed = parseChoresFile(yaml);
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) throw new Error(`fixture chores.yaml is invalid: ${errors.map((e) => `${e.line}: ${e.message}`).join('; ')}`);
  return parsed.chores;
}

export async function createRunnerHarness(
  server: ModelServer,
  chores: ChoreDefinition[],
  extra: Partial<ChoreRunnerOptions> = {},
  agentExtra: Partial<Pick<AgentDeps, 'actions' | 'model' | 'settings'>> = {},
  reuse?: { dir: string; clock: FakeClock },
): Promise<RunnerHarness> {
  const dir = reuse?.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-chores-'));
  const clock = reuse?.clock ?? new FakeClock();
  const logger = new MemoryLogger();
  const db = await openDurableDb({ dir: path.join(dir, 'store'), sqlJs: await sqlJs(), clock, lease: { recheckMs: 20 } });
  const triggers = await createTriggerStore(db, { clock, logger, random: () => 0.5 });
  const runLog = new ChoreRunLog(new DbRunPersistence(db), clock);
  // One ledger for the runner and the agent, as createEngine (src/core/createEngine.ts) wires it.
  const ledger = new Ledger(db, clock);
  const done: Array<[string, number]> = [];
  const runner = new ChoreRunner({
    triggers,
    runLog,
    scheduler: { markDone: async (id, at) => void done.push([id, at]) },
    clock,
    logger,
    secrets: { getSecret: async () => undefined },
    ledger,
    ...extra,
  });
  runner.setChores(chores);
  const agent = createAgent({
    db,
    triggers,
    model: agentExtra.model ?? modelFactory('openai', server),
    workspace: new MemoryWorkspace({ 'CHANGELOG.md': '# Changelog\n', 'src/app.ts': 'export const answer = 42;\n' }),
    clock,
    logger,
    storageDir: path.join(dir, 'agent'),
    skillDirs: [],
    settings: agentExtra.settings ?? (() => ({ maxActionsPerTask: 200, maxTokensPerTask: 50_000_000 })),
    hooks: runner,
    ledger,
    ...(agentExtra.actions ? { actions: agentExtra.actions } : {}),
  });
  await agent.whenReady();
  await runner.attach(agent);
  agent.start();
  // A turn can start runner work (a run's end) and that work can queue more turns (a retry, a
  // cancel): idle once neither has anything left.
  const idle = async () => {
    do {
      await waitForIdle(triggers, agent, clock);
      await runner.settled();
    } while (agent.inTurn || triggers.pending().some((t) => t.status === 'claimed' || t.fireAt <= clock.now()));
  };
  const endedRuns = new Set<string>();
  runner.onRunEnded((run) => endedRuns.add(run.runId));
  const ended = (choreId: string) =>
    new Promise<ChoreRunRecord>((resolve) => {
      const check = () => {
        const run = runLog.history(choreId)[0];
        if (!run || !endedRuns.has(run.runId)) return;
        watching.dispose();
        resolve(run);
      };
      const watching = runner.onRunEnded(check);
      check();
    });
  let closed = false;
  const shutdown = async () => {
    closed = true;
    runner.dispose();
    await agent.shutdown();
    await triggers.close();
    await db.close();
  };
  return {
    agent,
    runner,
    runLog,
    clock,
    triggers,
    db,
    logger,
    storageDir: path.join(dir, 'agent'),
    done,
    idle,
    ended,
    close: async () => {
      if (closed) return;
      await shutdown();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    reopen: async () => {
      if (!closed) await shutdown();
      return createRunnerHarness(server, chores, extra, agentExtra, { dir, clock });
    },
  };
}

/** Builds a harness for one test (see {@link useRunnerHarness}). */
export type OpenRunnerHarness = (
  chores: ChoreDefinition[],
  extra?: Partial<ChoreRunnerOptions>,
  agentExtra?: Partial<Pick<AgentDeps, 'actions' | 'model' | 'settings'>>,
) => Promise<RunnerHarness>;

/**
 * Registers the mocha hooks every chore-runner suite needs: one scripted model server per suite
 * (handed to `setServer` once it listens; reset before each test) and the harnesses a test opens,
 * closed after it. Returns `open`, which builds a harness over `chores`, closing the one the test
 * opened before.
 */
export function useRunnerHarness(setServer: (server: ModelServer) => void): OpenRunnerHarness {
  let server: ModelServer;
  let current: RunnerHarness | undefined;
  before(async () => {
    server = await startModelServer();
    setServer(server);
  });
  after(async () => server.close());
  beforeEach(() => server.reset());
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return async (chores, extra = {}, agentExtra = {}) => {
    await current?.close();
    current = await createRunnerHarness(server, chores, extra, agentExtra);
    return current;
  };
}
