import * as assert from 'node:assert/strict';
import { tasksFor } from '../../../src/host/taskPicks';
import { RevertibleTasks } from '../../../src/core/approval/changes/revertibleTasks';
import type { ChangeSet, ChangeSetStatus } from '../../../src/core/approval/changes/changeSet';
import type { ChangeSetFilter } from '../../../src/core/approval/changes/changeSetStore';

const task = (id: string, status: string, paused = false) => ({ id, status, paused });

/** A change set of `taskId` in `status`, with one file the person kept (or rejected). */
const set = (taskId: string, status: ChangeSetStatus, decision: 'accept' | 'reject' = 'accept'): ChangeSet =>
  ({ id: `${taskId}-${status}`, taskId, status, files: [{ path: 'a.js', kind: 'modify', decision }] }) as unknown as ChangeSet;

/** The palette's task pickers (Continue, Cancel, Revert Task) offer only what the verb can act on. */
describe('host: which tasks a palette command offers', () => {
  it('Revert Task lists only the tasks whose edits are left to undo, read as the block reads them', async () => {
    // The change sets as a session leaves them: one task applied, one rejected, one reverted, one
    // whose only kept file the person excluded, one that edited nothing.
    const sets = [set('applied', 'applied'), set('rejected', 'rejected'), set('reverted', 'reverted'), set('excluded', 'partially_applied', 'reject')];
    const store = {
      list: async (filter: ChangeSetFilter = {}) => {
        const statuses = typeof filter.status === 'string' ? [filter.status] : filter.status;
        return sets.filter((s) => (!filter.taskId || s.taskId === filter.taskId) && (!statuses || statuses.includes(s.status)));
      },
    };
    const revertible = new RevertibleTasks(store);
    await revertible.seed();
    const tasks = ['applied', 'rejected', 'reverted', 'excluded', 'nothing'].map((id) => task(id, 'completed'));

    assert.deepEqual(
      tasksFor('revert', tasks, (id) => revertible.has(id)).map((t) => t.id),
      ['applied'],
    );
    // None left: the command says so instead of picking (commands.ts), never an empty or wrong pick.
    assert.deepEqual(
      tasksFor('revert', tasks.slice(1), (id) => revertible.has(id)),
      [],
    );
  });

  it('Continue lists paused tasks; Cancel lists running or paused ones', () => {
    const tasks = [task('ended', 'completed'), task('working', 'running'), task('paused', 'running', true)];
    const none = () => false;
    assert.deepEqual(
      tasksFor('continue', tasks, none).map((t) => t.id),
      ['paused'],
    );
    assert.deepEqual(
      tasksFor('cancel', tasks, none).map((t) => t.id),
      ['working', 'paused'],
    );
  });
});
