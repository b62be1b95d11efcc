/**
 * Saving the documents an approved change set edited. VS Code's `TextDocument.save()` resolves
 * false both when a save failed and when the document was no longer dirty, and auto-save can get
 * there first: the browser workbench (code-server, vscode.dev) saves one second after each change
 * by default (`files.autoSave: afterDelay`), so on a busy machine the edit was often saved before
 * our own save ran. A false answer is a failure only while the document is still dirty; before,
 * an applied and saved change was reported as not applied ("stale") and its task told so.
 *
 * An auto-save still under way is the other case: a save that overlaps it answers false while the
 * document is still dirty, and the auto-save lands a moment later. On a busy machine that happened
 * often enough to fail the UI tier's approvals ("the edit is in the editor but README.md could not be
 * saved"). So a false answer on a dirty document waits, bounded, for a save under way to land
 * (`settle`), and then saves once more before it counts as a failure.
 */

/** The part of `vscode.TextDocument` a save needs. */
export interface SavableDocument {
  readonly isDirty: boolean;
  save(): PromiseLike<boolean>;
}

/** Resolves once a save under way of `document` has landed, or after a bound; never rejects. */
export type SettleSave<D extends SavableDocument> = (document: D) => Promise<void>;

/** Saves each dirty document; throws naming the first whose changes are still unsaved afterwards. */
export async function saveEdited<D extends SavableDocument>(
  documents: ReadonlyArray<{ document: D; name: string }>,
  settle: SettleSave<D> = async () => undefined,
): Promise<void> {
  for (const { document, name } of documents) {
    if (!document.isDirty) continue;
    if ((await document.save()) || !document.isDirty) continue;
    await settle(document);
    if (!document.isDirty) continue;
    if (!(await document.save()) && document.isDirty) {
      throw new Error(`the edit is in the editor but ${name} could not be saved; save it by hand or undo`);
    }
  }
}
