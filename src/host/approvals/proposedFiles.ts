import * as vscode from 'vscode';
import type { ChangeSet, FileChange } from '../../core/approval/changes/changeSet';
import { PROPOSED_SCHEME } from './proposedSide';

/** The proposed side of one file of a change set: `tasklane-proposed://<set id>/<workspace-relative path>`. */
export function proposedUri(changeSetId: string, file: FileChange): vscode.Uri {
  return vscode.Uri.from({ scheme: PROPOSED_SCHEME, authority: changeSetId, path: `/${file.newPath ?? file.path}` });
}

/** The set id and workspace-relative path a `tasklane-proposed:` URI names; undefined for any other URI. */
export function parseProposedUri(uri: vscode.Uri): { id: string; path: string } | undefined {
  if (uri.scheme !== PROPOSED_SCHEME || !uri.authority) return undefined;
  return { id: uri.authority, path: uri.path.replace(/^\/+/, '') };
}

/**
 * The proposed side of a diff as a file system of its own (`tasklane-proposed:`), so that VS Code's
 * breadcrumb and tab tooltip show the workspace file (`src/greet.js`) and not a path into the
 * storage folder. The set id is the URI's authority: for a scheme other than `file` neither the
 * breadcrumb (path segments) nor the labels (the path) show it.
 *
 * The person edits it with the full editor. What they save is kept in the same storage file as
 * before this scheme existed (`<storage>/proposals/<set id>/<path>`), so a saved edit outlives a
 * window reload (an unsaved one is kept by VS Code's hot exit, as for any writable file); until
 * they save, the side reads as the proposal's `after`. Only the files a pending set proposes exist:
 * anything else is not found, and a decided set's side refuses writes (its diff is closed by then).
 */
export class ProposedFiles implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changes.event;
  /** Sets being discarded: the save that spares the person a "save changes?" prompt is dropped. */
  private readonly closing = new Set<string>();

  constructor(
    private readonly storageDir: vscode.Uri,
    private readonly load: (id: string) => Promise<ChangeSet | undefined>,
  ) {}

  /** Where a saved edit of the proposed side is kept. */
  storedUri(changeSetId: string, path: string): vscode.Uri {
    return vscode.Uri.joinPath(this.storageDir, 'proposals', changeSetId, ...path.split('/'));
  }

  /** The folder of a set's saved edits. */
  storedFolder(changeSetId: string): vscode.Uri {
    return vscode.Uri.joinPath(this.storageDir, 'proposals', changeSetId);
  }

  /** The saved text of a proposed side, if the person saved one. */
  async stored(changeSetId: string, path: string): Promise<string | undefined> {
    const bytes = await vscode.workspace.fs.readFile(this.storedUri(changeSetId, path)).then(
      (b) => b,
      () => undefined,
    );
    return bytes && new TextDecoder().decode(bytes);
  }

  /** Runs `close` (saving and closing the set's editors) with its saves dropped, then says its files are gone. */
  async discarding(changeSetId: string, close: () => Promise<void>): Promise<void> {
    this.closing.add(changeSetId);
    try {
      await close();
    } finally {
      this.closing.delete(changeSetId);
    }
    const changeSet = await this.load(changeSetId).catch(() => undefined);
    const gone = (changeSet?.files ?? []).filter((f) => f.after !== null).map((f) => proposedUri(changeSetId, f));
    if (gone.length) this.changes.fire(gone.map((uri) => ({ type: vscode.FileChangeType.Deleted, uri })));
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const { changeSet, file, folder } = await this.resolve(uri);
    if (file) {
      const saved = await vscode.workspace.fs.stat(this.storedUri(changeSet.id, file.newPath ?? file.path)).then(
        (s) => s,
        () => undefined,
      );
      if (saved) return { type: vscode.FileType.File, ctime: saved.ctime, mtime: saved.mtime, size: saved.size };
      const size = new TextEncoder().encode(file.after ?? '').byteLength;
      return { type: vscode.FileType.File, ctime: changeSet.createdAt, mtime: changeSet.createdAt, size };
    }
    if (folder) return { type: vscode.FileType.Directory, ctime: changeSet.createdAt, mtime: changeSet.createdAt, size: 0 };
    throw vscode.FileSystemError.FileNotFound(uri);
  }

  /** A folder lists the set's proposed files and folders under it (the breadcrumb's picker). */
  async readDirectory(uri: vscode.Uri): Promise<[string, vscode.FileType][]> {
    const { changeSet, folder } = await this.resolve(uri);
    if (!folder) throw vscode.FileSystemError.FileNotADirectory(uri);
    const prefix = folder.path ? `${folder.path}/` : '';
    const entries = new Map<string, vscode.FileType>();
    for (const path of proposedPaths(changeSet)) {
      if (!path.startsWith(prefix)) continue;
      const [name, ...rest] = path.slice(prefix.length).split('/');
      if (name) entries.set(name, rest.length ? vscode.FileType.Directory : vscode.FileType.File);
    }
    return [...entries];
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const { changeSet, file } = await this.resolve(uri);
    if (!file) throw vscode.FileSystemError.FileIsADirectory(uri);
    const saved = await this.stored(changeSet.id, file.newPath ?? file.path);
    return new TextEncoder().encode(saved ?? file.after ?? '');
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const named = parseProposedUri(uri);
    // Its folder is about to be removed: keeping the text would only leave a stray file.
    if (named && this.closing.has(named.id)) return;
    const { changeSet, file } = await this.resolve(uri);
    if (!file) throw vscode.FileSystemError.FileIsADirectory(uri);
    if (changeSet.status !== 'pending') {
      throw vscode.FileSystemError.NoPermissions(
        `The proposed change ${changeSet.id} was already decided (${changeSet.status}); its proposal can no longer be edited.`,
      );
    }
    await vscode.workspace.fs.writeFile(this.storedUri(changeSet.id, file.newPath ?? file.path), content);
    this.changes.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  createDirectory(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(`${uri.path}: a proposed change has only the files it proposes.`);
  }

  delete(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(`${uri.path}: reject the proposed change (or exclude the file on its card) instead of deleting it.`);
  }

  rename(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(`${uri.path}: a proposed file cannot be renamed here.`);
  }

  dispose(): void {
    this.changes.dispose();
  }

  /** The set and the proposed file (or folder of proposed files) `uri` names; not found otherwise. */
  private async resolve(uri: vscode.Uri): Promise<{ changeSet: ChangeSet; file?: FileChange; folder?: { path: string } }> {
    const named = parseProposedUri(uri);
    const changeSet = named && (await this.load(named.id));
    if (!named || !changeSet) throw vscode.FileSystemError.FileNotFound(uri);
    const file = changeSet.files.find((f) => f.after !== null && (f.newPath ?? f.path) === named.path);
    if (file) return { changeSet, file };
    if (named.path === '' || proposedPaths(changeSet).some((p) => p.startsWith(`${named.path}/`))) return { changeSet, folder: { path: named.path } };
    throw vscode.FileSystemError.FileNotFound(uri);
  }
}

/** The workspace-relative paths a set proposes content for (a deleted file has no proposed side). */
function proposedPaths(changeSet: ChangeSet): string[] {
  return changeSet.files.filter((f) => f.after !== null).map((f) => f.newPath ?? f.path);
}
