/**
 * What an Agent is made of, built once from its ports (createEngine calls `createAgent`): the
 * engine state over the store and its event streams, the archive, history, session pages and dead
 * letters (the read side), and the EngineEnv every turn runs in (the write side). The Agent itself
 * is the consumer loop and the commands over these parts (agent.ts); AgentViews is what views read.
 */
import * as path from 'node:path';
import { coreActions } from '../actions/coreActions';
import type { GrantableSet } from '../actions/actionSets';
import type { Ledger } from '../actions/ledger';
import { readActions } from '../actions/readActions';
import { searchHistoryAction } from '../actions/historyActions';
import { ActionRegistry } from '../actions/registry';
import type { ActionDef } from '../actions/types';
import { guardRestricted } from '../approval/commands/commandActions';
import { readMemory } from '../memory/memory';
import { MemoryNotes } from '../memory/memoryNotes';
import { costOf } from '../model/pricing';
import type { ModelClient } from '../model/types';
import type { Clock, Logger, WorkspacePort } from '../ports';
import { redactCredentials, redactDeep } from '../security/redact';
import type { Skill } from '../skills/skills';
import { Archive } from '../store/archive';
import { CHORE_RUNS_KEPT_HOT } from '../store/archiveRules';
import type { DurableDb, TriggerStore } from '../store/types';
import { RunawayGuard } from './caps';
import { DeadLetters } from './deadLetters';
import type { EngineEnv } from './engineEnv';
import { EngineState } from './engineState';
import { AppendFile, EventStreams } from './eventLog';
import { History } from './history';
import { SessionPages } from './sessionPages';
import { TurnRegistry } from './stopping';
import type { TaskHooks } from './taskHooks';
import { scratchDirOf } from './taskLifecycle';
import type { AgentSettings } from './types';

/** What the agent needs from its host (the VS Code adapters, the command line's, or fakes in tests). */
export interface AgentDeps {
  db: DurableDb;
  triggers: TriggerStore;
  /** Resolved per turn; may throw ModelError (missing key…): shown in the session, the message is kept. */
  model: () => Promise<ModelClient>;
  workspace: WorkspacePort;
  clock: Clock;
  logger: Logger;
  /** Event logs, EVENT.md, MEMORY.md, TASK_HISTORY.md and scratch dirs live here. */
  storageDir: string;
  /** Built-in skills folder first, then the workspace's .agents/skills, .github/skills, .claude/skills. */
  skillDirs: string[];
  /** AGENTS.md content. */
  workspaceRules?: () => Promise<string | undefined>;
  /** The multi-root workspace's folders for the prompt (workspaceRoots.ts `rootsPromptText`); absent with one folder. */
  workspaceFolders?: string;
  settings: () => AgentSettings;
  /**
   * Applied to everything written to event streams and EVENT.md (security/redact.ts). Default:
   * credential shapes; the host passes its Redactor, which also knows the secret values it read.
   */
  redact?: (text: string) => string;
  /** False in Restricted Mode (an untrusted folder): `remember` is withdrawn. Default: trusted. */
  trusted?: () => boolean;
  /** More actions (edits, commands) registered next to the core set. */
  actions?: ActionDef[];
  /** Sets a task can be granted besides files and commands (a trusted MCP server each), read at each use. Default: none. */
  grantableSets?: () => readonly GrantableSet[];
  /** Supervisor hooks (the chore runner): resolve chore fires, guard and observe their tasks. */
  hooks?: TaskHooks;
  /** The one irreversible-action ledger over `db`, shared with edits, commands and chores (src/core/createEngine.ts). */
  ledger: Ledger;
}

export interface AgentParts {
  deps: AgentDeps;
  state: EngineState;
  env: EngineEnv;
  /** Hot sessions moved out and back; absent for an in-memory store (it has no folder). */
  archive?: Archive;
  pages: SessionPages;
  history: History;
  deadLetters: DeadLetters;
  notes: MemoryNotes;
  /** The skills a task can be given, filled once at start (Agent.init). */
  skills: Skill[];
  /** Told when a task is stopped (Agent.onTaskStopped): they stop what the task owns outside its turn. */
  taskStopListeners: Set<(taskId: string) => Promise<void>>;
  /** Aborted at shutdown: the loop, in-flight model calls and history passes give up. */
  abort: AbortController;
}

export function buildAgentParts(deps: AgentDeps): AgentParts {
  const redact = deps.redact ?? redactCredentials;
  const streams = new EventStreams(path.join(deps.storageDir, 'events'), (data) => redactDeep(data, redact) as Record<string, unknown>);
  const eventMd = new AppendFile(path.join(deps.storageDir, 'EVENT.md'), '# Tasklane events\n\n');
  const state = new EngineState(deps.db, streams, eventMd, deps.clock, deps.logger);
  const abort = new AbortController();
  // Filled in below: the archive tells the pages and asks history for ages only once running.
  const late: { pages?: SessionPages; history?: History } = {};
  // The archive lives next to the hot database (docs/STORAGE.md); an in-memory store has none.
  const storeDir = deps.db.dir;
  const archive = storeDir
    ? new Archive({
        db: deps.db,
        dir: path.join(storeDir, 'archive'),
        // The newest runs per chore stay hot: the run log loads them at start (archiveRules.ts).
        choreRunsKeptHot: CHORE_RUNS_KEPT_HOT,
        clock: deps.clock,
        logger: deps.logger,
        ages: () => late.history!.archiveAges(),
        sessionText: (id) =>
          state
            .transcript(id)
            .map((m) => m.text)
            .join('\n')
            .slice(-2000),
        onMoved: (kind, ids) => {
          if (kind !== 'session') return;
          for (const id of ids) state.forgetSession(id);
          late.pages?.invalidate();
        },
      })
    : undefined;
  const withArchive = archive ? { archive } : {};
  const pages = (late.pages = new SessionPages({ state, ...withArchive, report: (error) => deps.logger.error('STORE', error.message) }));
  const history = (late.history = new History({
    db: deps.db,
    state,
    triggers: deps.triggers,
    ...withArchive,
    storageDir: deps.storageDir,
    ...(storeDir ? { storeDir } : {}),
    clock: deps.clock,
    logger: deps.logger,
    settings: deps.settings,
    signal: abort.signal,
  }));
  const notes = new MemoryNotes(path.join(deps.storageDir, 'MEMORY.md'));
  const skills: Skill[] = [];
  const taskStopListeners = new Set<(taskId: string) => Promise<void>>();
  const env = turnEnv(deps, { state, redact, notes, skills, signal: abort.signal, taskStopListeners, history });
  return {
    deps,
    state,
    env,
    ...withArchive,
    pages,
    history,
    deadLetters: new DeadLetters({ triggers: deps.triggers, state }),
    notes,
    skills,
    taskStopListeners,
    abort,
  };
}

/** The EngineEnv every turn runs in: the action registry, caps, memory and the turn registry. */
function turnEnv(
  deps: AgentDeps,
  own: Pick<AgentParts, 'state' | 'notes' | 'skills' | 'taskStopListeners' | 'history'> & { redact: (text: string) => string; signal: AbortSignal },
): EngineEnv {
  // `remember` changes every later prompt: withdrawn in Restricted Mode like the other doing actions.
  const grantableSets = deps.grantableSets ?? (() => []);
  const core = coreActions(grantableSets).map((action) => (action.name === 'remember' && deps.trusted ? guardRestricted([action], deps.trusted)[0] : action));
  const { state, notes, skills, taskStopListeners } = own;
  return {
    state,
    registry: new ActionRegistry([
      ...core,
      ...readActions,
      searchHistoryAction(async (query, limit, ctx) => {
        // A chore's task (or one it started) sees only that chore's runs; a person's task sees all.
        const chore = ctx.taskId ? state.tasks.get(ctx.taskId)?.chore : undefined;
        const scope = chore ? { choreId: chore.choreId } : undefined;
        return { hits: await own.history.search(query, limit, scope), scope };
      }),
      ...(deps.actions ?? []),
    ]),
    ledger: deps.ledger,
    workspace: deps.workspace,
    clock: deps.clock,
    logger: deps.logger,
    triggers: deps.triggers,
    model: deps.model,
    settings: deps.settings,
    storageDir: deps.storageDir,
    memoryFile: notes.file,
    taskHistory: new AppendFile(path.join(deps.storageDir, 'TASK_HISTORY.md'), '# Task history\n\n'),
    signal: own.signal,
    ...(deps.hooks ? { hooks: deps.hooks } : {}),
    turns: new TurnRegistry(),
    startedAt: deps.clock.now(),
    stopTaskWork: (taskId) =>
      Promise.all(
        [...taskStopListeners].map((listener) => listener(taskId).catch((error) => deps.logger.error('TASK', `stopping ${taskId}: a listener failed`, error))),
      ).then(() => undefined),
    pendingWake: new Set(),
    liveTurns: new Map(),
    redact: own.redact,
    skills: () => skills,
    skillNames: () => skills.map((s) => s.name),
    grantableSets,
    scratchDir: (taskId) => scratchDirOf(deps.storageDir, taskId),
    costOf: (model, usage, reportedUsd) => costOf(model, usage, { prices: deps.settings().modelPrices, ...(reportedUsd !== undefined ? { reportedUsd } : {}) }),
    remember: (note) => notes.propose(note),
    caps: new RunawayGuard({ caps: () => deps.settings().caps, clock: deps.clock, logger: deps.logger, tasks: () => state.tasks.values() }),
    prefixContext: async () => ({
      ...(deps.workspaceFolders ? { folders: deps.workspaceFolders } : {}),
      rules: (await deps.workspaceRules?.())?.trim() || undefined,
      memory: await readMemory(notes.file),
    }),
  };
}
