import * as vscode from 'vscode';
import type { FileChange } from '../../core/approval/changes/changeSet';
import type { EditApplier } from '../../core/approval/changes/editPorts';
import { cutText } from '../../core/ports';
import { multiRootReader } from '../../core/approval/paths/multiRootWorkspace';
import type { WorkspaceRoot } from '../../core/approval/paths/workspaceRoots';
import { saveEdited } from './saveEdited';
import type { BoundedText, WorkspaceReader } from '../../core/ports';

/**
 * The one WorkspaceReader (src/core/ports.ts) on the VS Code API: an open document with unsaved
 * changes is read as the editor shows it; anything else as saved, through `saved` (the local
 * disk's bounded reads) or else `workspace.fs`. storeServices.ts builds ONE and hands it to the
 * read actions (through FsWorkspace) and to the edit proposals and their stale check, so
 * read_file and replace_in_file see the same text. Writes go through ONE WorkspaceEdit, so a
 * single Undo reverts the whole change set, then the touched documents are saved.
 */
export class VsCodeWorkspaceReader implements WorkspaceReader {
  constructor(
    private readonly root: vscode.Uri,
    private readonly saved?: WorkspaceReader,
  ) {}

  uri(relativePath: string): vscode.Uri {
    return vscode.Uri.joinPath(this.root, ...relativePath.split('/'));
  }

  /** The open document at this path with unsaved changes, if any. */
  private unsaved(relativePath: string): vscode.TextDocument | undefined {
    const uri = this.uri(relativePath).toString();
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    return open?.isDirty ? open : undefined;
  }

  unsavedPaths(): string[] {
    const root = this.root.toString();
    return vscode.workspace.textDocuments
      .filter((d) => d.isDirty && d.uri.scheme === this.root.scheme && d.uri.toString().startsWith(`${root}/`))
      .map((d) => decodeURIComponent(d.uri.toString().slice(root.length + 1)));
  }

  async read(relativePath: string): Promise<string | null> {
    const open = this.unsaved(relativePath);
    if (open) return open.getText();
    if (this.saved) return this.saved.read(relativePath);
    try {
      return new TextDecoder().decode(await vscode.workspace.fs.readFile(this.uri(relativePath)));
    } catch (error) {
      if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') return null;
      throw error;
    }
  }

  async readBounded(relativePath: string, maxBytes: number): Promise<BoundedText | null> {
    const open = this.unsaved(relativePath);
    if (open) return cutText(open.getText(), maxBytes);
    if (this.saved?.readBounded) return this.saved.readBounded(relativePath, maxBytes);
    const text = await this.read(relativePath);
    return text === null ? null : cutText(text, maxBytes);
  }
}

/** A WorkspaceReader that also says which URI a workspace path is (the applier writes there). */
export interface UriReader extends WorkspaceReader {
  uri(workspacePath: string): vscode.Uri;
}

/**
 * The edits' reader over every open folder: one folder's reader as it is, or (several folders)
 * workspace paths `<folder>/<path>` routed to each folder's reader (multiRootWorkspace.ts), so
 * the applier's one WorkspaceEdit spans folders and one Undo still reverts the whole set.
 */
export function vscodeRootsReader(entries: ReadonlyArray<{ root: WorkspaceRoot; reader: VsCodeWorkspaceReader }>): UriReader {
  if (entries.length === 1) return entries[0].reader;
  const combined = multiRootReader(entries);
  return Object.assign(combined, {
    uri: (workspacePath: string) => {
      const { reader, relative } = combined.readerOf(workspacePath);
      return reader.uri(relative);
    },
  });
}

export class VsCodeEditApplier implements EditApplier {
  constructor(private readonly files: UriReader) {}

  async apply(changes: readonly FileChange[]): Promise<void> {
    const edit = new vscode.WorkspaceEdit();
    const toSave: vscode.Uri[] = [];
    for (const change of changes) {
      const uri = this.files.uri(change.path);
      switch (change.kind) {
        case 'create':
          edit.createFile(uri, { contents: new TextEncoder().encode(change.after ?? ''), overwrite: false });
          break;
        case 'delete':
          edit.deleteFile(uri, { ignoreIfNotExists: false });
          break;
        case 'modify': {
          const document = await vscode.workspace.openTextDocument(uri);
          edit.replace(uri, fullRange(document.getText()), change.after ?? '');
          toSave.push(uri);
          break;
        }
        case 'rename': {
          const target = this.files.uri(change.newPath as string);
          edit.renameFile(uri, target, { overwrite: false });
          if (change.after !== change.before) {
            // The range is the moved document's, which still holds `before` (checked just now).
            edit.replace(target, fullRange(change.before ?? ''), change.after ?? '');
            toSave.push(target);
          }
          break;
        }
      }
    }
    if (!(await vscode.workspace.applyEdit(edit))) {
      throw new Error('VS Code refused the workspace edit (a file may be read-only or locked); nothing was written');
    }
    const documents = [];
    for (const uri of toSave) {
      const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) ?? (await vscode.workspace.openTextDocument(uri));
      documents.push({ document, name: vscode.workspace.asRelativePath(uri) });
    }
    await saveEdited(documents, (document) => untilSaved(document, SETTLE_SAVE_MS));
  }
}

/** How long a save that overlapped another (auto-save) waits for that one to land. */
const SETTLE_SAVE_MS = 5_000;

/** Resolves when `document` is saved or no longer dirty, or after `ms`. */
function untilSaved(document: vscode.TextDocument, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const subscriptions: vscode.Disposable[] = [];
    const done = () => {
      clearTimeout(timer);
      for (const s of subscriptions) s.dispose();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const isThis = (d: vscode.TextDocument) => d.uri.toString() === document.uri.toString();
    subscriptions.push(
      vscode.workspace.onDidSaveTextDocument((d) => isThis(d) && done()),
      vscode.workspace.onDidChangeTextDocument((e) => isThis(e.document) && !e.document.isDirty && done()),
    );
    if (!document.isDirty) done();
  });
}

/** The range covering all of `text`, whatever its line ends. */
function fullRange(text: string): vscode.Range {
  const lines = text.split(/\r\n|\r|\n/);
  return new vscode.Range(0, 0, lines.length - 1, lines[lines.length - 1].length);
}
