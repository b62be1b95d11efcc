/**
 * Which tasks a palette command offers to pick (Continue, Cancel, Revert Task): one reading per
 * verb, kept apart from the quick pick so it can be tested without VS Code. Revert Task offers
 * exactly the tasks whose block offers Revert edits: `revertible` is the same reading of the
 * change sets (RevertibleTasks, src/core/approval/changes/revertibleTasks.ts), so the palette
 * never lists a task whose edits were rejected, withdrawn or already reverted.
 */

/** A palette command that picks a task. */
export type TaskVerb = 'continue' | 'cancel' | 'revert';

/** What the choice reads of a task. */
export interface PickableTask {
  id: string;
  status: string;
  paused: boolean;
}

/** The tasks `verb` can act on now; `revertible` says whether a task has applied edits left to undo. */
export function tasksFor<T extends PickableTask>(verb: TaskVerb, tasks: readonly T[], revertible: (taskId: string) => boolean): T[] {
  switch (verb) {
    case 'continue':
      return tasks.filter((t) => t.paused);
    case 'cancel':
      return tasks.filter((t) => t.status === 'running' || t.paused);
    case 'revert':
      return tasks.filter((t) => revertible(t.id));
  }
}
