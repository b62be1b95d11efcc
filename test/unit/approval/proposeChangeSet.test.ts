import * as assert from 'node:assert/strict';
import { ABSENT_HASH, changeSetSchema, hashContent } from '../../../src/core/approval/changes/changeSet';
import type { ChangeSet, EditOperation } from '../../../src/core/approval/changes/changeSet';
import { EditError, applyReplacements, proposeChangeSet } from '../../../src/core/approval/changes/proposeChangeSet';
import type { Clock } from '../../../src/core/ports';

const clock: Clock = { now: () => 1_700_000_000_000, setTimeout: () => ({ cancel() {} }) };

function disk(files: Record<string, string>) {
  const map = new Map(Object.entries(files));
  return { read: async (p: string) => map.get(p) ?? null, map };
}

async function propose(files: Record<string, string>, operations: EditOperation[], caseInsensitive = false): Promise<ChangeSet> {
  let n = 0;
  return proposeChangeSet({ taskId: 't1', sessionId: 's1', operations }, { files: disk(files), clock, newId: () => `cs-${++n}`, caseInsensitive });
}

async function rejects(files: Record<string, string>, operations: EditOperation[], message: RegExp): Promise<void> {
  await assert.rejects(propose(files, operations), (error: unknown) => {
    assert.ok(error instanceof EditError, String(error));
    assert.match(error.message, message);
    return true;
  });
}

describe('approval: proposeChangeSet', () => {
  it('creates a pending set with ids, time, hashes and line counts, valid against the stored schema', async () => {
    const set = await propose({ 'src/a.ts': 'one\ntwo\nthree\n' }, [
      { op: 'replace_in_file', path: 'src/a.ts', edits: [{ oldText: 'two', newText: 'TWO\nTWO-B' }] },
      { op: 'create_file', path: 'src/b.ts', content: 'b1\nb2\n' },
    ]);
    assert.equal(set.id, 'cs-1');
    assert.equal(set.taskId, 't1');
    assert.equal(set.sessionId, 's1');
    assert.equal(set.createdAt, 1_700_000_000_000);
    assert.equal(set.status, 'pending');
    assert.deepEqual(set.files, [
      {
        path: 'src/a.ts',
        kind: 'modify',
        before: 'one\ntwo\nthree\n',
        after: 'one\nTWO\nTWO-B\nthree\n',
        beforeHash: hashContent('one\ntwo\nthree\n'),
        added: 2,
        removed: 1,
      },
      { path: 'src/b.ts', kind: 'create', before: null, after: 'b1\nb2\n', beforeHash: ABSENT_HASH, added: 2, removed: 0 },
    ]);
    assert.doesNotThrow(() => changeSetSchema.parse(set));
    assert.match(set.files[0].beforeHash, /^sha256:[0-9a-f]{64}$/);
  });

  it('composes several operations on one file: before is the disk, after the result of all', async () => {
    const set = await propose({ 'a.txt': 'x = 1\ny = 2\n' }, [
      { op: 'replace_in_file', path: 'a.txt', edits: [{ oldText: 'x = 1', newText: 'x = 10' }] },
      { op: 'replace_in_file', path: './a.txt', edits: [{ oldText: 'x = 10\ny = 2', newText: 'x = 10\ny = 20' }] },
    ]);
    assert.equal(set.files.length, 1);
    assert.equal(set.files[0].before, 'x = 1\ny = 2\n');
    assert.equal(set.files[0].after, 'x = 10\ny = 20\n');
    assert.deepEqual([set.files[0].added, set.files[0].removed], [2, 2]);
  });

  it('applies several hunks in order, each seeing the previous result', async () => {
    const set = await propose({ 'a.txt': 'alpha\nbeta\ngamma\n' }, [
      {
        op: 'replace_in_file',
        path: 'a.txt',
        edits: [
          { oldText: 'alpha', newText: 'ALPHA' },
          { oldText: 'ALPHA\nbeta', newText: 'ALPHA\nBETA' },
          { oldText: 'gamma', newText: 'GAMMA' },
        ],
      },
    ]);
    assert.equal(set.files[0].after, 'ALPHA\nBETA\nGAMMA\n');
  });

  it('keeps $ patterns in the new text literal', () => {
    assert.equal(applyReplacements('a.js', 'const x = 1;', [{ oldText: '1', newText: "$& + $' + $1" }]), "const x = $& + $' + $1;");
  });

  it('accepts LF old text in a CRLF file and keeps CRLF line ends', () => {
    assert.equal(
      applyReplacements('a.txt', 'one\r\ntwo\r\nthree\r\n', [{ oldText: 'one\ntwo', newText: 'one\nTWO\nextra' }]),
      'one\r\nTWO\r\nextra\r\nthree\r\n',
    );
  });

  it('tells the model when old text is missing or ambiguous, naming the file and the edit', async () => {
    await rejects(
      { 'src/a.ts': 'a\nb\n' },
      [{ op: 'replace_in_file', path: 'src/a.ts', edits: [{ oldText: 'zzz', newText: 'y' }] }],
      /^oldText was not found in src\/a\.ts; read the file again and retry with an exact excerpt/,
    );
    await rejects(
      { 'src/a.ts': 'x\nx\nx\n' },
      [
        {
          op: 'replace_in_file',
          path: 'src/a.ts',
          edits: [
            { oldText: 'a', newText: 'b' },
            { oldText: 'x', newText: 'y' },
          ],
        },
      ],
      /oldText of edit 1 of 2 was not found/,
    );
    await rejects(
      { 'src/a.ts': 'a\nx\nx\nx\n' },
      [
        {
          op: 'replace_in_file',
          path: 'src/a.ts',
          edits: [
            { oldText: 'a', newText: 'b' },
            { oldText: 'x', newText: 'y' },
          ],
        },
      ],
      /^oldText of edit 2 of 2 occurs 3 times in src\/a\.ts; include more surrounding lines so it matches exactly once$/,
    );
    await rejects({ 'a.txt': 'aaa' }, [{ op: 'replace_in_file', path: 'a.txt', edits: [{ oldText: 'aa', newText: 'b' }] }], /occurs 2 times/);
    await rejects({ 'a.txt': 'a' }, [{ op: 'replace_in_file', path: 'a.txt', edits: [{ oldText: '', newText: 'b' }] }], /empty/);
  });

  it('refuses operations that do not fit the files, saying what to use instead', async () => {
    await rejects({ 'a.txt': 'a' }, [{ op: 'create_file', path: 'a.txt', content: 'b' }], /^a\.txt already exists; use write_file/);
    await rejects({}, [{ op: 'replace_in_file', path: 'b.txt', edits: [{ oldText: 'a', newText: 'b' }] }], /^b\.txt does not exist; use create_file/);
    await rejects({}, [{ op: 'delete_file', path: 'b.txt' }], /does not exist, so there is nothing to delete/);
    await rejects({}, [{ op: 'rename_file', path: 'b.txt', newPath: 'c.txt' }], /does not exist, so it cannot be renamed/);
    await rejects({ 'a.txt': 'a', 'b.txt': 'b' }, [{ op: 'rename_file', path: 'a.txt', newPath: 'b.txt' }], /^b\.txt already exists/);
    await rejects({ 'a.txt': 'a' }, [{ op: 'write_file', path: 'a.txt', content: 'a' }], /leave every file as it was/);
    await rejects({}, [], /No edit operations/);
    await rejects({}, [{ op: 'create_file', path: '../x', content: '' }], /contains \.\./);
    await rejects({}, [{ op: 'create_file', path: './', content: '' }], /is not a file path/);
    await rejects(
      { 'a.txt': 'a' },
      [
        { op: 'delete_file', path: 'a.txt' },
        { op: 'replace_in_file', path: 'a.txt', edits: [{ oldText: 'a', newText: 'b' }] },
      ],
      /does not exist any more \(deleted or renamed earlier/,
    );
  });

  it('proposes write_file as a create for a new file and as a modify for an existing one', async () => {
    const set = await propose({ 'a.txt': 'old\n' }, [
      { op: 'write_file', path: 'a.txt', content: 'new\n' },
      { op: 'write_file', path: 'b.txt', content: 'b\n' },
    ]);
    assert.deepEqual(
      set.files.map((f) => [f.path, f.kind, f.added, f.removed]),
      [
        ['a.txt', 'modify', 1, 1],
        ['b.txt', 'create', 1, 0],
      ],
    );
  });

  it('proposes deletes with the old content', async () => {
    const set = await propose({ 'a.txt': 'l1\nl2\n' }, [{ op: 'delete_file', path: 'a.txt' }]);
    assert.deepEqual(set.files, [
      { path: 'a.txt', kind: 'delete', before: 'l1\nl2\n', after: null, beforeHash: hashContent('l1\nl2\n'), added: 0, removed: 2 },
    ]);
  });

  it('composes renames with edits before and after, and chains of renames', async () => {
    const set = await propose({ 'a.txt': 'v1\n' }, [
      { op: 'replace_in_file', path: 'a.txt', edits: [{ oldText: 'v1', newText: 'v2' }] },
      { op: 'rename_file', path: 'a.txt', newPath: 'b.txt' },
      { op: 'rename_file', path: 'b.txt', newPath: 'dir/c.txt' },
      { op: 'replace_in_file', path: 'dir/c.txt', edits: [{ oldText: 'v2', newText: 'v3' }] },
    ]);
    assert.deepEqual(set.files, [
      { path: 'a.txt', kind: 'rename', newPath: 'dir/c.txt', before: 'v1\n', after: 'v3\n', beforeHash: hashContent('v1\n'), added: 1, removed: 1 },
    ]);
  });

  it('cancels out a file created and deleted in the same set, and rewrites a file deleted then created', async () => {
    const set = await propose({ 'a.txt': 'a\n' }, [
      { op: 'create_file', path: 'tmp.txt', content: 'x' },
      { op: 'delete_file', path: 'tmp.txt' },
      { op: 'delete_file', path: 'a.txt' },
      { op: 'create_file', path: 'a.txt', content: 'A\n' },
    ]);
    assert.deepEqual(
      set.files.map((f) => [f.path, f.kind, f.before, f.after]),
      [['a.txt', 'modify', 'a\n', 'A\n']],
    );
  });

  it('refuses to reuse a renamed-away path or to rename onto a deleted one in the same set', async () => {
    await rejects(
      { 'a.txt': 'a' },
      [
        { op: 'rename_file', path: 'a.txt', newPath: 'b.txt' },
        { op: 'create_file', path: 'a.txt', content: 'new' },
      ],
      /a\.txt was renamed earlier in this change set/,
    );
    await rejects(
      { 'a.txt': 'a', 'b.txt': 'b' },
      [
        { op: 'delete_file', path: 'b.txt' },
        { op: 'rename_file', path: 'a.txt', newPath: 'b.txt' },
      ],
      /use write_file on b\.txt and delete_file on a\.txt/,
    );
  });

  it('treats case variants as one file only on a case-insensitive file system', async () => {
    const ops: EditOperation[] = [
      { op: 'replace_in_file', path: 'README.md', edits: [{ oldText: 'a', newText: 'b' }] },
      { op: 'replace_in_file', path: 'readme.md', edits: [{ oldText: 'b', newText: 'c' }] },
    ];
    const set = await propose({ 'README.md': 'a', 'readme.md': 'b' }, ops, true);
    assert.equal(set.files.length, 1);
    assert.equal(set.files[0].after, 'c');
    const sensitiveSet = await propose({ 'README.md': 'a', 'readme.md': 'b' }, ops, false);
    assert.deepEqual(
      sensitiveSet.files.map((f) => [f.path, f.after]),
      [
        ['README.md', 'b'],
        ['readme.md', 'c'],
      ],
    );
  });

  it('reads each file from disk once and never writes', async () => {
    const files = disk({ 'a.txt': 'a' });
    const reads: string[] = [];
    await proposeChangeSet(
      {
        taskId: 't',
        sessionId: 's',
        operations: [
          { op: 'write_file', path: 'a.txt', content: 'b' },
          { op: 'write_file', path: 'a.txt', content: 'c' },
        ],
      },
      {
        files: {
          read: async (p) => {
            reads.push(p);
            return files.read(p);
          },
        },
        clock,
      },
    );
    assert.deepEqual(reads, ['a.txt']);
    assert.equal(files.map.get('a.txt'), 'a');
  });
});
