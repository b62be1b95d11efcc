import * as assert from 'node:assert/strict';
import type { ChangeSet, ChangeSetStatus, FileChange } from '../../../src/core/approval/changes/changeSet';
import { planRevert } from '../../../src/core/approval/changes/checkpoints';
import { toFileChange } from '../../../src/core/approval/changes/proposeChangeSet';

const set = (id: string, createdAt: number, files: FileChange[], status: ChangeSetStatus = 'applied'): ChangeSet => ({
  id,
  taskId: 't1',
  sessionId: 't1',
  createdAt,
  status,
  files,
});
const disk = (files: Record<string, string | null>) => async (path: string) => files[path] ?? null;

describe('checkpoints: reverting applied change sets', function () {
  it('restores the content from before the first set and expects what the last one wrote', async function () {
    const sets = [
      set('b', 2, [
        toFileChange({ path: 'a.txt', kind: 'modify', before: 'v2', after: 'v3' }),
        toFileChange({ path: 'new.txt', kind: 'create', before: null, after: 'n' }),
      ]),
      set('a', 1, [
        toFileChange({ path: 'a.txt', kind: 'modify', before: 'v1', after: 'v2' }),
        toFileChange({ path: 'gone.txt', kind: 'delete', before: 'g', after: null }),
      ]),
    ];
    const plan = await planRevert(sets, disk({ 'a.txt': 'v3', 'new.txt': 'n' }));
    assert.ok(plan.ok, JSON.stringify(plan));
    const byPath = Object.fromEntries(plan.changes.map((c) => [c.path, { kind: c.kind, before: c.before, after: c.after }]));
    assert.deepEqual(byPath, {
      'a.txt': { kind: 'modify', before: 'v3', after: 'v1' },
      'new.txt': { kind: 'delete', before: 'n', after: null },
      'gone.txt': { kind: 'create', before: null, after: 'g' },
    });
    assert.equal(plan.changes[0].kind, 'delete', 'deletions go first (a reverted rename frees the name)');
  });

  it('refuses the whole revert and names every file that changed since', async function () {
    const sets = [
      set('a', 1, [
        toFileChange({ path: 'a.txt', kind: 'modify', before: 'v1', after: 'v2' }),
        toFileChange({ path: 'b.txt', kind: 'create', before: null, after: 'b' }),
        toFileChange({ path: 'c.txt', kind: 'modify', before: 'c1', after: 'c2' }),
      ]),
    ];
    const plan = await planRevert(sets, disk({ 'a.txt': 'v2 plus my edit', 'c.txt': 'c2' }));
    assert.equal(plan.ok, false);
    assert.ok(!plan.ok);
    assert.deepEqual(plan.changed, ['a.txt', 'b.txt']);
    assert.match(plan.reason, /a\.txt, b\.txt changed since Tasklane applied the edits; nothing was reverted/);
  });

  it('reverts a rename (with new content) and skips files the person excluded and sets not applied', async function () {
    const excluded = { ...toFileChange({ path: 'skip.txt', kind: 'modify', before: 's1', after: 's2' }), decision: 'reject' as const };
    const sets = [
      set('a', 1, [{ ...toFileChange({ path: 'old.ts', kind: 'rename', before: 'x', after: 'y' }), newPath: 'new.ts' }, excluded], 'partially_applied'),
      set('r', 2, [toFileChange({ path: 'never.txt', kind: 'create', before: null, after: 'z' })], 'rejected'),
      set('v', 3, [toFileChange({ path: 'undone.txt', kind: 'create', before: null, after: 'u' })], 'reverted'),
    ];
    const plan = await planRevert(sets, disk({ 'new.ts': 'y', 'skip.txt': 's1' }));
    assert.ok(plan.ok, JSON.stringify(plan));
    assert.deepEqual(
      plan.changes.map((c) => [c.kind, c.path, c.after]),
      [
        ['delete', 'new.ts', null],
        ['create', 'old.ts', 'x'],
      ],
    );
  });

  it('says so when there is nothing to revert', async function () {
    const plan = await planRevert([set('r', 1, [toFileChange({ path: 'x', kind: 'create', before: null, after: 'x' })], 'rejected')], disk({}));
    assert.deepEqual(plan, { ok: false, changed: [], reason: 'there are no applied edits to revert' });
  });
});
