import * as vscode from 'vscode';
import type { ChangeSet, FileChange } from '../../core/approval/changes/changeSet';

/** Read-only scheme of the diff's left side (the file as it was proposed against). */
export const ORIGINAL_SCHEME = 'tasklane-original';

/**
 * The two sides of "Open diff". The left side is read-only, served from the stored `before`.
 * The right side is a real file under the storage folder (`proposals/<set id>/<path>`), so the
 * user edits the proposal with the full editor, and saving or not: on approve the open document's
 * text (unsaved changes included) is what gets applied.
 */
export class ProposalDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly registration: vscode.Disposable;

  constructor(
    private readonly storageDir: vscode.Uri,
    private readonly load: (id: string) => Promise<ChangeSet | undefined>,
  ) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const [, id, ...rest] = uri.path.split('/');
    const path = rest.join('/');
    const file = (await this.load(id))?.files.find((f) => f.path === path || f.newPath === path);
    return file?.before ?? '';
  }

  /** The proposed side of one file (the new path for a rename). */
  proposedUri(changeSetId: string, file: FileChange): vscode.Uri {
    return vscode.Uri.joinPath(this.storageDir, 'proposals', changeSetId, ...(file.newPath ?? file.path).split('/'));
  }

  /**
   * The change set a side of one of its diffs shows: the read-only left side
   * (`tasklane-original:/<set id>/…`, also the right side of a deleted file's diff) or the
   * editable right side (`proposals/<set id>/…` under the storage folder). Undefined for any other
   * URI. Says nothing about whether that set still exists or waits.
   */
  changeSetIdOf(uri: vscode.Uri): string | undefined {
    if (uri.scheme === ORIGINAL_SCHEME) return uri.path.split('/')[1] || undefined;
    const folder = vscode.Uri.joinPath(this.storageDir, 'proposals').toString();
    const shown = uri.toString();
    if (!shown.startsWith(`${folder}/`)) return undefined;
    const [id, ...rest] = shown.slice(folder.length + 1).split('/');
    return id && rest.length > 0 ? decodeURIComponent(id) : undefined;
  }

  /**
   * Where the title bar reads a diff's resource (its right side) for each file of `changeSet`
   * that has a diff: the proposed file's path, or the left-side path of a deleted file's diff.
   */
  shownSides(changeSet: ChangeSet): string[] {
    return changeSet.files.map((file) => (file.after === null ? deletedSide(changeSet.id) : this.proposedUri(changeSet.id, file)).fsPath);
  }

  /** Opens VS Code's diff editor: original (read-only) vs proposed (editable). */
  async open(changeSet: ChangeSet, path: string): Promise<void> {
    const file = changeSet.files.find((f) => f.path === path || f.newPath === path);
    if (!file) throw new Error(`Change set ${changeSet.id} has no file ${path}.`);
    const original = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: `/${changeSet.id}/${file.path}` });
    const shownPath = file.newPath ?? file.path;
    if (file.after === null) {
      await vscode.commands.executeCommand('vscode.diff', original, deletedSide(changeSet.id), `${shownPath} (deleted by the proposal)`);
      return;
    }
    const proposed = this.proposedUri(changeSet.id, file);
    if (!(await exists(proposed))) await vscode.workspace.fs.writeFile(proposed, new TextEncoder().encode(file.after));
    const label = file.kind === 'create' ? 'New file' : file.kind === 'rename' ? `Current: ${file.path}` : 'Current';
    await vscode.commands.executeCommand('vscode.diff', original, proposed, `${shownPath} (${label} ↔ Proposed)`);
  }

  /** The user's text of each proposed side they opened, unsaved changes included. */
  async edits(changeSet: ChangeSet): Promise<Record<string, string>> {
    const edits: Record<string, string> = {};
    for (const file of changeSet.files) {
      if (file.after === null) continue;
      const uri = this.proposedUri(changeSet.id, file);
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (open) edits[file.newPath ?? file.path] = open.getText();
      else if (await exists(uri)) edits[file.newPath ?? file.path] = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    }
    return edits;
  }

  /** After a decision: close the set's diff editors (saving first, so no "save changes?" prompt) and remove its files. */
  async discard(changeSetId: string): Promise<void> {
    const folder = vscode.Uri.joinPath(this.storageDir, 'proposals', changeSetId);
    const inside = (uri: vscode.Uri | undefined) => uri !== undefined && uri.toString().startsWith(`${folder.toString()}/`);
    const original = (uri: vscode.Uri | undefined) => uri?.scheme === ORIGINAL_SCHEME && uri.path.startsWith(`/${changeSetId}/`);
    for (const document of vscode.workspace.textDocuments) {
      if (inside(document.uri) && document.isDirty) await document.save();
    }
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => {
        const input = tab.input;
        if (input instanceof vscode.TabInputTextDiff) return inside(input.modified) || original(input.original);
        return input instanceof vscode.TabInputText && inside(input.uri);
      });
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
    await vscode.workspace.fs.delete(folder, { recursive: true, useTrash: false }).then(undefined, () => undefined);
  }

  dispose(): void {
    this.registration.dispose();
  }
}

/** The right side of a deleted file's diff: nothing, read-only. */
function deletedSide(changeSetId: string): vscode.Uri {
  return vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: `/${changeSetId}/__deleted__` });
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}
