/**
 * The engine's object graph, built in one place. Every host (the VS Code extension, the command
 * line, the test harnesses) opens its store, makes its adapters (ports) and calls `createEngine`;
 * none builds a core service itself, so they cannot wire it differently (the ledger is one, the
 * redactor reaches every writer, a stopped task stops its commands everywhere).
 *
 * What a host adds on top is presentation (cards, views, palette commands) and its event sources
 * (file watchers, chores.yaml, the terminal). Read docs/ARCHITECTURE.md, "Composition".
 */
import { codeActions } from './actions/codeActions';
import { gitActions } from './actions/gitActions';
import { Ledger } from './actions/ledger';
import type { ActionDef } from './actions/types';
import { guardRestricted } from './approval/commands/commandActions';
import { commandActions } from './approval/commands/commandActions';
import { DbCommandApprovalStore } from './approval/commands/commandApproval';
import type { CommandApproval } from './approval/commands/commandApproval';
import { CommandService } from './approval/commands/commandService';
import type { CommandGate } from './approval/commands/commandService';
import { emitter } from './emitter';
import type { ChoreAdapters, CommandAdapters, EditAdapters, EngineAdapters } from './engineAdapters';
import { buildChangeSets } from './engineChangeSets';
import { buildMcp } from './engineMcp';
import type { EngineMcp, McpAdapters } from './engineMcp';
import type { EngineChangeSets } from './engineChangeSets';
import { archivedRun, buildChores, choreChecksPort } from './engineChores';
import type { EngineChores } from './engineChores';
import { createAgent } from './engine/agent';
import type { Agent } from './engine/agent';
import { composeTaskHooks } from './engine/composeTaskHooks';
import { choreIdOf } from './engine/records';
import { DbPlannerPersistence, Planner } from './planner/planner';
import type { DurableRowError } from './store/decodeRow';

export type { ChoreAdapters, CommandAdapters, EditAdapters, EngineAdapters, PlannerAdapters } from './engineAdapters';
export type { EngineChangeSets } from './engineChangeSets';
export type { EngineChores } from './engineChores';
export type { EngineMcp, McpAdapters } from './engineMcp';

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
  (A extends { chores: ChoreAdapters } ? { chores: EngineChores } : { chores?: EngineChores }) &
  (A extends { mcp: McpAdapters } ? { mcp: EngineMcp } : { mcp?: EngineMcp });

/**
 * Builds everything that needs the open store, in dependency order. Command approvals left open by
 * a previous run are settled before this resolves; the loop is not started (see `Engine.start`).
 */
export async function createEngine<A extends EngineAdapters>(adapters: A): Promise<Engine<A>> {
  const { db, triggers, clock, logger, trusted, redactor } = adapters;
  const redact = (text: string) => redactor.redact(text);
  // A durable row that does not decode is logged with its table, id and field, and left out (store/decodeRow.ts).
  const reportRow = (error: DurableRowError) => logger.error('STORE', error.message);
  const ledger = new Ledger(db, clock, reportRow);
  // Tasks are asked about only when an action runs, by which time the agent exists.
  const late: { agent?: Agent; chores?: EngineChores } = {};
  const taskChore = (taskId: string) => {
    const task = late.agent?.views.snapshot().tasks.find((t) => t.id === taskId);
    return task ? choreIdOf(task) : undefined;
  };

  if (adapters.mcp && !adapters.commands) throw new Error('MCP needs the command adapters: its calls are command approvals');
  const mcp = adapters.mcp && buildMcp(adapters.mcp, { clock, logger, trusted });
  const edits = adapters.edits && buildChangeSets(adapters, adapters.edits, ledger, taskChore);
  const commandChanged = emitter<[string, CommandApproval | undefined]>();
  const commands = adapters.commands
    ? new CommandService({
        store: new DbCommandApprovalStore(db, clock, reportRow),
        runner: adapters.commands.runner,
        ...(mcp ? { mcp: mcp.servers } : {}),
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
  // Edits applied before a reload stay revertible: the offer is read from the store once here.
  await edits?.changeSets.revertible.seed();

  // A chore's `verify:` checks run through the same runner as its `commands:`; "changed files" are its task's change sets.
  const checks = adapters.commands && choreChecksPort(adapters.commands.runner, edits?.changeSets.store);
  const chores = adapters.chores && buildChores(adapters, adapters.chores, ledger, redact, checks);
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
  const hooks = composeTaskHooks([...(adapters.taskHooks ?? []), ...(chores ? [chores.runner] : [])]);
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
    ...(adapters.workspaceFolders ? { workspaceFolders: adapters.workspaceFolders } : {}),
    ...(adapters.grantableSets ? { grantableSets: adapters.grantableSets } : mcp ? { grantableSets: () => mcp.servers.grantableSets() } : {}),
    settings: adapters.settings,
  });
  late.agent = agent;
  if (chores) chores.runLog.archived = archivedRun(agent, logger);
  // Cancel / Stop of a task also kills the approved command it runs and withdraws its pending ones.
  if (commands) agent.onTaskStopped((taskId) => commands.stopTask(taskId));
  if (mcp && commands) mcp.attach(commands, (offered) => agent.addActions(offered));

  const planner =
    adapters.planner &&
    new Planner({
      ...adapters.planner,
      model: adapters.model,
      persistence: new DbPlannerPersistence(db, reportRow),
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
    ...(mcp ? { mcp: { servers: mcp.servers, offer: mcp.offer } } : {}),
    redact,
    choreOfTask: taskChore,
    start: () => agent.start(),
    async shutdown() {
      // The runner's own work (a run's end: its record, failure policy, escalation, its task's
      // cancel) finishes before the store closes, before and after the agent stops (stopping
      // tasks can end runs); disposing stops new work (change events, deadline timers).
      await chores?.runner.settled();
      chores?.runner.dispose();
      await agent.shutdown();
      await chores?.runner.settled();
      await triggers.close();
      await db.close();
    },
  };
  // Each optional service above is present exactly when its adapters are (what Engine<A> says).
  return engine as Engine<A>;
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
