import { describeEngine } from '../core/engineSurface';
import type { EngineSurface } from '../core/engineSurface';
import { runLink } from './chores/runLinks';
import { resumeLink } from './chores/resumeLinks';
import * as vscode from 'vscode';
import type { Ledger } from '../core/actions/ledger';
import { DiskReader, FsWorkspace } from '../core/approval/paths/fsWorkspace';
import { guardReads, refusingWorkspace } from '../core/approval/paths/guardedWorkspace';
import { multiRootWorkspace } from '../core/approval/paths/multiRootWorkspace';
import { joinRootPath, rootsPromptText } from '../core/approval/paths/workspaceRoots';
import { editorExcludes, vscodeRipgrep } from './workspaceFiles';
import { nodeFs } from '../core/approval/paths/nodeFs';
import { ConsentStore } from '../core/consent/consentStore';
import type { ConsentBackend } from '../core/consent/consentStore';
import { createEngine } from '../core/createEngine';
import type { Agent } from '../core/engine/agent';
import type { AgentChange } from '../core/engine/types';
import type { Clock, Logger, WorkspacePort } from '../core/ports';
import { toSearchResult } from '../core/ports';
import type { Redactor } from '../core/security/redact';
import type { DurableDb, TriggerStore } from '../core/store/types';
import type { ServiceMessage } from './sidebarSection';
import type { ApprovalOwner } from './approvals/approvalCommands';
import { reviewLinkPort } from './approvals/approvalLinks';
import { ApprovalService, EDITS_RESTRICTED } from './approvals/approvalService';
import { toTaskView } from './viewMapping';
import { VsCodeEditApplier, VsCodeWorkspaceReader, vscodeRootsReader } from './approvals/vscodeEdits';
import { hostRoots } from './workspaceFolders';
import { ChoreHost, workspaceSecretKey } from './chores/choreHost';
import { VsCodeMcpInputs } from './mcp/mcpInputsHost';
import { CommandExecutionHost, combineApprovalSections, vscodeCommandRunner } from './execution/commandHost';
import { TaskTerminals } from './execution/terminalRunner';
import type { OwnedApprovalSection } from './execution/commandHost';
import { McpHost } from './mcp/mcpHost';
import { importersOf } from './codeIntel/importers';
import { WorkspaceChecksHost } from './workspaceChecksHost';
import { taskChecksHook } from '../core/checks/taskChecks';
import { choreChecksPort } from '../core/engineChores';
import type { ChangeSetStore } from '../core/approval/changes/changeSetStore';
import { VsCodeCodeIntel } from './codeIntel/vscodeCodeIntel';
import { ReadOnlyGit } from '../core/git/readOnlyGit';
import type { Planner } from '../core/planner/planner';
import type { ChoreRunLog } from '../core/chores/runLog';
import { plannerSignals } from './planner/plannerHost';
import type { ModelProvider } from './modelProvider';

/** A task in one of these has ended: its terminal closes. */
const ENDED: ReadonlySet<string> = new Set(['completed', 'error', 'cancelled']);
/** What the store-time composition takes from the composition root (src/host/main.ts). */
export interface HostEnv {
  logger: Logger;
  clock: Clock;
  /** Workspace Trust, read at each use, so trust granted later applies without a reload. */
  trusted: () => boolean;
  models: ModelProvider;
  secrets: vscode.SecretStorage;
  /** Where consent for shipped automation is kept (workspaceState). */
  consent: ConsentBackend;
  extensionUri: vscode.Uri;
  /** `publisher.name`: the authority of the extension's links (approval links). */
  extensionId: string;
  /** The folder holding Tasklane's state (the workspace's storage folder). */
  storage: vscode.Uri;
  /** Every sidebar message a service posts (approval cards, chores and their runs). */
  post: (message: ServiceMessage) => void;
  /** Every change the agent publishes. */
  agentChanged: (change: AgentChange) => void;
  /** The window's Redactor: known secrets and credential shapes leave nothing stored or sent (security/redact.ts). */
  redactor: Redactor;
}

/** Everything that exists once the store is open, each part complete. */
export interface StoreServices extends vscode.Disposable {
  db: DurableDb;
  triggers: TriggerStore;
  storageDir: string;
  /** The one irreversible-action ledger, shared by the engine, edits, commands and chores. */
  ledger: Ledger;
  agent: Agent;
  /** Change sets: edit proposals, their diffs and decisions. */
  changeSets: ApprovalService;
  /** run_command / run_task approvals. */
  commands: CommandExecutionHost;
  chores: ChoreHost;
  /** MCP servers (mcp.json and the user's own), their consent and tools. */
  mcp: McpHost;
  /** The workspace's checks for tasks (the person's settings, or a consented `.tasklane/checks.json`). */
  checks: WorkspaceChecksHost;
  /** Change sets and command approvals as one sidebar list (oldest first). */
  approvals: OwnedApprovalSection;
  /** Who `tasklane.approve` / `tasklane.reject` ask, in order. */
  approvalOwners: readonly ApprovalOwner[];
  /** What the engine exposes (services, the tools each kind of turn is offered), for `tasklane.getState`. */
  surface(): EngineSurface;
  /** The proactive planner (its suggestions view and commands are registered in main.ts). */
  planner?: Planner;
  /** The read actions' workspace (ripgrep, the ignore rules, the path guard), for the `@` file picker too. */
  workspace: WorkspacePort;
}

/**
 * The store-time half of the composition root: VS Code adapters in, presenters out. The engine
 * (src/core/createEngine.ts) builds every core service; this adds the sidebar sections, the MCP
 * host and chores.yaml around it. The agent's loop is not started here (the caller starts it once
 * this resolves), so nothing claims a trigger before every part is attached: command approvals are
 * recovered and chores loaded first.
 */
export async function createStoreServices(db: DurableDb, triggers: TriggerStore, env: HostEnv): Promise<StoreServices> {
  const { logger, clock, trusted } = env;
  const ripgrep = await vscodeRipgrep();
  const storageDir = env.storage.fsPath;
  const folder = vscode.workspace.workspaceFolders?.[0];
  const root = folder?.uri ?? env.storage;
  // Every open folder: with several, every path the model sees or sends is `<folder>/<path>`
  // (src/core/approval/paths/workspaceRoots.ts), mapped to URIs in one place (workspaceFolders.ts).
  const folders = vscode.workspace.workspaceFolders ?? [];
  const mapped = hostRoots(folders.length > 0 ? folders : [{ name: 'workspace', uri: root }]);
  const { settings } = env.models;
  // Reads pass the same path guard as edits; it resolves symbolic links on the local disk. A
  // root that is not on the local disk gets no reads at all (fail closed: the guard could not vouch for them).
  const guardOptions = { caseInsensitive: process.platform !== 'linux' };
  // The ONE reading of each folder (unsaved editor text first): read_file and search_text see
  // it through FsWorkspace, and the edit proposals and their stale check read it too.
  const readers = mapped.roots.map((r, i) => {
    const uri = mapped.folders[i];
    return { root: r, uri, reader: new VsCodeWorkspaceReader(uri, uri.scheme === 'file' ? new DiskReader(uri.fsPath, nodeFs) : undefined) };
  });
  const files = vscodeRootsReader(readers);
  const applier = new VsCodeEditApplier(files);
  // The window's one consent store: MCP Trust, the workspace's checks and chores Enable all read and
  // write the same records through it, and its listeners hear every give and revoke.
  const consent = new ConsentStore(env.consent, () => clock.now());
  const mcp = new McpHost({
    root: folder?.uri,
    settings,
    consent,
    trusted,
    clock,
    logger,
    cwd: folder?.uri.fsPath ?? storageDir,
    secrets: env.secrets,
    extensionId: env.extensionId,
    onSecret: (value) => env.redactor.addSecret(value),
    secret: (name) => Promise.resolve(env.secrets.get(workspaceSecretKey(name))),
    inputs: new VsCodeMcpInputs(env.secrets, env.consent),
  });
  const skillDirs = [vscode.Uri.joinPath(env.extensionUri, 'skills').fsPath];
  if (folder) {
    for (const dir of ['.agents/skills', '.github/skills', '.claude/skills']) skillDirs.push(vscode.Uri.joinPath(root, dir).fsPath);
  }
  const workspace = multiRootWorkspace(
    readers.map(({ root: r, uri, reader }) => ({
      root: r,
      port:
        uri.scheme === 'file'
          ? guardReads(
              new FsWorkspace(uri.fsPath, nodeFs, {
                ...guardOptions,
                text: reader,
                ripgrep: ripgrep ?? null,
                excludes: () => editorExcludes(uri),
              }),
              uri.fsPath,
              nodeFs,
              guardOptions,
            )
          : refusingWorkspace(uri.toString()),
    })),
  );
  // Built after the engine, asked only when a run parks on a review or a fire is claimed.
  const approvalOwners: Array<OwnedApprovalSection & ApprovalOwner> = [];
  const late: { chores?: ChoreHost; agent?: Agent; runLog?: ChoreRunLog } = {};
  const git = folder && root.scheme === 'file' ? new ReadOnlyGit(root.fsPath) : undefined;
  // One terminal per task, named after it; closed when the task ends (below).
  const terminals = new TaskTerminals((taskId) => late.agent?.views.snapshot().tasks.find((t) => t.id === taskId)?.name);
  const commandRunner = vscodeCommandRunner(() => folder?.uri.fsPath ?? storageDir, settings, terminals);
  // The workspace's checks judge a task that changed files at task_end (core/checks/taskChecks.ts).
  const checks = new WorkspaceChecksHost({
    root: folder?.uri,
    userChecks: () => settings.checks(),
    consent,
    trusted,
    logger,
  });
  await checks.load();
  const lateStore: { changes?: ChangeSetStore } = {};
  // The change sets exist once the engine does; a task ends long after.
  const checksPort = choreChecksPort(commandRunner, { list: (filter) => lateStore.changes?.list(filter) ?? Promise.resolve([]) });
  const engine = await createEngine({
    db,
    triggers,
    clock,
    logger,
    storageDir,
    model: () => env.models.client(),
    trusted,
    redactor: env.redactor,
    workspace,
    skillDirs,
    ...(rootsPromptText(mapped.roots) ? { workspaceFolders: rootsPromptText(mapped.roots) } : {}),
    // The first folder's AGENTS.md (in a multi-root workspace its path carries the folder's name),
    // then the checks in force: the model knows before it starts what will judge its work.
    workspaceRules: async () =>
      [await workspace.readFile(joinRootPath(mapped.roots, mapped.roots[0], 'AGENTS.md')).catch(() => undefined), checks.rule()].filter(Boolean).join('\n\n') ||
      undefined,
    taskHooks: [taskChecksHook({ checks: () => checks.checks(), run: checksPort.run, changedFiles: checksPort.changedFiles, logger })],
    // Listed in the prompts and accepted by task_start: the sets of the MCP servers that may run now.
    // The language servers' answers, for a folder on the local disk (its reads are the guard the actions use).
    ...(folder && root.scheme === 'file'
      ? {
          codeIntel: new VsCodeCodeIntel(
            mapped,
            importersOf(async (query, options) => toSearchResult(await workspace.searchText(query, options), options.limit)),
          ),
        }
      : {}),
    // The repository's history through a git that runs nothing the repository configures.
    ...(git ? { git } : {}),
    // The proactive planner: off unless the person's settings say so (and never in Restricted Mode).
    planner: {
      enabled: () => trusted() && settings.planner().enabled,
      settings: () => settings.planner(),
      signals: () =>
        plannerSignals({
          root: folder?.uri,
          ...(git ? { git } : {}),
          agent: () => late.agent,
          chores: () => (late.chores && late.runLog ? { ids: late.chores.enabledChores().map((c) => c.id), runLog: late.runLog } : undefined),
          now: () => clock.now(),
          memoryFile: vscode.Uri.joinPath(env.storage, 'MEMORY.md').fsPath,
        }),
    },
    // User settings only: a repository cannot raise the per-task budget (src/host/settings.ts).
    settings: () => ({ ...settings.budget(), storage: settings.storage(), memory: settings.memory(), modelPrices: settings.modelPrices() }),
    edits: {
      // No folder open: nothing to edit, so no edit actions (commands still run in the storage folder).
      offered: folder !== undefined,
      root: root.fsPath,
      roots: mapped.roots,
      files,
      applier,
      policy: () => settings.editPolicy(),
      blocked: () => (trusted() ? undefined : EDITS_RESTRICTED),
    },
    commands: {
      runner: commandRunner,
      gate: { allowedCommands: () => settings.allowedCommands(), trusted },
    },
    // The engine builds this window's MCP servers from VS Code's side of them (core/engineMcp.ts).
    mcp: mcp.adapters(),
    chores: {
      secrets: { getSecret: (name) => Promise.resolve(env.secrets.get(workspaceSecretKey(name))) },
      ...(folder ? { workspaceName: folder.name } : {}),
      blocked: (id) => (late.chores ? late.chores.blockedReason(id) : 'chores are still loading'),
      workspaceLimits: () => settings.chores(),
      // A person can resume a run paused at its budget (Continue on its task, or the chore's Resume).
      parkAtBudget: true,
      reviewLinks: reviewLinkPort(env.extensionId, approvalOwners),
      runLink: (runId) => runLink(env.extensionId, runId),
      // A run parked at its budget tells its channels with a link that asks before resuming (pauseNotice.ts).
      resumeLink: (runId) => resumeLink(env.extensionId, runId),
      defaultEscalation: () => settings.escalate(),
      schedule: true,
    },
  });
  const { agent, commands: commandService, changeSets: engineChangeSets } = engine;
  mcp.attach(engine.mcp);
  lateStore.changes = engineChangeSets.store;
  late.agent = agent;
  late.runLog = engine.chores.runLog;
  const changeSets = new ApprovalService({
    changeSets: engineChangeSets,
    applier,
    ledger: engine.ledger,
    clock,
    logger,
    trusted,
    durable: () => db.durable,
    taskChore: (taskId) => engine.choreOfTask(taskId),
    settings,
    storageDir,
    root,
    files,
    tellTask: (taskId, text, shown) => agent.tellTask(taskId, text, shown),
  });
  const commands = new CommandExecutionHost(commandService, engine.onDidChangeCommand);
  approvalOwners.push(changeSets, commands);
  const chores = new ChoreHost({
    engine: engine.chores,
    clock,
    logger,
    trusted,
    consent,
    root: folder?.uri,
    choreSettings: () => settings.chores(),
    modelCost: () => settings.modelCost(),
    mcp,
  });
  late.chores = chores;
  const subscriptions = [
    changeSets.onDidChange(env.post),
    // A chore's applied proposal changes files its own globs may watch: those events must not fire it again.
    changeSets.onDidChange((message) => chores.followApprovals(message)),
    // Revert edits comes and goes with the task's applied sets, and a revert is said under its
    // summary: its block is drawn again.
    engineChangeSets.revertible.onDidChange((taskId, edits) => {
      const task = agent.views.task(taskId);
      if (task) env.post({ type: 'taskPatch', task: toTaskView(task, edits) });
    }),
    commands.onDidPost(env.post),
    chores.onDidPost(env.post),
    // A server a chore names from mcp.json is part of its consent: a read or an edit re-checks it.
    mcp.onDidChange(() => chores.mcpChanged()),
  ];
  agent.onTaskStopped((taskId) => changeSets.withdrawTask(taskId));
  agent.views.onDidChange(env.agentChanged);
  agent.views.onDidChange((change) => {
    if (change.type === 'task' && ENDED.has(change.task.status)) terminals.closeTask(change.task.id);
  });
  // Chores failing to load (e.g. an unreadable chores.yaml) must not keep the agent from starting.
  await chores.start(agent).catch((error) => logger.error('HOST', 'Chores could not attach to the agent; they stay inactive.', error));
  // MCP servers start in the background (listing tools starts them): a slow or broken one never delays the agent.
  void mcp.start().catch((error) => logger.error('HOST', 'MCP servers could not be read; none are offered.', error));

  return {
    db,
    triggers,
    storageDir,
    workspace,
    ledger: engine.ledger,
    agent,
    changeSets,
    commands,
    chores,
    mcp,
    checks,
    approvals: combineApprovalSections(changeSets, commands),
    approvalOwners,
    surface: () => describeEngine(engine),
    ...(engine.planner ? { planner: engine.planner } : {}),
    dispose() {
      // Stop the sources of new work first (schedules, watchers), then the loop, then the store.
      for (const subscription of subscriptions) subscription.dispose();
      chores.dispose();
      mcp.dispose();
      checks.dispose();
      changeSets.dispose();
      commands.dispose();
      terminals.dispose();
      engine.shutdown().catch((error) => logger.error('STORE', 'Closing the store failed', error));
    },
  };
}
