/**
 * Saving the documents an approved change set edited. VS Code's `TextDocument.save()` resolves
 * false both when a save failed and when the document was no longer dirty, and auto-save can get
 * there first: the browser workbench (code-server, vscode.dev) saves one second after each change
 * by default (`files.autoSave: afterDelay`), so on a busy machine the edit was often saved before
 * our own save ran. A false answer is a failure only while the document is still dirty; before,
 * an applied and saved change was reported as not applied ("stale") and its task told so.
 */

/** The part of `vscode.TextDocument` a save needs. */
export interface SavableDocument {
  readonly isDirty: boolean;
  save(): PromiseLike<boolean>;
}

/** Saves each dirty document; throws naming the first whose changes are still unsaved afterwards. */
export async function saveEdited(documents: ReadonlyArray<{ document: SavableDocument; name: string }>): Promise<void> {
  for (const { document, name } of documents) {
    if (!document.isDirty) continue;
    if (!(await document.save()) && document.isDirty) {
      throw new Error(`the edit is in the editor but ${name} could not be saved; save it by hand or undo`);
    }
  }
}
