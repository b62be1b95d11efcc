/**
 * The notes `remember` proposes and the person reviews (memory.ts has the file formats). Every
 * write goes through one queue: a proposal and a review never interleave their read-modify-write.
 */
import { proposeMemoryNote, readMemoryProposals, settleMemoryProposals } from './memory';

export class MemoryNotes {
  private queue: Promise<unknown> = Promise.resolve();

  /** `file` is MEMORY.md; proposals live next to it. */
  constructor(readonly file: string) {}

  /** Adds a proposed note (deduplicated); it reaches no prompt until the person accepts it. */
  propose(note: string): Promise<void> {
    return this.serial(() => proposeMemoryNote(this.file, note));
  }

  /** The proposed notes, oldest first. */
  proposals(): Promise<string[]> {
    return readMemoryProposals(this.file);
  }

  /** The person's review: the accepted notes enter MEMORY.md, every proposal is cleared. */
  settle(accepted: readonly string[]): Promise<void> {
    return this.serial(() => settleMemoryProposals(this.file, accepted));
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
