/**
 * The port the approval flow needs from its host to write (docs/DESIGN.md §1, §6): how approved
 * changes reach the disk. Reading is the one WorkspaceReader (src/core/ports.ts), the same text
 * the read actions show the model. The core never writes files itself; the VS Code host applies
 * through one WorkspaceEdit, a headless runner or a test through node:fs.
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
