/**
 * The engine's object graph, built in one place. Every host (the VS Code extension, the command
 * line, the test harnesses) opens its store, makes its adapters (ports) and calls `createEngine`;
 * none builds a core service itself, so they cannot wire it differently (the ledger is one, the
 * redactor reaches every writer, a stopped task stops its commands everywhere).
 *
 * What a host adds on top is presentation (cards, views, palette commands) and its event sources
 * (file watchers, chores.yaml, the terminal). Read docs/ARCHITECTURE.md, "Composition".
 */
import type { GrantableSet } from './actions/actionSets';
import { codeActions } from './actions/codeActions';
import { gitActions } from './actions/gitActions';
import { Ledger } from './actions/ledger';
import type { ActionDef } from './actions/types';
import type { ChangeSet } from './approval/changeSet';
import { ChangeSetDecider } from './approval/changeSetDecider';
import { DbChangeSetStore } from './approval/changeSetStore';
import type { ChangeSetStore } from './approval/changeSetStore';
import { guardRestricted } from './approval/commandActions';
import { commandActions } from './approval/commandActions';
import { DbCommandApprovalStore } from './approval/commandApproval';
import type { CommandApproval } from './approval/commandApproval';
import { CommandService } from './approval/commandService';
import type { CommandGate, CommandRunner, McpCallPort } from './approval/commandService';
import { createEditActions } from './approval/editActions';
import type { EditApplier } from './approval/editPorts';
import { applyTimeGuard } from './approval/editTarget';
import { nodeFs } from './approval/nodeFs';
import type { EditPolicyOptions } from './approval/sensitivePaths';
import { ChoreRunner } from './chores/choreRunner';
import type { CodeIntelPort } from './codeIntel/codeIntelPort';
import type { GitReader } from './git/readOnlyGit';
import { DbPlannerPersistence, Planner } from './planner/planner';
import type { PlannerSettings, PlannerSignal } from './planner/planner';
import { problemsAfterApply } from './codeIntel/problemsAfterApply';
import { ChoreScheduler } from './chores/choreScheduler';
import type { SecretPort } from './chores/escalation';
import type { ChoreDefinition, EscalationChannels } from './chores/types';
import type { ReviewLinkPort } from './chores/reviewNotice';
import { ChoreRunLog, DbRunPersistence } from './chores/runLog';
import { DbSchedulePersistence } from './chores/schedulePersistence';
import { ChoreSpendLedger, DbSpendPersistence } from './chores/spendLedger';
import type { WorkspaceSpendLimits } from './chores/spendLedger';
import { createAgent } from './engine/agent';
import type { Agent } from './engine/agent';
import { composeTaskHooks } from './engine/composeTaskHooks';
import { choreIdOf } from './engine/records';
import type { AgentSettings } from './engine/types';
import type { ModelClient } from './model/types';
import type { Clock, Logger, WorkspacePort, WorkspaceReader } from './ports';
import type { Redactor } from './security/redact';
import type { DurableDb, TriggerStore } from './store/types';

/** Windows and macOS (by default) ignore case in paths: the guards compare accordingly. */
const caseInsensitive = process.platform !== 'linux';

/** Where edits are proposed, reviewed and applied. */
export interface EditAdapters {
  /** False when no folder is open: nothing for the model to edit, so no edit actions. */
  offered: boolean;
  /** Absolute path of the workspace root the path guard resolves against. */
  root: string;
  /** The one reading of the workspace (a host may put unsaved editor text first). */
  files: WorkspaceReader;
  /** Where an approved set is written (the editor's buffers, or an overlay). */
  applier: EditApplier;
  /** Read at each edit (user settings only). */
  policy: () => EditPolicyOptions;
  /** Undefined when edits are allowed, otherwise why not, written for the model (Restricted Mode). */
  blocked?: () => string | undefined;
}

/** How run_command / run_task run and who may run them. Absent: no command actions. */
export interface CommandAdapters {
  runner: CommandRunner;
  gate: CommandGate;
  /** MCP tool calls share the command approvals (cards, ledger, wake-up). */
  mcp?: McpCallPort;
}

/** The host's say over chore runs. */
export interface ChoreAdapters {
  /** Named chore secrets (escalation channels); every value read is added to the redactor. */
  secrets: SecretPort;
  workspaceName?: string;
  /** Why a chore may not run now (consent, a master switch), asked at claim and before each step. */
  blocked?: (choreId: string) => string | undefined;
  /** The caps across chores, read at each check. */
  workspaceLimits?: () => WorkspaceSpendLimits;
  /** Links to approvals for runs parked on a review; without them no review notice is sent. */
  reviewLinks?: ReviewLinkPort;
  /** A link that opens a run where it ran (VS Code's run link, the CI run page); every escalation carries it. */
  runLink?: (runId: string) => Promise<string | undefined>;
  /** The person's default escalation channel, for chores that name none (VS Code's tasklane.chores.escalate). */
  defaultEscalation?: () => EscalationChannels | undefined;
  /** Cron schedules are kept (VS Code); the command line fires once and keeps none. */
  schedule?: boolean;
  /** Readies what a run needs before its task starts (the command line starts the chore's MCP servers); a throw fails the run. */
  prepare?: (chore: ChoreDefinition) => Promise<void>;
}

/** The ports a host gives the engine. */
export interface EngineAdapters {
  db: DurableDb;
  triggers: TriggerStore;
  clock: Clock;
  logger: Logger;
  /** Event logs, EVENT.md, MEMORY.md, TASK_HISTORY.md and scratch folders live here. */
  storageDir: string;
  /** Resolved per turn. */
  model: () => Promise<ModelClient>;
  /** Workspace Trust, read at each use; an untrusted workspace only chats. */
  trusted: () => boolean;
  /** The one redactor: every writer of streams, traces, run records and payloads uses it. */
  redactor: Redactor;
  /** What the model reads (path-guarded). */
  workspace: WorkspacePort;
  /** Built-in skills first, then the workspace's. */
  skillDirs: string[];
  /** AGENTS.md. */
  workspaceRules?: () => Promise<string | undefined>;
  settings: () => AgentSettings;
  /** Absent: no change sets and no edit actions (a chat-only engine, some tests). */
  edits?: EditAdapters;
  /** Absent: no command actions. */
  commands?: CommandAdapters;
  /** Absent: no chore runner (a chore fire then fails like any trigger nobody can handle). */
  chores?: ChoreAdapters;
  /** More actions next to commands and edits, withdrawn in Restricted Mode like them. */
  actions?: ActionDef[];
  /**
   * The sets a task can be granted besides files and commands, read at each request: one per MCP
   * server the person trusted (`McpServers.grantableSets`). Listed in the conversation and task
   * prompts, and the only `mcp:<server>` names task_start accepts. Absent: none.
   */
  grantableSets?: () => readonly GrantableSet[];
  /** The host's language features (VS Code); absent (the command line): no code actions. */
  codeIntel?: CodeIntelPort;
  /** The workspace's repository, read-only (`ReadOnlyGit`); absent: no git action. */
  git?: GitReader;
  /** The proactive planner's host side (VS Code); absent: no planner. */
  planner?: PlannerAdapters;
}

/** What the planner reads from its host. */
export interface PlannerAdapters {
  /** `tasklane.planner.enabled`, read at every tick. */
  enabled: () => boolean;
  settings: () => PlannerSettings;
  /** The signals of the workspace now (Problems, chores, paused tasks, recent commits). */
  signals: () => Promise<PlannerSignal[]>;
}

/** Change sets: the proposals, their decisions and a listener for every change. */
export interface EngineChangeSets {
  store: ChangeSetStore;
  decider: ChangeSetDecider;
  /** Every stored change of a set (proposed, grown, decided, applied). */
  onDidChange(listener: (changeSet: ChangeSet) => void): { dispose(): void };
}

/** The chore runner and what it keeps. */
export interface EngineChores {
  runner: ChoreRunner;
  runLog: ChoreRunLog;
  spend: ChoreSpendLedger;
  /** Only when `chores.schedule` was asked for. */
  scheduler?: ChoreScheduler;
}

/** The finished services. Nothing is running yet: the host attaches its parts, then calls `start`. */
export interface EngineCore {
  /** The one irreversible-action ledger: edits, commands, chores and the agent write to it. */
  ledger: Ledger;
  agent: Agent;
  /** Called for every change of a command approval (`undefined`: removed). */
  onDidChangeCommand(listener: (id: string, approval: CommandApproval | undefined) => void): { dispose(): void };
  redact: (text: string) => string;
  /** The chore a task works for (its own run, or by descent), else undefined. */
  choreOfTask(taskId: string): string | undefined;
  /** The proactive planner, when the host gave `planner`. */
  planner?: Planner;
  /** Starts the loop (once every host part is attached). */
  start(): void;
  /** Stops the loop and closes the store. */
  shutdown(): Promise<void>;
}

/**
 * The engine for `A`: change sets when `A` has `edits`, the command service when it has
 * `commands`, the chores when it has `chores`, so a host that gives an adapter gets its service
 * without checking for it.
 */
export type Engine<A extends EngineAdapters = EngineAdapters> = EngineCore &
  (A extends { edits: EditAdapters } ? { changeSets: EngineChangeSets } : { changeSets?: EngineChangeSets }) &
  (A extends { commands: CommandAdapters } ? { commands: CommandService } : { commands?: CommandService }) &
  (A extends { chores: ChoreAdapters } ? { chores: EngineChores } : { chores?: EngineChores });

function emitter<A extends unknown[]>() {
  const listeners = new Set<(...args: A) => void>();
  return {
    fire: (...args: A) => listeners.forEach((listener) => listener(...args)),
    on(listener: (...args: A) => void) {
      listeners.add(listener);
      return { dispose: () => void listeners.delete(listener) };
    },
  };
}

/**
 * Builds everything that needs the open store, in dependency order. Command approvals left open by
 * a previous run are settled before this resolves; the loop is not started (see `Engine.start`).
 */
export async function createEngine<A extends EngineAdapters>(adapters: A): Promise<Engine<A>> {
  const { db, triggers, clock, logger, trusted, redactor } = adapters;
  const redact = (text: string) => redactor.redact(text);
  const ledger = new Ledger(db, clock);
  // Tasks are asked about only when an action runs, by which time the agent exists.
  const late: { agent?: Agent; chores?: EngineChores } = {};
  const taskChore = (taskId: string) => {
    const task = late.agent?.views.snapshot().tasks.find((t) => t.id === taskId);
    return task ? choreIdOf(task) : undefined;
  };

  const edits = adapters.edits && buildChangeSets(adapters, adapters.edits, ledger, taskChore);
  const commandChanged = emitter<[string, CommandApproval | undefined]>();
  const commands = adapters.commands
    ? new CommandService({
        store: new DbCommandApprovalStore(db, clock),
        runner: adapters.commands.runner,
        ...(adapters.commands.mcp ? { mcp: adapters.commands.mcp } : {}),
        gate: declaringGate(
          adapters.commands.gate,
          (taskId) => {
            const choreId = taskChore(taskId);
            return (choreId && late.chores?.runner.declaredCommands(choreId)) || [];
          },
          (taskId) => {
            const choreId = taskChore(taskId);
            return (choreId && late.chores?.runner.declaredMcp(choreId)) || {};
          },
        ),
        ledger,
        triggers,
        clock,
        logger,
        onDidChange: commandChanged.fire,
      })
    : undefined;
  await commands?.recover();

  const chores = adapters.chores && buildChores(adapters, adapters.chores, ledger, redact);
  late.chores = chores;
  // Commands first, then edits: the order the tools have always been advertised in (a stable prefix).
  const actions: ActionDef[] = [
    ...(commands ? commandActions(commands) : []),
    ...(edits?.actions ?? []),
    ...(adapters.actions ?? []),
    // Read-only, after the others: a host without language features offers the same tools otherwise.
    ...(adapters.codeIntel ? codeActions(adapters.codeIntel) : []),
    ...(adapters.git ? gitActions(adapters.git, trusted) : []),
  ];
  const hooks = composeTaskHooks(chores ? [chores.runner] : []);
  const agent = createAgent({
    ...(hooks ? { hooks } : {}),
    db,
    triggers,
    ledger,
    model: adapters.model,
    workspace: adapters.workspace,
    clock,
    logger,
    // Restricted Mode: any of these that needs approval or is irreversible refuses in an untrusted workspace.
    actions: guardRestricted(actions, trusted),
    storageDir: adapters.storageDir,
    redact,
    trusted,
    skillDirs: adapters.skillDirs,
    ...(adapters.workspaceRules ? { workspaceRules: adapters.workspaceRules } : {}),
    ...(adapters.grantableSets ? { grantableSets: adapters.grantableSets } : {}),
    settings: adapters.settings,
  });
  late.agent = agent;
  // Cancel / Stop of a task also kills the approved command it runs and withdraws its pending ones.
  if (commands) agent.onTaskStopped((taskId) => commands.stopTask(taskId));

  const planner =
    adapters.planner &&
    new Planner({
      ...adapters.planner,
      model: adapters.model,
      persistence: new DbPlannerPersistence(db),
      triggers,
      clock,
      logger,
      redact,
      prices: () => adapters.settings().modelPrices,
    });
  const engine: Engine = {
    ledger,
    agent,
    ...(planner ? { planner } : {}),
    ...(edits ? { changeSets: edits.changeSets } : {}),
    ...(commands ? { commands } : {}),
    onDidChangeCommand: commandChanged.on,
    ...(chores ? { chores } : {}),
    redact,
    choreOfTask: taskChore,
    start: () => agent.start(),
    async shutdown() {
      chores?.runner.dispose();
      await agent.shutdown();
      await triggers.close();
      await db.close();
    },
  };
  // Each optional service above is present exactly when its adapters are (what Engine<A> says).
  return engine as Engine<A>;
}

function buildChores(adapters: EngineAdapters, options: ChoreAdapters, ledger: Ledger, redact: (text: string) => string): EngineChores {
  const { db, triggers, clock, logger, redactor } = adapters;
  const runLog = new ChoreRunLog(new DbRunPersistence(db, (message) => adapters.logger.error('CHORE', message)), clock);
  runLog.redact = redact;
  const spend = new ChoreSpendLedger(new DbSpendPersistence(db), () => clock.now());
  const late: { runner?: ChoreRunner } = {};
  const scheduler = options.schedule
    ? new ChoreScheduler({
        triggers,
        clock,
        persistence: new DbSchedulePersistence(db, () => clock.now()),
        logger,
        onDropped: async (id, dropped) => {
          await late.runner?.recordDropped(id, dropped);
        },
      })
    : undefined;
  const runner = new ChoreRunner({
    triggers,
    runLog,
    ...(scheduler ? { scheduler } : {}),
    clock,
    logger,
    // A secret a chore reads is redacted wherever the run is written down.
    secrets: {
      getSecret: async (name) => {
        const value = await options.secrets.getSecret(name);
        redactor.addSecret(value);
        return value;
      },
    },
    redact,
    ledger,
    canRun: adapters.trusted,
    spend,
    ...(options.workspaceLimits ? { workspaceLimits: options.workspaceLimits } : {}),
    ...(options.blocked ? { blocked: options.blocked } : {}),
    ...(options.workspaceName !== undefined ? { workspaceName: options.workspaceName } : {}),
    ...(options.reviewLinks ? { reviewLinks: options.reviewLinks } : {}),
    ...(options.runLink ? { runLink: options.runLink } : {}),
    ...(options.defaultEscalation ? { defaultEscalation: options.defaultEscalation } : {}),
    ...(options.prepare ? { prepare: options.prepare } : {}),
  });
  late.runner = runner;
  return { runner, runLog, spend, ...(scheduler ? { scheduler } : {}) };
}

function buildChangeSets(
  adapters: EngineAdapters,
  edits: EditAdapters,
  ledger: Ledger,
  taskChore: (taskId: string) => string | undefined,
): { changeSets: EngineChangeSets; actions: ActionDef[] } {
  const { db, triggers, clock, logger } = adapters;
  const changed = emitter<[ChangeSet]>();
  const store = new DbChangeSetStore(db, clock);
  const decider = new ChangeSetDecider({
    store,
    files: edits.files,
    applier: edits.applier,
    ledger,
    durable: () => db.durable,
    triggers,
    logger,
    onChange: changed.fire,
    // The guard again at apply time: a folder swapped for a link since the proposal is refused.
    recheck: applyTimeGuard(edits.root, nodeFs, { caseInsensitive }),
    ...(adapters.codeIntel ? { problems: problemsAfterApply(adapters.codeIntel) } : {}),
  });
  const actions = edits.offered
    ? createEditActions({
        root: edits.root,
        fs: nodeFs,
        caseInsensitive,
        files: edits.files,
        store,
        decider,
        clock,
        policy: edits.policy,
        taskChore,
        ...(edits.blocked ? { editBlocked: edits.blocked } : {}),
        // The language server's rename, proposed like any edit (VS Code; the command line has none).
        ...(adapters.codeIntel?.rename ? { rename: adapters.codeIntel.rename.bind(adapters.codeIntel) } : {}),
        onProposed: (changeSet) => changed.fire(changeSet),
      })
    : [];
  return { changeSets: { store, decider, onDidChange: changed.on }, actions };
}

/**
 * The host's gate plus what a chore declares: a chore's task may run the `commands:` and call the
 * `mcp:` tools the person saw when they enabled it (the chore is consented to by its definition
 * hash, both included).
 */
function declaringGate(
  gate: CommandGate,
  declared: (taskId: string) => readonly string[],
  declaredMcp: (taskId: string) => Readonly<Record<string, readonly string[]>>,
): CommandGate {
  return {
    allowedCommands: () => gate.allowedCommands(),
    trusted: () => gate.trusted(),
    declared,
    declaredMcp,
    ...(gate.unattended ? { unattended: true } : {}),
  };
}
