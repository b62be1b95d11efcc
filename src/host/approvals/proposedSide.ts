import * as vscode from 'vscode';

/** Scheme of the diff's editable right side: `tasklane-proposed://<set id>/<workspace-relative path>`. */
export const PROPOSED_SCHEME = 'tasklane-proposed';

/**
 * Registers the proposed side's file system at activation, in front of the real one (ProposedFiles
 * in proposedFiles.ts), which exists only once the store is open. VS Code restores a diff left open
 * at the last reload as soon as the window starts and activates Tasklane for it
 * (`onFileSystem:tasklane-proposed`); a provider registered later than `activate` would leave that
 * editor with "no file system provider". Each call waits for the real provider, then is its.
 */
export function registerProposedSide(real: Promise<vscode.FileSystemProvider>): vscode.Disposable {
  const changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  let forwarding: vscode.Disposable | undefined;
  let disposed = false;
  void real.then(
    (provider) => {
      if (!disposed) forwarding = provider.onDidChangeFile((events) => changes.fire(events));
    },
    () => undefined,
  );
  const when = async (uri: vscode.Uri) =>
    real.catch((error: unknown) => {
      throw vscode.FileSystemError.Unavailable(`${uri.path}: Tasklane did not start (${error instanceof Error ? error.message : String(error)}).`);
    });
  const provider: vscode.FileSystemProvider = {
    onDidChangeFile: changes.event,
    watch: () => new vscode.Disposable(() => undefined),
    stat: async (uri) => (await when(uri)).stat(uri),
    readDirectory: async (uri) => (await when(uri)).readDirectory(uri),
    createDirectory: async (uri) => (await when(uri)).createDirectory(uri),
    readFile: async (uri) => (await when(uri)).readFile(uri),
    writeFile: async (uri, content, options) => (await when(uri)).writeFile(uri, content, options),
    delete: async (uri, options) => (await when(uri)).delete(uri, options),
    rename: async (oldUri, newUri, options) => (await when(oldUri)).rename(oldUri, newUri, options),
  };
  const registration = vscode.workspace.registerFileSystemProvider(PROPOSED_SCHEME, provider, { isCaseSensitive: true });
  return new vscode.Disposable(() => {
    disposed = true;
    forwarding?.dispose();
    registration.dispose();
    changes.dispose();
  });
}
