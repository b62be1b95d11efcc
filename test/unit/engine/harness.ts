/**
 * Engine test harness: the real durable store (sql.js + journal) in a temp dir, the real SDK
 * clients against the scripted model server, in-memory workspace, a fake clock.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createEngine } from '../../../src/core/createEngine';
import type { Engine, EngineAdapters } from '../../../src/core/createEngine';
import type { Agent } from '../../../src/core/engine/agent';
import { Redactor } from '../../../src/core/security/redact';
import type { AgentChange, AgentSettings } from '../../../src/core/engine/types';
import { createModelClient } from '../../../src/core/model/createModelClient';
import type { ModelClient } from '../../../src/core/model/types';
import { openDurableDb } from '../../../src/core/store/durableDb';
import type { OpenedDurableDb } from '../../../src/core/store/durableDb';
import { createTriggerStore } from '../../../src/core/store/triggerStore';
import type { StartingTriggerStore } from '../../../src/core/store/triggerStore';
import type { JournalIo } from '../../../src/core/store/storeFiles';
import type { TriggerStore } from '../../../src/core/store/types';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { FakeClock } from '../../fakes/fakeClock';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';
import { sqlJs } from '../store/helpers';

export type Wire = 'openai' | 'anthropic';
export const WIRES: Wire[] = ['openai', 'anthropic'];

export const BUILTIN_SKILLS = path.resolve(__dirname, '../../../skills');

export interface HarnessOptions {
  wire: Wire;
  server: ModelServer;
  files?: Record<string, string>;
  settings?: Partial<AgentSettings>;
  skillDirs?: string[];
  rules?: string;
  /** Replaces the model factory (e.g. to throw a missing-key error). */
  model?: () => Promise<ModelClient>;
  actions?: EngineAdapters['actions'];
  /** run_command / run_task through the engine's CommandService (`Harness.engine.commands`). */
  commands?: EngineAdapters['commands'];
  /** The sets the host adds (a trusted MCP server each). */
  grantableSets?: EngineAdapters['grantableSets'];
  /** The host's side of its MCP servers; the engine builds them (needs `commands`). */
  mcp?: EngineAdapters['mcp'];
  /** The proactive planner's host side (`Harness.engine.planner`). */
  planner?: EngineAdapters['planner'];
  /** The chores part's host side (`Harness.engine.chores`). */
  chores?: EngineAdapters['chores'];
  /** Supervisors of every task besides the chore runner (the workspace's checks). */
  taskHooks?: EngineAdapters['taskHooks'];
  /** Reuse a storage dir (restart). */
  dir?: string;
  clock?: FakeClock;
  /** The journal's writes (a test stops the world around one of them). */
  journalIo?: JournalIo;
  /** Leave the consumer loop stopped (a crash worker that only sends). */
  noStart?: boolean;
}

export interface Harness {
  engine: Engine;
  agent: Agent;
  clock: FakeClock;
  dir: string;
  db: OpenedDurableDb;
  triggers: StartingTriggerStore;
  workspace: MemoryWorkspace;
  logger: MemoryLogger;
  changes: AgentChange[];
  /** Waits until no trigger is due or running. */
  idle(): Promise<void>;
  /** Stops the agent and closes the store, keeping the dir (to reopen it). */
  shutdown(): Promise<void>;
  close(): Promise<void>;
}

export function modelFactory(wire: Wire, server: ModelServer): () => Promise<ModelClient> {
  return async () =>
    createModelClient({
      provider: wire,
      baseUrl: wire === 'openai' ? server.openaiBaseUrl : server.anthropicBaseUrl,
      apiKey: 'test-key',
      model: wire === 'openai' ? 'gpt-5-mini' : 'claude-sonnet-4-6',
      maxRetries: 0,
      // The scripted model answers at once; no test here is about a stall (test/unit/model is).
      // A loaded 2-core machine has taken over 5 s for a first answer, so the bound is generous.
      timeoutMs: 60_000,
    });
}

/**
 * Waits until the agent's consumer loop has nothing to do until time moves: no trigger is claimed
 * or due on the fake clock (the store's `drained`) and the loop holds none (`onDidSettle`). Both
 * are exact signals: nothing here looks at a wall clock.
 */
export async function waitForIdle(triggers: Pick<TriggerStore, 'drained'>, agent: Pick<Agent, 'inTurn' | 'onDidSettle'>, clock: FakeClock): Promise<void> {
  for (;;) {
    await triggers.drained(clock.now());
    // Drained from the ack on; the loop has settled once it has also told its listeners.
    if (!agent.inTurn) return;
    await new Promise<void>((resolve) => {
      const once = agent.onDidSettle(() => {
        once.dispose();
        resolve();
      });
    });
  }
}

export async function createHarness(options: HarnessOptions): Promise<Harness> {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-engine-'));
  const clock = options.clock ?? new FakeClock();
  const logger = new MemoryLogger();
  const db = await openDurableDb({
    dir: path.join(dir, 'store'),
    sqlJs: await sqlJs(),
    clock,
    lease: { recheckMs: 20 },
    ...(options.journalIo ? { io: options.journalIo } : {}),
  });
  const triggers = await createTriggerStore(db, { clock, logger, random: () => 0.5 });
  const workspace = new MemoryWorkspace(options.files ?? { 'README.md': '# Demo\nHello.\n', 'src/app.ts': 'export const answer = 42;\n' });
  const settings: AgentSettings = { maxActionsPerTask: 50, maxTokensPerTask: 1_000_000, ...options.settings };
  // The graph as every host builds it (src/core/createEngine.ts); no edits; chores when asked.
  const engine = await createEngine({
    db,
    triggers,
    model: options.model ?? modelFactory(options.wire, options.server),
    trusted: () => true,
    redactor: new Redactor(),
    workspace,
    clock,
    logger,
    storageDir: path.join(dir, 'agent'),
    skillDirs: options.skillDirs ?? [BUILTIN_SKILLS],
    workspaceRules: async () => options.rules,
    settings: () => settings,
    ...(options.actions ? { actions: options.actions } : {}),
    ...(options.commands ? { commands: options.commands } : {}),
    ...(options.grantableSets ? { grantableSets: options.grantableSets } : {}),
    ...(options.mcp ? { mcp: options.mcp } : {}),
    ...(options.planner ? { planner: options.planner } : {}),
    ...(options.chores ? { chores: options.chores } : {}),
    ...(options.taskHooks ? { taskHooks: options.taskHooks } : {}),
  });
  const { agent } = engine;
  const changes: AgentChange[] = [];
  agent.views.onDidChange((c) => changes.push(c));
  await agent.whenReady();
  if (!options.noStart) agent.start();
  let running = true;
  const idle = () => waitForIdle(triggers, agent, clock);
  const shutdown = async () => {
    if (!running) return;
    running = false;
    await agent.shutdown();
    await triggers.close();
    await db.close();
  };
  return {
    engine,
    agent,
    clock,
    dir,
    db,
    triggers,
    workspace,
    logger,
    changes,
    idle,
    shutdown,
    close: async () => {
      await shutdown();
      if (!options.dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Where engineHooks hands over what it makes; the suite keeps them in its own variables. */
export interface EngineHookSlots {
  /** Receives the suite's scripted model server once it listens. */
  setServer(server: ModelServer): void;
  /** Receives each test's fresh harness. */
  setHarness(h: Harness): void;
  /** The harness to close after a test: a test may have closed the fresh one and opened another. */
  harness(): Harness;
}

/**
 * Registers the mocha hooks every engine suite needs: one scripted model server per suite (its
 * script and request log reset before each test) and a fresh harness per test, closed after it.
 * `open` builds the harness when the suite needs options (default: the wire and server alone).
 */
export function engineHooks(wire: Wire, slots: EngineHookSlots, open?: (server: ModelServer) => Promise<Harness>): void {
  let server: ModelServer;
  before(async () => {
    server = await startModelServer();
    slots.setServer(server);
  });
  after(async () => server.close());
  beforeEach(async () => {
    server.reset();
    slots.setHarness(await (open ? open(server) : createHarness({ wire, server })));
  });
  afterEach(async () => slots.harness().close());
}

/** Reads a file under the agent's storage dir. */
export function agentFile(h: Harness, name: string): string {
  return fs.readFileSync(path.join(h.dir, 'agent', name), 'utf8');
}
