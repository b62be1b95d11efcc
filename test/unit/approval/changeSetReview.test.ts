import * as assert from 'node:assert/strict';
import {
  approveChangeSet,
  decideFile,
  describeOutcome,
  editProposedContent,
  filesToApply,
  findStaleFiles,
  markApplied,
  rejectChangeSet,
  transition,
} from '../../../src/core/approval/changes/changeSetReview';
import { proposeChangeSet } from '../../../src/core/approval/changes/proposeChangeSet';
import type { Clock } from '../../../src/core/ports';

const clock: Clock = { now: () => 1000, setTimeout: () => ({ cancel() {} }) };

function workspace(files: Record<string, string>) {
  const map = new Map(Object.entries(files));
  return { read: async (p: string) => map.get(p) ?? null, map };
}

/** A proposal touching one file of each kind, over a fresh workspace. */
async function fixture() {
  const ws = workspace({ 'mod.txt': 'a\nb\n', 'del.txt': 'gone\n', 'old.txt': 'moved\n' });
  const set = await proposeChangeSet(
    {
      taskId: 't',
      sessionId: 's',
      operations: [
        { op: 'replace_in_file', path: 'mod.txt', edits: [{ oldText: 'b', newText: 'B' }] },
        { op: 'create_file', path: 'new.txt', content: 'fresh\n' },
        { op: 'delete_file', path: 'del.txt' },
        { op: 'rename_file', path: 'old.txt', newPath: 'renamed.txt' },
      ],
    },
    { files: ws, clock, newId: () => 'cs-1' },
  );
  return { ws, set };
}

describe('approval: change-set review', () => {
  it('finds nothing stale while the disk matches the proposal', async () => {
    const { ws, set } = await fixture();
    assert.deepEqual(await findStaleFiles(set, ws), []);
  });

  it('detects each way a file can change on disk after the proposal', async () => {
    const { ws, set } = await fixture();
    ws.map.set('mod.txt', 'a\nb\nedited by the user\n');
    ws.map.set('new.txt', 'someone created it');
    ws.map.delete('del.txt');
    ws.map.set('renamed.txt', 'taken');
    assert.deepEqual(await findStaleFiles(set, ws), [
      { path: 'mod.txt', change: 'modified' },
      { path: 'new.txt', change: 'created' },
      { path: 'del.txt', change: 'deleted' },
      { path: 'renamed.txt', change: 'created' },
    ]);
  });

  it('applies nothing when any file is stale, and says which', async () => {
    const { ws, set } = await fixture();
    ws.map.set('mod.txt', 'changed');
    const outcome = await approveChangeSet(set, ws);
    assert.equal(outcome.ok, false);
    assert.equal(outcome.changeSet.status, 'stale');
    assert.match(
      outcome.changeSet.reason ?? '',
      /nothing was applied because these files changed on disk since the proposal: mod\.txt \(modified\); read them again/,
    );
    assert.ok(!('apply' in outcome));
    // The same files as data, for the card and the thread to word (issue 42).
    assert.deepEqual(outcome.changeSet.staleFiles, [{ path: 'mod.txt', change: 'modified' }]);
    assert.equal(set.status, 'pending', 'the input is not mutated');
  });

  it('approves a fresh set with every file to apply, then marks it applied', async () => {
    const { ws, set } = await fixture();
    const outcome = await approveChangeSet(set, ws);
    assert.ok(outcome.ok);
    assert.equal(outcome.changeSet.status, 'approved');
    assert.deepEqual(
      outcome.apply.map((f) => f.path),
      ['mod.txt', 'new.txt', 'del.txt', 'old.txt'],
    );
    const applied = markApplied(outcome.changeSet);
    assert.equal(applied.status, 'applied');
    assert.equal(describeOutcome(applied), 'The change was approved and applied: mod.txt, new.txt, del.txt, old.txt → renamed.txt.');
  });

  it('applies only accepted files, ignores staleness of rejected ones, and ends partially applied', async () => {
    const { ws, set } = await fixture();
    const decided = decideFile(decideFile(set, 'mod.txt', 'reject'), 'renamed.txt', 'accept');
    ws.map.set('mod.txt', 'the user kept editing this one');
    assert.deepEqual(
      filesToApply(decided).map((f) => f.path),
      ['new.txt', 'del.txt', 'old.txt'],
    );
    const outcome = await approveChangeSet(decided, ws);
    assert.ok(outcome.ok);
    const done = markApplied(outcome.changeSet);
    assert.equal(done.status, 'partially_applied');
    assert.match(describeOutcome(done), /Applied: new\.txt, del\.txt, old\.txt → renamed\.txt\. Rejected by the user: mod\.txt\./);
    assert.equal(set.files[0].decision, undefined, 'decisions return a new set');
  });

  it('treats approving with every file rejected as a rejection', async () => {
    const { ws, set } = await fixture();
    const allRejected = set.files.reduce((acc, f) => decideFile(acc, f.path, 'reject'), set);
    const outcome = await approveChangeSet(allRejected, ws);
    assert.equal(outcome.changeSet.status, 'rejected');
    assert.ok(outcome.ok && outcome.apply.length === 0);
  });

  it('rejects with the user reason, or says none was given', async () => {
    const { set } = await fixture();
    const rejected = rejectChangeSet(set, '  use tabs, not spaces ');
    assert.equal(rejected.status, 'rejected');
    assert.equal(describeOutcome(rejected), 'The change was rejected: use tabs, not spaces. Nothing was written.');
    assert.equal(rejectChangeSet(set).reason, 'the user rejected the change without a reason');
  });

  it('lets the user edit the proposed side and recounts the lines', async () => {
    const { set } = await fixture();
    const edited = editProposedContent(decideFile(set, 'mod.txt', 'accept'), 'mod.txt', 'a\nB\nc\nd\n');
    const file = edited.files.find((f) => f.path === 'mod.txt');
    assert.deepEqual([file?.after, file?.added, file?.removed, file?.decision], ['a\nB\nc\nd\n', 3, 1, 'accept']);
    assert.equal(file?.beforeHash, set.files[0].beforeHash, 'the staleness baseline does not move');
    assert.throws(() => editProposedContent(set, 'del.txt', 'x'), /proposed for deletion; reject that file instead/);
  });

  it('refuses transitions the lifecycle does not allow, and reviews of decided sets', async () => {
    const { ws, set } = await fixture();
    const rejected = rejectChangeSet(set);
    assert.throws(() => transition(rejected, 'applied'), /is rejected and cannot become applied/);
    assert.throws(() => markApplied(set), /is pending and cannot become applied/);
    await assert.rejects(approveChangeSet(rejected, ws), /cannot become approved/);
    assert.throws(() => decideFile(rejected, 'mod.txt', 'accept'), /only a pending set can be reviewed/);
    assert.throws(() => decideFile(set, 'nope.txt', 'accept'), /has no file nope\.txt; its files are mod\.txt, new\.txt, del\.txt, old\.txt/);
  });

  it('describes a stale set for the task', async () => {
    const { ws, set } = await fixture();
    ws.map.delete('del.txt');
    const { changeSet } = await approveChangeSet(set, ws);
    assert.match(
      describeOutcome(changeSet),
      /^The change was not applied: nothing was applied because these files changed on disk since the proposal: del\.txt \(deleted\)/,
    );
  });
});
