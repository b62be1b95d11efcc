import * as vscode from 'vscode';
import type { FileChange } from '../../core/approval/changeSet';
import type { EditApplier, WorkspaceFiles } from '../../core/approval/editPorts';

/**
 * The approval ports on the VS Code API. Reads see unsaved editor changes (applying over them
 * would silently drop them); writes go through ONE WorkspaceEdit, so a single Undo reverts the
 * whole change set, then the touched documents are saved.
 */
export class VsCodeWorkspaceFiles implements WorkspaceFiles {
  constructor(private readonly root: vscode.Uri) {}

  uri(relativePath: string): vscode.Uri {
    return vscode.Uri.joinPath(this.root, ...relativePath.split('/'));
  }

  async read(relativePath: string): Promise<string | null> {
    const uri = this.uri(relativePath);
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open?.isDirty) return open.getText();
    try {
      return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch (error) {
      if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') return null;
      throw error;
    }
  }
}

export class VsCodeEditApplier implements EditApplier {
  constructor(private readonly files: VsCodeWorkspaceFiles) {}

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
    for (const uri of toSave) {
      const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) ?? (await vscode.workspace.openTextDocument(uri));
      if (document.isDirty && !(await document.save())) {
        throw new Error(`the edit is in the editor but ${vscode.workspace.asRelativePath(uri)} could not be saved; save it by hand or undo`);
      }
    }
  }
}

/** The range covering all of `text`, whatever its line ends. */
function fullRange(text: string): vscode.Range {
  const lines = text.split(/\r\n|\r|\n/);
  return new vscode.Range(0, 0, lines.length - 1, lines[lines.length - 1].length);
}
