/**
 * Which tasks have applied edits left to undo: the block's Revert edits is offered exactly for
 * these (src/webview/taskGestures.ts). Read from the change-set store, the records Revert itself
 * undoes (checkpoints.ts `revertibleSets`), so the offer and the revert cannot disagree: a task
 * whose edits were all rejected, withdrawn by Cancel or already reverted has none.
 *
 * Kept in memory (the sidebar reads it synchronously for every task patch) and refreshed per task
 * whenever one of its sets changes; a refresh that flips the answer is told to the listeners.
 */
import { emitter } from '../../emitter';
import { APPLIED_STATUSES, revertibleSets } from './checkpoints';
import type { ChangeSetStore } from './changeSetStore';

export class RevertibleTasks {
  private readonly tasks = new Set<string>();
  private readonly changed = emitter<[string, boolean]>();
  /** Refreshes run one after another: a slower, older read never overwrites a newer answer. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly store: Pick<ChangeSetStore, 'list'>) {}

  /** Reads every task's applied sets once (at start: sets applied before a reload stay revertible). */
  async seed(): Promise<void> {
    for (const set of revertibleSets(await this.store.list({ status: APPLIED_STATUSES }))) this.tasks.add(set.taskId);
  }

  /** True when `taskId` has applied edits a revert would undo. */
  has(taskId: string): boolean {
    return this.tasks.has(taskId);
  }

  /** Reads `taskId`'s sets again (one of them changed); tells the listeners when the answer flipped. */
  refresh(taskId: string): Promise<void> {
    const run = this.queue.then(() => this.read(taskId));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async read(taskId: string): Promise<void> {
    const now = revertibleSets(await this.store.list({ taskId, status: APPLIED_STATUSES })).length > 0;
    if (now === this.tasks.has(taskId)) return;
    if (now) this.tasks.add(taskId);
    else this.tasks.delete(taskId);
    this.changed.fire(taskId, now);
  }

  /** Called with a task and its new answer each time a refresh flips it. */
  onDidChange(listener: (taskId: string, revertible: boolean) => void): { dispose(): void } {
    return this.changed.on(listener);
  }
}
