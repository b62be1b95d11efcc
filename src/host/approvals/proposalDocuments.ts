import * as vscode from 'vscode';
import type { ChangeSet, FileChange } from '../../core/approval/changes/changeSet';
import { ProposedFiles, parseProposedUri, proposedUri } from './proposedFiles';

/** Read-only scheme of the diff's left side (the file as it was proposed against): `tasklane-original://<set id>/<path>`. */
export const ORIGINAL_SCHEME = 'tasklane-original';

/**
 * The two sides of "Open diff". The left side is read-only, served from the stored `before`.
 * The right side is the proposal as a file of its own scheme (`tasklane-proposed://<set id>/<path>`,
 * ProposedFiles in proposedFiles.ts), so the editor names the workspace file, and the user edits
 * the proposal with the full editor: saving or not, on approve the open document's text (unsaved
 * changes included) is what gets applied. Both sides keep the set id in the URI's authority, which
 * the breadcrumb and the tab's tooltip do not show.
 */
export class ProposalDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly registration: vscode.Disposable;
  /** The proposed sides' file system; the activation shim registers it (src/host/approvals/proposedSide.ts). */
  readonly files: ProposedFiles;

  constructor(
    storageDir: vscode.Uri,
    private readonly load: (id: string) => Promise<ChangeSet | undefined>,
  ) {
    this.files = new ProposedFiles(storageDir, load);
    this.registration = vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const path = uri.path.replace(/^\/+/, '');
    const file = (await this.load(uri.authority))?.files.find((f) => f.path === path || f.newPath === path);
    return file?.before ?? '';
  }

  /** The proposed side of one file (the new path for a rename). */
  proposedUri(changeSetId: string, file: FileChange): vscode.Uri {
    return proposedUri(changeSetId, file);
  }

  /**
   * The change set a side of one of its diffs shows: the read-only left side
   * (`tasklane-original://<set id>/…`, also the right side of a deleted file's diff) or the
   * editable right side (`tasklane-proposed://<set id>/…`). Undefined for any other URI. Says
   * nothing about whether that set still exists or waits.
   */
  changeSetIdOf(uri: vscode.Uri): string | undefined {
    if (uri.scheme === ORIGINAL_SCHEME) return uri.authority || undefined;
    return parseProposedUri(uri)?.id;
  }

  /**
   * What the title bar reads as a diff's `resource` (its right side, as a URI string) for each
   * file of `changeSet` that has a diff: the proposed side, or the left side of a deleted file's diff.
   */
  shownSides(changeSet: ChangeSet): string[] {
    return changeSet.files.map((file) => (file.after === null ? deletedSide(changeSet.id) : proposedUri(changeSet.id, file)).toString());
  }

  /** Opens VS Code's diff editor: original (read-only) vs proposed (editable). */
  async open(changeSet: ChangeSet, path: string): Promise<void> {
    const file = changeSet.files.find((f) => f.path === path || f.newPath === path);
    if (!file) throw new Error(`Change set ${changeSet.id} has no file ${path}.`);
    const original = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, authority: changeSet.id, path: `/${file.path}` });
    const shownPath = file.newPath ?? file.path;
    if (file.after === null) {
      await vscode.commands.executeCommand('vscode.diff', original, deletedSide(changeSet.id), `${shownPath} (deleted by the proposal)`);
      return;
    }
    const proposed = proposedUri(changeSet.id, file);
    const label = file.kind === 'create' ? 'New file' : file.kind === 'rename' ? `Current: ${file.path}` : 'Current';
    await vscode.commands.executeCommand('vscode.diff', original, proposed, `${shownPath} (${label} ↔ Proposed)`);
  }

  /** The user's text of each proposed side they opened or saved, unsaved changes included. */
  async edits(changeSet: ChangeSet): Promise<Record<string, string>> {
    const edits: Record<string, string> = {};
    for (const file of changeSet.files) {
      if (file.after === null) continue;
      const path = file.newPath ?? file.path;
      const uri = proposedUri(changeSet.id, file).toString();
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
      const text = open ? open.getText() : await this.files.stored(changeSet.id, path);
      if (text !== undefined) edits[path] = text;
    }
    return edits;
  }

  /** After a decision: close the set's diff editors (saving first, so no "save changes?" prompt) and remove its saved edits. */
  async discard(changeSetId: string): Promise<void> {
    const inside = (uri: vscode.Uri | undefined) => uri !== undefined && this.changeSetIdOf(uri) === changeSetId;
    await this.files.discarding(changeSetId, async () => {
      for (const document of vscode.workspace.textDocuments) {
        if (inside(document.uri) && document.isDirty) await document.save();
      }
      const tabs = vscode.window.tabGroups.all
        .flatMap((group) => group.tabs)
        .filter((tab) => {
          const input = tab.input;
          if (input instanceof vscode.TabInputTextDiff) return inside(input.modified) || inside(input.original);
          return input instanceof vscode.TabInputText && inside(input.uri);
        });
      if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
    });
    await vscode.workspace.fs.delete(this.files.storedFolder(changeSetId), { recursive: true, useTrash: false }).then(undefined, () => undefined);
  }

  dispose(): void {
    this.registration.dispose();
    this.files.dispose();
  }
}

/** The right side of a deleted file's diff: nothing, read-only. */
function deletedSide(changeSetId: string): vscode.Uri {
  return vscode.Uri.from({ scheme: ORIGINAL_SCHEME, authority: changeSetId, path: '/__deleted__' });
}
