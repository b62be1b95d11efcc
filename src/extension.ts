import * as vscode from 'vscode';
import type * as Main from './host/main';
import type { MainParts } from './host/main';
import { registerProposedSide } from './host/approvals/proposedSide';
import { notice } from './host/notice';

/** What `activate` returns: for tests and other extensions. */
export interface TasklaneApi {
  /** The folder holding Tasklane's state for this workspace. */
  storageUri: string | undefined;
  /** Resolves when the store is open and the agent runs. */
  ready: Promise<void>;
}

/**
 * The activation shim. Activation must cost almost nothing, so this bundle holds only this file
 * and the proposed side's stand-in (src/host/approvals/proposedSide.ts):
 * it registers stand-ins for the contributed commands, the sidebar and the proposed side of a diff
 * (a file system a restored editor may ask for before the store opens), returns, and on the next
 * tick loads the composition root (src/host/main.ts, bundled as dist/main.js) which registers the
 * real ones. A command or the sidebar used in that window waits for the load and is then handed
 * to the real implementation. The composition root, not this file, is where services are wired.
 */
export function activate(context: vscode.ExtensionContext): TasklaneApi {
  let release: (parts: MainParts) => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const loaded = new Promise<MainParts>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  const commandIds: string[] = (context.extension.packageJSON.contributes?.commands ?? []).map((c: { command: string }) => c.command);
  const standIns = [
    ...commandIds.map((id) =>
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        await loaded;
        return vscode.commands.executeCommand(id, ...args);
      }),
    ),
    vscode.window.registerWebviewViewProvider('tasklane.sidebar', {
      resolveWebviewView: async (view, resolveContext, token) => (await loaded).sidebar.resolveWebviewView(view, resolveContext, token),
    }),
  ];

  context.subscriptions.push(registerProposedSide(loaded.then((parts) => parts.proposedFiles)));

  setImmediate(() => {
    try {
      // Its own bundle, resolved next to this one at run time (esbuild leaves it external).
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const main = require('./main.js') as typeof Main;
      standIns.forEach((d) => d.dispose());
      release(main.start(context));
    } catch (error) {
      fail(error);
      void vscode.window.showErrorMessage(notice`Tasklane failed to start: ${error instanceof Error ? error.message : String(error)}`);
    }
  });

  return { storageUri: context.storageUri?.fsPath, ready: loaded.then((parts) => parts.ready) };
}

export function deactivate(): void {
  // Everything is in context.subscriptions; VS Code disposes it.
}
