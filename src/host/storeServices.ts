import * as vscode from 'vscode';
import { Ledger } from '../core/actions/ledger';
import { guardRestricted } from '../core/approval/commandActions';
import { DiskReader, FsWorkspace } from '../core/approval/fsWorkspace';
import { guardReads, refusingWorkspace } from '../core/approval/guardedWorkspace';
import { nodeFs } from '../core/approval/nodeFs';
import { Agent } from '../core/engine/agent';
import { composeTaskHooks } from '../core/engine/composeTaskHooks';
import { choreIdOf } from '../core/engine/records';
import { ConsentStore } from '../core/consent/consentStore';
import type { ConsentBackend } from '../core/consent/consentStore';
import type { AgentChange } from '../core/engine/types';
import type { Clock, Logger } from '../core/ports';
import type { DurableDb, TriggerStore } from '../core/store/types';
import type { HostMessage } from '../shared/protocol';
import type { ApprovalOwner } from './approvals/approvalCommands';
import { reviewLinkPort } from './approvals/approvalLinks';
import { ApprovalService } from './approvals/approvalService';
import { VsCodeWorkspaceReader } from './approvals/vscodeEdits';
import { ChoreHost } from './chores/choreHost';
import { CommandExecutionHost, combineApprovalSections } from './execution/commandHost';
import type { OwnedApprovalSection } from './execution/commandHost';
import { McpHost } from './mcp/mcpHost';
import type { ModelProvider } from './modelProvider';

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
  post: (message: HostMessage) => void;
  /** Every change the agent publishes. */
  agentChanged: (change: AgentChange) => void;
  /** Removes known secrets and credential shapes from what is stored or sent (security/redact.ts). */
  redact?: (text: string) => string;
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
  /** Change sets and command approvals as one sidebar list (oldest first). */
  approvals: OwnedApprovalSection;
  /** Who `tasklane.approve` / `tasklane.reject` ask, in order. */
  approvalOwners: readonly ApprovalOwner[];
}

/**
 * The store-time half of the composition root: builds the whole object graph that needs the open
 * store, once, in dependency order, with nothing half-built. The agent's loop is not started here
 * (the caller starts it once this resolves), so nothing claims a trigger before every part is
 * attached: command approvals are recovered and chores loaded first.
 */
export async function createStoreServices(db: DurableDb, triggers: TriggerStore, env: HostEnv): Promise<StoreServices> {
  const { logger, clock, trusted } = env;
  const storageDir = env.storage.fsPath;
  const folder = vscode.workspace.workspaceFolders?.[0];
  const root = folder?.uri ?? env.storage;
  const ledger = new Ledger(db, clock);
  // The edit actions are made before the agent they are registered with; they ask it about a
  // task only when they run, by which time it exists.
  const late: { agent?: Agent } = {};
  // The chore a task works for, itself or by descent (a task a chore task started).
  const taskChore = (taskId: string) => {
    const task = late.agent?.snapshot().tasks.find((t) => t.id === taskId);
    return task ? choreIdOf(task) : undefined;
  };
  const { settings } = env.models;

  const tellTask = async (taskId: string, text: string) => late.agent?.tellTask(taskId, text);
  // Reads pass the same path guard as edits; it resolves symbolic links on the local disk. A
  // root that is not on the local disk gets no reads at all (fail closed: the guard could not vouch for them).
  const guardOptions = { caseInsensitive: process.platform !== 'linux' };
  // The ONE reading of the workspace (unsaved editor text first): read_file and search_text see
  // it through FsWorkspace, and the edit proposals and their stale check read it too.
  const files = new VsCodeWorkspaceReader(root, root.scheme === 'file' ? new DiskReader(root.fsPath, nodeFs) : undefined);
  const changeSets = new ApprovalService({ db, triggers, ledger, clock, logger, trusted, storageDir, root, files, taskChore, settings, tellTask });
  const mcp = new McpHost({
    root: folder?.uri,
    settings,
    consent: new ConsentStore(env.consent, () => clock.now()),
    trusted,
    clock,
    logger,
    cwd: folder?.uri.fsPath ?? storageDir,
  });
  const commands = new CommandExecutionHost({
    db,
    triggers,
    ledger,
    clock,
    logger,
    trusted,
    settings,
    mcp: mcp.servers,
    cwd: () => folder?.uri.fsPath ?? storageDir,
  });
  await commands.recover();
  const chores = new ChoreHost({
    db,
    triggers,
    ledger,
    clock,
    logger,
    trusted,
    secrets: env.secrets,
    consent: env.consent,
    root: folder?.uri,
    ...(env.redact ? { redact: env.redact } : {}),
    choreSettings: () => settings.chores(),
    ...(folder ? { workspaceName: folder.name } : {}),
    reviewLinks: reviewLinkPort(env.extensionId, [changeSets, commands]),
  });
  const subscriptions = [
    changeSets.onDidChange(env.post),
    // A chore's applied proposal changes files its own globs may watch: those events must not fire it again.
    changeSets.onDidChange((message) => chores.followApprovals(message)),
    commands.onDidPost(env.post),
    chores.onDidPost(env.post),
  ];

  const skillDirs = [vscode.Uri.joinPath(env.extensionUri, 'skills').fsPath];
  if (folder) {
    for (const dir of ['.agents/skills', '.github/skills', '.claude/skills']) skillDirs.push(vscode.Uri.joinPath(root, dir).fsPath);
  }
  const workspace =
    root.scheme === 'file'
      ? guardReads(new FsWorkspace(root.fsPath, nodeFs, { ...guardOptions, text: files }), root.fsPath, nodeFs, guardOptions)
      : refusingWorkspace(root.toString());
  // No folder open: nothing to edit, so no edit actions (commands still run in the storage folder).
  // Commands first, then edits: the order the tools have always been advertised in (a stable prefix).
  const extraActions = [...commands.actions(), ...(folder ? changeSets.editActions() : [])];
  const hooks = composeTaskHooks([chores.runner]);
  const created = new Agent({
    ...(hooks ? { hooks } : {}),
    db,
    triggers,
    ledger,
    model: () => env.models.client(),
    workspace,
    clock,
    logger,
    // Restricted Mode: any of these that needs approval or is irreversible refuses in an untrusted workspace.
    actions: guardRestricted(extraActions, trusted),
    storageDir,
    ...(env.redact ? { redact: env.redact } : {}),
    // Restricted Mode withdraws `remember` too (it changes every later prompt).
    trusted,
    skillDirs,
    workspaceRules: () => workspace.readFile('AGENTS.md').catch(() => undefined),
    // User settings only: a repository cannot raise the per-task budget (src/host/settings.ts).
    settings: () => ({ ...settings.budget(), storage: settings.storage(), memory: settings.memory(), modelPrices: settings.modelPrices() }),
  });
  late.agent = created;
  commands.attach(created);
  created.onTaskStopped((taskId) => changeSets.withdrawTask(taskId));
  created.onDidChange(env.agentChanged);
  // Chores failing to load (e.g. an unreadable chores.yaml) must not keep the agent from starting.
  await chores.start(created).catch((error) => logger.error('HOST', 'Chores could not attach to the agent; they stay inactive.', error));
  // MCP servers start in the background (listing tools starts them): a slow or broken one never delays the agent.
  void mcp
    .start(commands.requester(), (actions) => created.addActions(guardRestricted(actions, trusted)))
    .catch((error) => logger.error('HOST', 'MCP servers could not be read; none are offered.', error));

  return {
    db,
    triggers,
    storageDir,
    ledger,
    agent: created,
    changeSets,
    commands,
    chores,
    mcp,
    approvals: combineApprovalSections(changeSets, commands),
    approvalOwners: [changeSets, commands],
    dispose() {
      // Stop the sources of new work first (schedules, watchers), then the loop, then the store.
      for (const subscription of subscriptions) subscription.dispose();
      chores.dispose();
      mcp.dispose();
      changeSets.dispose();
      created
        .shutdown()
        .then(() => triggers.close())
        .then(() => db.close())
        .catch((error) => logger.error('STORE', 'Closing the store failed', error));
    },
  };
}
