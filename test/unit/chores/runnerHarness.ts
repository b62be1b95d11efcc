/**
 * Chore runner test harness: the real durable store, the real Agent with the runner's hooks, the
 * real SDK client against the scripted model server, a fake clock and in-memory schedule/run logs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Ledger } from '../../../src/core/actions/ledger';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { ChoreRunner } from '../../../src/core/chores/choreRunner';
import type { ChoreRunnerOptions } from '../../../src/core/chores/choreRunner';
import { ChoreRunLog, InMemoryRunPersistence } from '../../../src/core/chores/runLog';
import type { ChoreRunRecord } from '../../../src/core/chores/runLog';
import type { ChoreDefinition } from '../../../src/core/chores/types';
import { Agent } from '../../../src/core/engine/agent';
import type { AgentDeps } from '../../../src/core/engine/agent';
import { openDurableDb } from '../../../src/core/store/durableDb';
import type { OpenedDurableDb } from '../../../src/core/store/durableDb';
import { createTriggerStore } from '../../../src/core/store/triggerStore';
import type { StartingTriggerStore } from '../../../src/core/store/triggerStore';
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
  idle(): Promise<void>;
  /** Waits until the chore's newest run has ended and returns it. */
  ended(choreId: string): Promise<ChoreRunRecord>;
  close(): Promise<void>;
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
  agentExtra: Pick<AgentDeps, 'actions'> = {},
): Promise<RunnerHarness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-chores-'));
  const clock = new FakeClock();
  const logger = new MemoryLogger();
  const db = await openDurableDb({ dir: path.join(dir, 'store'), sqlJs: await sqlJs(), clock, lease: { recheckMs: 20 } });
  const triggers = await createTriggerStore(db, { clock, logger, random: () => 0.5 });
  const runLog = new ChoreRunLog(new InMemoryRunPersistence(), clock);
  const done: Array<[string, number]> = [];
  const runner = new ChoreRunner({
    triggers,
    runLog,
    scheduler: { markDone: async (id, at) => void done.push([id, at]) },
    clock,
    logger,
    secrets: { getSecret: async () => undefined },
    ledger: new Ledger(db, clock),
    ...extra,
  });
  runner.setChores(chores);
  const agent = new Agent({
    db,
    triggers,
    model: modelFactory('openai', server),
    workspace: new MemoryWorkspace({ 'CHANGELOG.md': '# Changelog\n', 'src/app.ts': 'export const answer = 42;\n' }),
    clock,
    logger,
    storageDir: path.join(dir, 'agent'),
    skillDirs: [],
    settings: () => ({ maxActionsPerTask: 200, maxTokensPerTask: 50_000_000 }),
    hooks: runner,
    ...agentExtra,
  });
  await agent.whenReady();
  await runner.attach(agent);
  agent.start();
  const idle = () => waitForIdle(triggers, agent, clock);
  const ended = async (choreId: string) => {
    for (let i = 0; i < 400; i++) {
      const run = runLog.history(choreId)[0];
      if (run && run.status !== 'running') return run;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`no run of ${choreId} ended; runs: ${JSON.stringify(runLog.history(choreId).map((r) => r.status))}`);
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
      runner.dispose();
      await agent.shutdown();
      await triggers.close();
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
