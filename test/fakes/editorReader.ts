import type { DiskReader } from '../../src/core/approval/paths/fsWorkspace';
import { cutText } from '../../src/core/ports';
import type { BoundedText, WorkspaceReader } from '../../src/core/ports';

/** An editor over the disk: open documents with unsaved text shadow the saved file, like VS Code's. */
export class EditorReader implements WorkspaceReader {
  /** Open documents with unsaved changes: path to their editor text. */
  readonly unsaved = new Map<string, string>();
  constructor(private readonly saved: DiskReader) {}
  async read(relativePath: string): Promise<string | null> {
    return this.unsaved.get(relativePath) ?? this.saved.read(relativePath);
  }
  async readBounded(relativePath: string, maxBytes: number): Promise<BoundedText | null> {
    const open = this.unsaved.get(relativePath);
    return open !== undefined ? cutText(open, maxBytes) : this.saved.readBounded(relativePath, maxBytes);
  }
  unsavedPaths(): string[] {
    return [...this.unsaved.keys()];
  }
}
