import * as vscode from 'vscode';
import type { ActionDef } from '../core/actions/types';
import { guardRestricted } from '../core/approval/commandActions';
import { guardReads } from '../core/approval/guardedWorkspace';
import { nodeFs } from '../core/approval/nodeFs';
import { Agent } from '../core/engine/agent';
import type { TaskHooks } from '../core/engine/taskHooks';
import type { AgentChange } from '../core/engine/types';
import type { Logger } from '../core/ports';
import { systemClock } from '../core/ports';
import { createTriggerStore } from '../core/store/triggerStore';
import { openDurableDb } from '../core/store/durableDb';
import { loadSqlJs } from '../core/store/sqlJs';
import type { DurableDb, TriggerStore } from '../core/store/types';
import type { ModelProvider } from './modelProvider';
import { VsCodeWorkspace } from './workspacePort';

/** The parts that exist once the store is open. */
export interface RuntimeParts {
  db: DurableDb;
  triggers: TriggerStore;
  agent: Agent;
  storageDir: string;
}

/** What an extension of the runtime gets once the store is open. */
export interface RuntimeBase {
  db: DurableDb;
  triggers: TriggerStore;
  storageDir: string;
  /** The first workspace folder; undefined when no folder is open. */
  workspaceRoot: vscode.Uri | undefined;
  /** Where a task came from ('user', 'chore:<id>'…), once the agent knows it. */
  taskSource(taskId: string): string | undefined;
}

/** A subsystem that adds actions (edits, commands) to the agent. */
export interface RuntimeExtension {
  actions(base: RuntimeBase): ActionDef[] | Promise<ActionDef[]>;
  /** Supervisor hooks for the agent (the chore runner); the first extension that has them wins. */
  taskHooks?(base: RuntimeBase): TaskHooks;
  /** Called once the agent exists and before its loop claims a trigger (chores load here). */
  agentCreated?(agent: Agent): Promise<void>;
}

/** Optional parts the composition root plugs in. */
export interface RuntimeHooks {
  /**
   * Their actions run behind the Restricted Mode guard: in an untrusted workspace any of them that
   * needs approval or is irreversible refuses (and trust granted later applies without a reload).
   */
  extensions?: RuntimeExtension[];
}

/**
 * Starts the heavy parts after activation returns: loads the sql.js wasm, opens the durable store
 * under the workspace's storage folder, and starts the agent's single consumer loop. Until then
 * (a few tens of ms), the sidebar and commands wait on `ready`.
 */
export class Runtime implements vscode.Disposable {
  private parts: RuntimeParts | undefined;
  private failure: string | undefined;
  private readonly changeListeners = new Set<(change: AgentChange) => void>();
  readonly ready: Promise<RuntimeParts>;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly logger: Logger,
    private readonly models: ModelProvider,
    private readonly hooks: RuntimeHooks = {},
  ) {
    // setImmediate: activate() returns first; nothing heavy is on the activation path.
    this.ready = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.start());
    this.ready.catch(() => undefined);
  }

  /** Why the store could not open, for the sidebar; undefined while starting or when fine. */
  get problem(): string | undefined {
    return this.failure;
  }

  get current(): RuntimeParts | undefined {
    return this.parts;
  }

  onDidChange(listener: (change: AgentChange) => void): vscode.Disposable {
    this.changeListeners.add(listener);
    return new vscode.Disposable(() => this.changeListeners.delete(listener));
  }

  private async start(): Promise<RuntimeParts> {
    const started = Date.now();
    const storage = this.context.storageUri ?? this.context.globalStorageUri;
    const storageDir = storage.fsPath;
    try {
      await vscode.workspace.fs.createDirectory(storage);
      const sqlJs = await loadSqlJs(vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'sql-wasm.wasm').fsPath);
      const db = await openDurableDb({
        dir: storageDir,
        sqlJs,
        logger: this.logger,
        onNotice: (message) => void vscode.window.showWarningMessage(`Tasklane: ${message}`),
      });
      const triggers = await createTriggerStore(db, { logger: this.logger });
      const root = vscode.workspace.workspaceFolders?.[0]?.uri ?? storage;
      const skillDirs = [vscode.Uri.joinPath(this.context.extensionUri, 'skills').fsPath];
      if (vscode.workspace.workspaceFolders?.[0]) {
        for (const dir of ['.agents/skills', '.github/skills', '.claude/skills']) skillDirs.push(vscode.Uri.joinPath(root, dir).fsPath);
      }
      // Reads pass the same path guard as edits; it resolves symbolic links on the local disk.
      const workspace = root.scheme === 'file' ? guardReads(new VsCodeWorkspace(root), root.fsPath, nodeFs, { caseInsensitive: process.platform !== 'linux' }) : new VsCodeWorkspace(root);
      const base: RuntimeBase = {
        db,
        triggers,
        storageDir,
        workspaceRoot: vscode.workspace.workspaceFolders?.[0]?.uri,
        taskSource: (taskId) => this.parts?.agent.snapshot().tasks.find((t) => t.id === taskId)?.source,
      };
      const extraActions = (await Promise.all((this.hooks.extensions ?? []).map((extension) => extension.actions(base)))).flat();
      const taskHooks = (this.hooks.extensions ?? []).map((extension) => extension.taskHooks?.(base)).find(Boolean);
      const agent = new Agent({
        ...(taskHooks ? { hooks: taskHooks } : {}),
        db,
        triggers,
        model: () => this.models.client(),
        workspace,
        clock: systemClock,
        logger: this.logger,
        actions: guardRestricted(extraActions, () => vscode.workspace.isTrusted),
        storageDir,
        skillDirs,
        workspaceRules: () => workspace.readFile('AGENTS.md').catch(() => undefined),
        settings: () => {
          const config = vscode.workspace.getConfiguration('tasklane.budget');
          return {
            maxActionsPerTask: config.get<number>('maxActionsPerTask', 50),
            maxTokensPerTask: config.get<number>('maxTokensPerTask', 500_000),
          };
        },
      });
      agent.onDidChange((change) => this.changeListeners.forEach((listener) => listener(change)));
      for (const extension of this.hooks.extensions ?? []) {
        // One extension failing (e.g. an unreadable chores.yaml) must not keep the agent from starting.
        await extension.agentCreated?.(agent).catch((error) => this.logger.error('HOST', 'An extension could not attach to the agent; it stays inactive.', error));
      }
      agent.start();
      this.parts = { db, triggers, agent, storageDir };
      this.logger.info('HOST', `Store opened and agent started in ${Date.now() - started} ms (storage: ${storageDir})`);
      return this.parts;
    } catch (error) {
      this.failure = `Tasklane could not open its state in ${storageDir}: ${error instanceof Error ? error.message : String(error)}. See 'Tasklane: Show Log'.`;
      this.logger.error('STORE', 'Start-up failed', error);
      throw error;
    }
  }

  dispose(): void {
    const parts = this.parts;
    this.parts = undefined;
    if (parts) void parts.agent.stop().then(() => parts.triggers.close()).then(() => parts.db.close());
  }
}
