import * as vscode from 'vscode';
import type { AgentChange } from '../core/engine/types';
import type { Clock, Logger } from '../core/ports';
import type { Redactor } from '../core/security/redact';
import { openStore } from '../core/store/openStore';
import type { ServiceMessage } from './sidebarSection';
import type { ModelProvider } from './modelProvider';
import { createStoreServices } from './storeServices';
import type { StoreServices } from './storeServices';
import { notice } from './notice';

/** What the runtime is started with: the parts that exist before the store opens. */
export interface RuntimeEnv {
  logger: Logger;
  clock: Clock;
  /** Workspace Trust, read at each use. */
  trusted: () => boolean;
  models: ModelProvider;
  /** SecretStorage as the parts should use it (redactingSecrets); default the extension's own. */
  secrets?: vscode.SecretStorage;
  /** The window's Redactor (security/redact.ts): it learns the secrets read through `secrets`. */
  redactor: Redactor;
}

/**
 * Starts the heavy parts after activation returns: loads the sql.js wasm, opens the durable store
 * under the workspace's storage folder, builds every store-time service (`createStoreServices`)
 * and starts the agent's single consumer loop. Until then (a few tens of ms), the sidebar and
 * commands wait on `ready`, which resolves with the complete services.
 */
export class Runtime implements vscode.Disposable {
  private services: StoreServices | undefined;
  private failure: string | undefined;
  private disposed = false;
  private readonly changeListeners = new Set<(change: AgentChange) => void>();
  private readonly postListeners = new Set<(message: ServiceMessage) => void>();
  readonly ready: Promise<StoreServices>;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly env: RuntimeEnv,
  ) {
    // setImmediate: activate() returns first; nothing heavy is on the activation path.
    this.ready = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.start());
    // The failure is reported by start() (log, `problem`); whoever awaits `ready` sees it too.
    this.ready.catch(() => undefined);
  }

  /** Why the store could not open, for the sidebar; undefined while starting or when fine. */
  get problem(): string | undefined {
    return this.failure;
  }

  /** The services once the store is open; undefined while starting or after a failure to start. */
  get current(): StoreServices | undefined {
    return this.services;
  }

  /** Changes the agent publishes (sessions, tasks, messages, trace events). */
  onDidChange(listener: (change: AgentChange) => void): vscode.Disposable {
    this.changeListeners.add(listener);
    return new vscode.Disposable(() => this.changeListeners.delete(listener));
  }

  /** What the store-time services publish (approval cards, chores and their runs, tasks drawn again); the sidebar gets all but the chores. */
  onDidPost(listener: (message: ServiceMessage) => void): vscode.Disposable {
    this.postListeners.add(listener);
    return new vscode.Disposable(() => this.postListeners.delete(listener));
  }

  private async start(): Promise<StoreServices> {
    const { logger, clock } = this.env;
    const started = clock.now();
    const storage = this.context.storageUri ?? this.context.globalStorageUri;
    const storageDir = storage.fsPath;
    try {
      await vscode.workspace.fs.createDirectory(storage);
      // The same opening the history benchmark measures (src/core/store/openStore.ts).
      const { db, triggers } = await openStore({
        dir: storageDir,
        wasmPath: vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'sql-wasm.wasm').fsPath,
        logger,
        onNotice: (message) => void vscode.window.showWarningMessage(notice`Tasklane: ${message}`),
      });
      const services = await createStoreServices(db, triggers, {
        ...this.env,
        secrets: this.env.secrets ?? this.context.secrets,
        // Consent for shipped automation: per workspace, in VS Code's state, never in the repository.
        consent: this.context.workspaceState,
        extensionUri: this.context.extensionUri,
        extensionId: this.context.extension.id,
        storage,
        post: (message) => this.postListeners.forEach((listener) => listener(message)),
        agentChanged: (change) => this.changeListeners.forEach((listener) => listener(change)),
      });
      if (this.disposed) {
        // The window closed while the store was opening: release it instead of starting the loop.
        services.dispose();
        throw new Error('Tasklane was shut down while starting.');
      }
      services.agent.start();
      this.services = services;
      logger.info('HOST', `Store opened and agent started in ${clock.now() - started} ms (storage: ${storageDir})`);
      return services;
    } catch (error) {
      this.failure = `Tasklane could not open its state in ${storageDir}: ${error instanceof Error ? error.message : String(error)}. See 'Tasklane: Show Log'.`;
      logger.error('STORE', 'Start-up failed', error);
      throw error;
    }
  }

  dispose(): void {
    this.disposed = true;
    const services = this.services;
    this.services = undefined;
    services?.dispose();
  }
}
