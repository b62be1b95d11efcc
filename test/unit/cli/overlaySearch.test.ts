import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { findRipgrepOnPath } from '../../../src/core/approval/paths/ripgrep';
import { toListing, toSearchResult } from '../../../src/core/ports';
import { OverlayWorkspace } from '../../../src/cli/overlayWorkspace';

// The command line's workspace lists and searches as the read actions do in VS Code: ripgrep (or
// the fallback walk), the ignore files, bounds that say so; with the run's edits on top.
describe('command line: the overlay workspace searches as the read actions do', () => {
  let root: string;
  const files: Record<string, string> = {
    '.gitignore': 'gen/\n*.log\n!keep.log\n',
    'src/a.ts': 'export const needle = 1;\n',
    'src/deep/one/two/three/four/five/six/deep.ts': 'const needle = "deep";\n',
    'src/gone.ts': 'needle to delete\n',
    'gen/out.ts': 'generated needle\n',
    'node_modules/pkg/index.js': 'module needle\n',
    'debug.log': 'logged needle\n',
    'keep.log': 'kept needle\n',
    'src/nested/.gitignore': 'local.ts\n',
    'src/nested/local.ts': 'nested needle\n',
  };

  before(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'tasklane-overlay-')));
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), text);
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  for (const [label, ripgrep] of [
    ['through ripgrep', undefined],
    ['through the fallback walk', null],
  ] as const) {
    describe(label, () => {
      before(async function () {
        if (ripgrep === undefined && !(await findRipgrepOnPath())) this.skip();
      });

      /** The overlay after the run's edits: a.ts changed, a file created (one in an ignored folder too), gone.ts deleted. */
      async function edited(): Promise<OverlayWorkspace> {
        const overlay = new OverlayWorkspace(root, { ripgrep });
        await overlay.apply([
          { path: 'src/a.ts', kind: 'modify', before: files['src/a.ts']!, after: 'export const thread = 1;\n' },
          { path: 'src/fresh/new.ts', kind: 'create', before: null, after: 'a fresh needle\n' },
          { path: 'gen/made.ts', kind: 'create', before: null, after: 'needle in an ignored folder\n' },
          { path: 'src/gone.ts', kind: 'delete', before: files['src/gone.ts']!, after: null },
        ] as never);
        return overlay;
      }

      it('search_text: the ignore files, nested and negated, node_modules, and the run edits', async () => {
        const overlay = await edited();
        const found = toSearchResult(await overlay.searchText('needle', { limit: 100 }), 100);
        assert.deepEqual(
          found.hits.map((h) => h.path),
          ['keep.log', 'src/deep/one/two/three/four/five/six/deep.ts', 'src/fresh/new.ts'],
        );
        assert.equal(found.complete, true);
        // The edited text is what is searched, not the disk's.
        assert.deepEqual(
          toSearchResult(await overlay.searchText('thread', { limit: 10 }), 10).hits.map((h) => h.path),
          ['src/a.ts'],
        );
      });

      it('says when the limit stopped a search, and a regex runs with RE2', async () => {
        const overlay = await edited();
        const found = toSearchResult(await overlay.searchText('need(le)', { isRegex: true, limit: 1 }), 1);
        assert.equal(found.hits.length, 1);
        assert.equal(found.complete, false);
        assert.equal(found.stoppedBy, 'limit');
        await assert.rejects(overlay.searchText('(?=x)', { isRegex: true }));
      });

      it('list_files and find_files: the same rules, created files in, deleted ones out, and a bound that says so', async () => {
        const overlay = await edited();
        const all = toListing(await overlay.listFiles('', { recursive: true }), 500);
        assert.deepEqual(all.paths, [
          '.gitignore',
          'keep.log',
          'src/a.ts',
          'src/deep/one/two/three/four/five/six/deep.ts',
          'src/fresh/new.ts',
          'src/nested/.gitignore',
        ]);
        assert.equal(all.complete, true);
        const cut = toListing(await overlay.listFiles('', { recursive: true, limit: 2 }), 2);
        assert.deepEqual(cut, { paths: ['.gitignore', 'keep.log'], complete: false, stoppedBy: 'limit' });
        assert.deepEqual(toListing(await overlay.listFiles('src/fresh'), 500).paths, ['src/fresh/new.ts']);
        const ts = await overlay.findFiles('*.ts');
        assert.deepEqual(ts.paths, ['src/a.ts', 'src/deep/one/two/three/four/five/six/deep.ts', 'src/fresh/new.ts']);
        assert.equal(ts.complete, true);
        assert.deepEqual(await overlay.findFiles('*.ts', { limit: 1 }), { paths: ['src/a.ts'], complete: false, stoppedBy: 'limit' });
      });
    });
  }
});
