/**
 * What is left of each task's applied edits: Revert edits is offered exactly for the tasks that
 * have some to undo (src/webview/taskGestures.ts, and the palette's Revert Task, src/host/taskPicks.ts),
 * and a task whose edits were all reverted says so under its summary (which still describes them).
 * Read from the change-set store, the records Revert itself undoes (checkpoints.ts `revertibleSets`),
 * so the offer and the revert cannot disagree: a task whose edits were all rejected, withdrawn by
 * Cancel or already reverted has none.
 *
 * Kept in memory (the sidebar reads it synchronously for every task patch) and refreshed per task
 * whenever one of its sets changes; a refresh that changes the answer is told to the listeners.
 */
import { emitter } from '../../emitter';
import { APPLIED_STATUSES, revertibleSets } from './checkpoints';
import type { ChangeSet } from './changeSet';
import type { ChangeSetStore } from './changeSetStore';

/**
 * A task's edits as the change sets say: `revertible` while some applied edit is left to undo;
 * `reverted` once none is and at least one set was reverted (a partial revert stays `revertible`:
 * what is left can still be undone); `none` when it applied nothing (or nothing that stayed).
 */
export type TaskEdits = 'revertible' | 'reverted' | 'none';

/** The statuses read: the applied sets (left to undo) and the reverted ones. */
const READ_STATUSES = [...APPLIED_STATUSES, 'reverted'] as const;

function editsOf(sets: readonly ChangeSet[]): TaskEdits {
  if (revertibleSets(sets).length > 0) return 'revertible';
  return sets.some((s) => s.status === 'reverted') ? 'reverted' : 'none';
}

export class RevertibleTasks {
  /** Tasks whose edits are not `none`, with their state. */
  private readonly tasks = new Map<string, Exclude<TaskEdits, 'none'>>();
  private readonly changed = emitter<[string, TaskEdits]>();
  /** Refreshes run one after another: a slower, older read never overwrites a newer answer. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly store: Pick<ChangeSetStore, 'list'>) {}

  /** Reads every task's sets once (at start: sets applied or reverted before a reload keep their state). */
  async seed(): Promise<void> {
    const byTask = new Map<string, ChangeSet[]>();
    for (const set of await this.store.list({ status: READ_STATUSES })) byTask.set(set.taskId, [...(byTask.get(set.taskId) ?? []), set]);
    for (const [taskId, sets] of byTask) {
      const edits = editsOf(sets);
      if (edits !== 'none') this.tasks.set(taskId, edits);
    }
  }

  /** True when `taskId` has applied edits a revert would undo. */
  has(taskId: string): boolean {
    return this.tasks.get(taskId) === 'revertible';
  }

  /** What is left of `taskId`'s edits. */
  edits(taskId: string): TaskEdits {
    return this.tasks.get(taskId) ?? 'none';
  }

  /** Reads `taskId`'s sets again (one of them changed); tells the listeners when the answer changed. */
  refresh(taskId: string): Promise<void> {
    const run = this.queue.then(() => this.read(taskId));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async read(taskId: string): Promise<void> {
    const now = editsOf(await this.store.list({ taskId, status: READ_STATUSES }));
    if (now === this.edits(taskId)) return;
    if (now === 'none') this.tasks.delete(taskId);
    else this.tasks.set(taskId, now);
    this.changed.fire(taskId, now);
  }

  /** Called with a task and its new state each time a refresh changes it. */
  onDidChange(listener: (taskId: string, edits: TaskEdits) => void): { dispose(): void } {
    return this.changed.on(listener);
  }
}
