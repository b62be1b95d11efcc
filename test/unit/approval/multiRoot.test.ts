import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ActionContext, ActionDef } from '../../../src/core/actions/types';
import type { FileChange } from '../../../src/core/approval/changes/changeSet';
import { ChangeSetDecider } from '../../../src/core/approval/changes/changeSetDecider';
import { InMemoryChangeSetStore } from '../../../src/core/approval/changes/changeSetStore';
import { createEditActions } from '../../../src/core/approval/changes/editActions';
import { applyTimeGuard } from '../../../src/core/approval/paths/editTarget';
import { DiskReader, FsWorkspace } from '../../../src/core/approval/paths/fsWorkspace';
import { guardReads } from '../../../src/core/approval/paths/guardedWorkspace';
import { multiRootReader, multiRootWorkspace } from '../../../src/core/approval/paths/multiRootWorkspace';
import { nodeFs } from '../../../src/core/approval/paths/nodeFs';
import { rootsPromptText, splitRootPath, workspaceRoots } from '../../../src/core/approval/paths/workspaceRoots';
import type { WorkspaceRoot } from '../../../src/core/approval/paths/workspaceRoots';
import { taskPrefixText } from '../../../src/core/prompts/requestBuilder';
import { silentLogger, toListing, toSearchResult } from '../../../src/core/ports';
import type { WorkspacePort } from '../../../src/core/ports';
import { FakeClock } from '../../fakes/fakeClock';
import { turnContext } from '../../support/actionContext';
import { readOrNull } from '../../support/files';

// A workspace of two folders on a real disk, `api` and `web`, both holding src/a.ts: every path
// must say its folder, and reads, searches and edits must land in the folder the path names.
describe('approval: multi-root workspaces (one path scheme)', () => {
  let base: string;
  let roots: WorkspaceRoot[];
  let workspace: WorkspacePort;
  const clock = new FakeClock();

  beforeEach(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'tasklane-roots-')));
    for (const name of ['api', 'web']) {
      await mkdir(path.join(base, name, 'src'), { recursive: true });
      await writeFile(path.join(base, name, 'src/a.ts'), `export const where = '${name}';\n`);
    }
    await writeFile(path.join(base, 'outside.txt'), 'secret\n');
    roots = workspaceRoots([
      { name: 'api', path: path.join(base, 'api') },
      { name: 'web', path: path.join(base, 'web') },
    ]);
    workspace = multiRootWorkspace(roots.map((root) => ({ root, port: guardReads(new FsWorkspace(root.path, nodeFs, { ripgrep: null }), root.path, nodeFs) })));
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('reads the file of the folder the path names', async () => {
    assert.equal(await workspace.readFile('api/src/a.ts'), "export const where = 'api';\n");
    assert.equal(await workspace.readFile('web/src/a.ts'), "export const where = 'web';\n");
    assert.equal((await workspace.readText!('web/src/a.ts', 1000)).text, "export const where = 'web';\n");
  });

  it('search hits, listings and found files carry their folder', async () => {
    const found = toSearchResult(await workspace.searchText('where', { limit: 10 }), 10);
    assert.deepEqual(
      found.hits.map((h) => h.path),
      ['api/src/a.ts', 'web/src/a.ts'],
    );
    assert.equal(found.complete, true);
    const scoped = toSearchResult(await workspace.searchText('where', { limit: 10, include: 'web/src/*.ts' }), 10);
    assert.deepEqual(
      scoped.hits.map((h) => h.path),
      ['web/src/a.ts'],
    );
    // One limit for the whole workspace: stopping in the first folder says the search is incomplete.
    const limited = toSearchResult(await workspace.searchText('where', { limit: 1 }), 1);
    assert.deepEqual(
      limited.hits.map((h) => h.path),
      ['api/src/a.ts'],
    );
    assert.equal(limited.complete, false);
    assert.deepEqual(await workspace.listFiles('.'), ['api/', 'web/']);
    assert.deepEqual(toListing(await workspace.listFiles('web/src'), 100).paths, ['web/src/a.ts']);
    assert.deepEqual((await workspace.findFiles('*.ts')).paths, ['api/src/a.ts', 'web/src/a.ts']);
    assert.deepEqual((await workspace.findFiles('api/**/*.ts')).paths, ['api/src/a.ts']);
  });

  it('refuses a path naming no folder, listing the folders, and a path escaping its folder', async () => {
    await assert.rejects(workspace.readFile('src/a.ts'), /names no folder of this workspace.*api\/, web\//);
    await assert.rejects(workspace.readFile('api/../outside.txt'), /outside the workspace/);
    // From one folder into the other is an escape too: each path is guarded in its own folder.
    await assert.rejects(workspace.readFile('api/../web/src/a.ts'), /outside the workspace/);
    await assert.rejects(workspace.readFile(path.join(base, 'outside.txt')), /names no folder/);
  });

  it('one folder: plain relative paths, as before', async () => {
    const single = workspaceRoots([{ name: 'api', path: path.join(base, 'api') }]);
    assert.deepEqual(splitRootPath(single, 'src/a.ts'), { root: single[0], relative: 'src/a.ts' });
    const port = guardReads(new FsWorkspace(single[0].path, nodeFs, { ripgrep: null }), single[0].path, nodeFs);
    assert.equal(multiRootWorkspace([{ root: single[0], port }]), port);
  });

  it("the model's request names the folders and the prefix when there are several", () => {
    const text = rootsPromptText(roots) as string;
    assert.match(text, /2 folders.*api\/, web\//);
    assert.match(text, /Commands run in the first folder \(api\)/);
    const prefix = taskPrefixText({ name: 'n', instruction: 'do it', mode: 'simple', skills: [], folders: text });
    assert.match(prefix, /Workspace folders[\s\S]*web\/src\/index\.ts/);
    assert.equal(rootsPromptText(workspaceRoots([{ name: 'api', path: roots[0].path }])), undefined, 'one folder: nothing added');
  });

  it('folders with the same name get distinct prefixes', () => {
    assert.deepEqual(
      workspaceRoots([
        { name: 'app', path: '/a/app' },
        { name: 'app', path: '/b/app' },
      ]).map((r) => r.name),
      ['app', 'app-2'],
    );
  });

  describe('edits', () => {
    let actions: Map<string, ActionDef>;
    let decider: ChangeSetDecider;
    let store: InMemoryChangeSetStore;
    let applied: FileChange[][];

    beforeEach(() => {
      store = new InMemoryChangeSetStore();
      applied = [];
      const files = multiRootReader(roots.map((root) => ({ root, reader: new DiskReader(root.path, nodeFs) })));
      // The applier writes where the workspace path says, as VsCodeEditApplier does through the reader's uri().
      const apply = async (changes: readonly FileChange[]) => {
        applied.push([...changes]);
        for (const change of changes) {
          const split = splitRootPath(roots, change.path);
          if ('error' in split) throw new Error(split.error);
          const target = path.join(split.root.path, split.relative);
          await mkdir(path.dirname(target), { recursive: true });
          await writeFile(target, change.after ?? '');
        }
      };
      decider = new ChangeSetDecider({
        store,
        files,
        applier: { apply },
        ledger: { intent: async () => 'l-1', outcome: async () => undefined },
        durable: () => true,
        triggers: { emit: async () => ({}) as never },
        logger: silentLogger,
        recheck: applyTimeGuard(roots[0].path, nodeFs, { roots }),
      });
      actions = new Map(
        createEditActions({
          root: roots[0].path,
          roots,
          fs: nodeFs,
          files,
          store,
          decider,
          clock,
          policy: () => ({ autoApproveEdits: false }),
          taskChore: () => undefined,
        }).map((a) => [a.name, a]),
      );
    });

    const context = () => turnContext(() => clock.now());
    const run = (name: string, input: unknown, ctx: ActionContext) =>
      (actions.get(name) as ActionDef).run((actions.get(name) as ActionDef).input.parse(input), ctx) as Promise<string>;

    it('a write into the second folder lands there, and only there', async () => {
      const ctx = context();
      await run('write_file', { path: 'web/src/new.ts', content: 'new\n' }, ctx);
      await run('replace_in_file', { path: 'web/src/a.ts', edits: [{ oldText: "'web'", newText: "'web!'" }] }, ctx);
      const pending = await store.list({ status: 'pending' });
      assert.deepEqual(pending[0].files.map((f) => f.path).sort(), ['web/src/a.ts', 'web/src/new.ts']);
      const final = await decider.approve(ctx.turn.approval!.id);
      assert.equal(final.status, 'applied');
      assert.equal(await readFile(path.join(base, 'web/src/new.ts'), 'utf8'), 'new\n');
      assert.equal(await readFile(path.join(base, 'web/src/a.ts'), 'utf8'), "export const where = 'web!';\n");
      assert.equal(await readOrNull(path.join(base, 'api/src/new.ts')), null);
      assert.equal(await readOrNull(path.join(base, 'api/web/src/new.ts')), null, 'never the first folder with the prefix as a directory');
      assert.equal(await readFile(path.join(base, 'api/src/a.ts'), 'utf8'), "export const where = 'api';\n");
    });

    it('an edit naming no folder, or escaping its folder, is refused with what to do', async () => {
      const ctx = context();
      await assert.rejects(run('write_file', { path: 'src/new.ts', content: 'x\n' }, ctx), /names no folder of this workspace.*api\/, web\//);
      await assert.rejects(run('write_file', { path: 'web/../outside.txt', content: 'x\n' }, ctx), /outside the workspace/);
      await assert.rejects(run('write_file', { path: 'web', content: 'x\n' }, ctx), /is a workspace folder, not a file.*web\/src\/index\.ts/);
      assert.equal(applied.length, 0);
      assert.equal(await readFile(path.join(base, 'outside.txt'), 'utf8'), 'secret\n');
    });

    it('sensitive paths are judged inside each folder: web/.vscode/tasks.json still asks', async () => {
      const ctx = context();
      const result = await run('write_file', { path: 'web/.vscode/tasks.json', content: '{}\n' }, ctx);
      assert.match(result, /\.vscode/);
    });
  });
});
