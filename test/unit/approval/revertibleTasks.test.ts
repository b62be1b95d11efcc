/**
 * Whether a task has applied edits left to undo (RevertibleTasks), the host's word that offers
 * the block's Revert edits: read from the same change sets Revert undoes, through the real
 * decider (apply, reject, withdraw on Cancel) and the real revert (whole and partial).
 */
import * as assert from 'node:assert/strict';
import type { ChangeSet } from '../../../src/core/approval/changes/changeSet';
import { ChangeSetDecider } from '../../../src/core/approval/changes/changeSetDecider';
import { InMemoryChangeSetStore } from '../../../src/core/approval/changes/changeSetStore';
import { toFileChange } from '../../../src/core/approval/changes/proposeChangeSet';
import { RevertibleTasks } from '../../../src/core/approval/changes/revertibleTasks';
import { silentLogger } from '../../../src/core/ports';
import { revertChangeSets } from '../../../src/host/approvals/revert';

describe('approvals: which tasks have edits left to revert', () => {
  let disk: Map<string, string>;
  let store: InMemoryChangeSetStore;
  let revertible: RevertibleTasks;
  let decider: ChangeSetDecider;
  let flips: string[];
  let created = 0;

  beforeEach(() => {
    disk = new Map([
      ['a.txt', 'a1'],
      ['b.txt', 'b1'],
    ]);
    store = new InMemoryChangeSetStore();
    revertible = new RevertibleTasks(store);
    flips = [];
    revertible.onDidChange((taskId, now) => flips.push(`${taskId} ${now}`));
    const files = { read: async (path: string) => disk.get(path) ?? null };
    const applier = {
      apply: async (changes: readonly { path: string; after: string | null }[]) => {
        for (const c of changes)
          if (c.after === null) disk.delete(c.path);
          else disk.set(c.path, c.after);
      },
    };
    // Wired as buildChangeSets wires it (engineChangeSets.ts): every change of a set refreshes its task.
    const refreshed: Promise<void>[] = [];
    decider = new ChangeSetDecider({
      store,
      files,
      applier,
      ledger: { intent: async () => 'l', outcome: async () => undefined },
      durable: () => true,
      triggers: { emit: async () => ({}) as never },
      logger: silentLogger,
      onChange: (set) => void refreshed.push(revertible.refresh(set.taskId)),
    });
    settle = () => Promise.all(refreshed.splice(0)).then(() => undefined);
    revert = (sets) =>
      revertChangeSets(sets, {
        store,
        read: files.read,
        applier,
        ledger: { intent: async () => 'l', outcome: async () => undefined },
        durable: () => true,
        tellTask: async () => undefined,
        onChange: () => undefined,
      }).then(async (result) => {
        // ApprovalService.revert refreshes each task before its reply.
        for (const taskId of new Set(sets.map((s) => s.taskId))) await revertible.refresh(taskId);
        return result;
      });
  });
  let settle: () => Promise<void>;
  let revert: (sets: ChangeSet[]) => ReturnType<typeof revertChangeSets>;

  const propose = async (taskId: string, path: string, after: string): Promise<string> => {
    const id = `cs-${++created}`;
    await store.insert({
      id,
      taskId,
      sessionId: taskId,
      createdAt: created,
      status: 'pending',
      files: [toFileChange({ path, kind: 'modify', before: disk.get(path) ?? null, after })],
    });
    return id;
  };
  const applied = async (taskId: string) => (await store.list({ taskId })).filter((s) => s.status === 'applied');

  it('an approved edit makes its task revertible; a whole revert ends it', async () => {
    await decider.approve(await propose('t1', 'a.txt', 'a2'));
    await settle();
    assert.equal(revertible.has('t1'), true, 'an applied edit is left to undo');
    const result = await revert(await applied('t1'));
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(disk.get('a.txt'), 'a1');
    assert.equal(revertible.has('t1'), false, 'reverted: nothing left to undo');
    assert.equal(revertible.edits('t1'), 'reverted', 'its block says the edits were reverted');
    assert.deepEqual(flips, ['t1 revertible', 't1 reverted']);
  });

  it('a rejected edit, and one withdrawn by Cancel, leave nothing to revert', async () => {
    await decider.reject(await propose('t1', 'a.txt', 'a2'), 'not this');
    await decider.withdraw(await propose('t2', 'b.txt', 'b2'), 'the task was stopped');
    await settle();
    assert.equal(revertible.has('t1'), false, 'rejected');
    assert.equal(revertible.has('t2'), false, 'withdrawn by Cancel');
    assert.equal(revertible.edits('t1'), 'none', 'a rejected edit was never applied: nothing was reverted either');
    assert.deepEqual(flips, [], 'never offered');
  });

  it('a Cancel after an applied edit keeps it revertible (what was applied is still on disk)', async () => {
    await decider.approve(await propose('t1', 'a.txt', 'a2'));
    await decider.withdraw(await propose('t1', 'b.txt', 'b2'), 'the task was stopped');
    await settle();
    assert.equal(revertible.has('t1'), true);
  });

  it('a partial revert (one set, by its card) keeps the task revertible until the last set goes', async () => {
    await decider.approve(await propose('t1', 'a.txt', 'a2'));
    await decider.approve(await propose('t1', 'b.txt', 'b2'));
    await settle();
    const [first, second] = await applied('t1');
    assert.ok((await revert([first!])).ok);
    assert.equal(revertible.has('t1'), true, 'b.txt is still applied');
    assert.equal(revertible.edits('t1'), 'revertible', 'half reverted: what is left can still be undone, so the block does not say reverted');
    assert.ok((await revert([second!])).ok);
    assert.equal(revertible.has('t1'), false);
    assert.deepEqual(flips, ['t1 revertible', 't1 reverted']);
  });

  it('a refused revert (a file changed since) leaves the task revertible', async () => {
    await decider.approve(await propose('t1', 'a.txt', 'a2'));
    await settle();
    disk.set('a.txt', 'a2 and the person typed');
    const result = await revert(await applied('t1'));
    assert.equal(result.ok, false);
    assert.equal(revertible.has('t1'), true, 'still applied: the person can undo their typing and revert');
    assert.equal(revertible.edits('t1'), 'revertible', 'a refused revert is not said to have happened');
  });

  it('a set whose every file the person excluded is nothing to revert; seeding reads applied and reverted sets after a reload', async () => {
    await store.insert({
      id: 'kept',
      taskId: 't1',
      sessionId: 't1',
      createdAt: 1,
      status: 'applied',
      files: [toFileChange({ path: 'a.txt', kind: 'modify', before: 'a0', after: 'a1' })],
    });
    await store.insert({
      id: 'excluded',
      taskId: 't2',
      sessionId: 't2',
      createdAt: 2,
      status: 'partially_applied',
      files: [{ ...toFileChange({ path: 'b.txt', kind: 'modify', before: 'b0', after: 'b1' }), decision: 'reject' }],
    });
    await store.insert({
      id: 'undone',
      taskId: 't3',
      sessionId: 't3',
      createdAt: 3,
      status: 'reverted',
      files: [toFileChange({ path: 'c.txt', kind: 'modify', before: 'c0', after: 'c1' })],
    });
    const reloaded = new RevertibleTasks(store);
    await reloaded.seed();
    assert.equal(reloaded.has('t1'), true);
    assert.equal(reloaded.has('t2'), false);
    assert.deepEqual(
      ['t1', 't2', 't3'].map((t) => reloaded.edits(t)),
      ['revertible', 'none', 'reverted'],
      'a task reverted before the reload still says so',
    );
  });
});
