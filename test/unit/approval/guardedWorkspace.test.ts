import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { guardReads } from '../../../src/core/approval/paths/guardedWorkspace';
import { nodeFs } from '../../../src/core/approval/paths/nodeFs';
import type { GuardedWorkspace } from '../../../src/core/approval/paths/guardedWorkspace';
import type { WorkspacePort } from '../../../src/core/ports';

describe('approval: reads are guarded like edits', () => {
  let base: string;
  let root: string;
  let guarded: GuardedWorkspace;
  const reads: string[] = [];

  before(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-reads-')));
    root = path.join(base, 'ws');
    fs.mkdirSync(path.join(root, 'src'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src/a.ts'), 'inside\n');
    fs.writeFileSync(path.join(base, 'secret.txt'), 'outside\n');
    fs.symlinkSync(path.join(base, 'secret.txt'), path.join(root, 'link-out'));
    fs.symlinkSync(path.join(root, 'src/a.ts'), path.join(root, 'link-in'));
    const inner: WorkspacePort = {
      readFile: async (p) => {
        reads.push(p);
        return fs.readFileSync(path.join(root, p), 'utf8');
      },
      listFiles: async (dir) => fs.readdirSync(path.join(root, dir)).map((f) => (dir === '.' ? f : `${dir}/${f}`)),
      searchText: async () => [],
      findFiles: async () => ({ paths: ['src/a.ts', 'link-out', 'link-in'], complete: true }),
    };
    guarded = guardReads(inner, root, nodeFs);
  });
  after(() => fs.rmSync(base, { recursive: true, force: true }));

  it('reads files inside the workspace, through links that stay inside', async () => {
    assert.equal(await guarded.readFile('src/a.ts'), 'inside\n');
    assert.equal(await guarded.readFile('link-in'), 'inside\n');
    assert.deepEqual((await guarded.listFiles('src')).paths, ['src/a.ts']);
  });

  it('refuses `..`, absolute paths and links out, before the workspace is asked', async () => {
    reads.length = 0;
    for (const escape of ['../secret.txt', 'src/../../secret.txt', path.join(base, 'secret.txt'), 'link-out']) {
      await assert.rejects(guarded.readFile(escape), /outside the workspace/, escape);
    }
    await assert.rejects(guarded.listFiles('..'), /outside the workspace/);
    await assert.rejects(guarded.searchText('x', { include: '../**' }), /outside the workspace/);
    assert.deepEqual(reads, [], 'a refused path reached the workspace adapter');
  });

  it('find_files keeps what the workspace found inside and drops a link out', async () => {
    assert.deepEqual((await guarded.findFiles('*')).paths, ['src/a.ts', 'link-in']);
    await assert.rejects(guarded.findFiles('../*'), /outside the workspace/);
  });
});
