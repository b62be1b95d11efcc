/**
 * The ports a host gives `createEngine` (createEngine.ts): the store, the clock, the model, the
 * workspace, and per service (edits, commands, chores, the planner) what only a host can supply.
 */
import type { TaskHooks } from './engine/taskHooks';
import type { GrantableSet } from './actions/actionSets';
import type { ActionDef } from './actions/types';
import type { CommandGate, CommandRunner } from './approval/commands/commandService';
import type { McpAdapters } from './engineMcp';
import type { EditApplier } from './approval/changes/editPorts';
import type { EditPolicyOptions } from './approval/paths/sensitivePaths';
import type { WorkspaceRoot } from './approval/paths/workspaceRoots';
import type { SecretPort } from './chores/escalation';
import type { ReviewLinkPort } from './chores/reviewNotice';
import type { WorkspaceSpendLimits } from './chores/spendLedger';
import type { ChoreDefinition, EscalationChannels } from './chores/types';
import type { CodeIntelPort } from './codeIntel/codeIntelPort';
import type { AgentSettings } from './engine/types';
import type { GitReader } from './git/readOnlyGit';
import type { ModelClient } from './model/types';
import type { PlannerSettings, PlannerSignal } from './planner/planner';
import type { Clock, Logger, WorkspacePort, WorkspaceReader } from './ports';
import type { Redactor } from './security/redact';
import type { DurableDb, TriggerStore } from './store/types';

/** Where edits are proposed, reviewed and applied. */
export interface EditAdapters {
  /** False when no folder is open: nothing for the model to edit, so no edit actions. */
  offered: boolean;
  /** Absolute path of the workspace root the path guard resolves against. */
  root: string;
  /** Every folder of a multi-root workspace, first = `root`: paths are then `<folder name>/<path>` (workspaceRoots.ts). */
  roots?: readonly WorkspaceRoot[];
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
  /** A link that opens a run parked at its budget and asks before resuming it; without it no pause notice is sent (pauseNotice.ts). */
  resumeLink?: (runId: string) => Promise<string>;
  /** The person's default escalation channel, for chores that name none (VS Code's tasklane.chores.escalate). */
  defaultEscalation?: () => EscalationChannels | undefined;
  /** Cron schedules are kept (VS Code); the command line fires once and keeps none. */
  schedule?: boolean;
  /**
   * A run that reaches its budget parks for a person to resume (VS Code, budgetPause.ts). Off, it
   * ends `budget_exhausted`: the command line has nobody to resume it and must exit.
   */
  parkAtBudget?: boolean;
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
  /** The multi-root workspace's folders, for the prompt (workspaceRoots.ts `rootsPromptText`); absent with one folder. */
  workspaceFolders?: string;
  settings: () => AgentSettings;
  /** Absent: no change sets and no edit actions (a chat-only engine, some tests). */
  edits?: EditAdapters;
  /** Absent: no command actions. */
  commands?: CommandAdapters;
  /** Absent: no chore runner (a chore fire then fails like any trigger nobody can handle). */
  chores?: ChoreAdapters;
  /**
   * The host's side of its MCP servers; the engine builds them (engineMcp.ts), their calls share
   * the command approvals (cards, ledger, wake-up), so it needs `commands`. Absent: no MCP.
   */
  mcp?: McpAdapters;
  /** More actions next to commands and edits, withdrawn in Restricted Mode like them. */
  actions?: ActionDef[];
  /** More task supervisors, asked before the chore runner (the CLI's check of a CI fire's outputs). */
  taskHooks?: TaskHooks[];
  /**
   * The sets a task can be granted besides files and commands, read at each request. Absent: one
   * per MCP server that may run (`McpServers.grantableSets`, when `mcp` is given), else none. Listed
   * in the conversation and task prompts, and the only `mcp:<server>` names task_start accepts.
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
