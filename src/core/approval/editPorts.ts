/**
 * Ports the approval flow needs from its host (docs/DESIGN.md §1, §6): how proposed changes reach the
 * disk, and how the workspace's current text is read. The core never writes files itself; the
 * VS Code host applies through one WorkspaceEdit, a headless runner or a test through node:fs.
 */
import type { FileChange } from './changeSet';

/** Writes approved file changes. */
export interface EditApplier {
  /**
   * Applies every change as ONE unit (in VS Code: one WorkspaceEdit, so one Undo reverts all of
   * it), then saves the touched documents. Rejects with a message saying what went wrong and
   * what to do; on rejection nothing should have been written.
   */
  apply(changes: readonly FileChange[]): Promise<void>;
}

/** The workspace's current text, as the user would see it if they saved now. */
export interface WorkspaceFiles {
  /**
   * The file's text, or null when it does not exist. Workspace-relative, `/` separators. An open
   * document with unsaved changes counts with those changes: applying over them would lose them.
   */
  read(relativePath: string): Promise<string | null>;
}
