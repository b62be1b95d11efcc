import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findFiles, listFiles, readFile, searchText } from '../../../src/core/actions/readActions';
import type { ActionContext, ActionDef } from '../../../src/core/actions/types';
import { DiskReader, FsWorkspace } from '../../../src/core/approval/paths/fsWorkspace';
import type { FsWorkspaceOptions } from '../../../src/core/approval/paths/fsWorkspace';
import { guardReads } from '../../../src/core/approval/paths/guardedWorkspace';
import { nodeFs } from '../../../src/core/approval/paths/nodeFs';
import { EditorReader } from '../../fakes/editorReader';
import { compileGlob } from '../../../src/core/approval/changes/textMatch';
import { globFilter } from '../../../src/core/approval/paths/globFilter';
import { findRipgrepOnPath } from '../../../src/core/approval/paths/ripgrep';
import { silentLogger } from '../../../src/core/ports';
import type { WorkspacePort } from '../../../src/core/ports';

function write(root: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
}

const ctxFor = (workspace: WorkspacePort) => ({ workspace, logger: silentLogger }) as unknown as ActionContext;
const run = (action: ActionDef, workspace: WorkspacePort, input: unknown) => action.run(action.input.parse(input), ctxFor(workspace)) as Promise<string>;

// Every case runs twice: through ripgrep (on the PATH; scripts/provision.sh installs it) and
// through the fallback walk, which must keep and drop the same files.
for (const mode of ['ripgrep', 'fallback walk'] as const) {
  describe(`workspace listing and search (${mode})`, () => {
    let base: string;
    let root: string;
    let rg: string | null;
    let editor: EditorReader;
    let excludes: string[];

    /**
     * A walk that cannot finish in time: a ripgrep that never answers (a stand-in program that
     * only sleeps) stopped after 200 ms, or the fallback walk given a deadline already past.
     */
    const stalled = (): FsWorkspaceOptions => {
      if (mode === 'fallback walk') return { timeoutMs: -1 };
      const program = path.join(base, 'stalled-rg');
      fs.writeFileSync(program, '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
      return { ripgrep: program, timeoutMs: 200 };
    };
    const workspace = (options: FsWorkspaceOptions = {}) =>
      guardReads(new FsWorkspace(root, nodeFs, { text: editor, ripgrep: rg, excludes: () => excludes, ...options }), root, nodeFs);

    before(async () => {
      rg = mode === 'ripgrep' ? ((await findRipgrepOnPath()) ?? null) : null;
      if (mode === 'ripgrep') assert.ok(rg, 'no rg on the PATH: install ripgrep (scripts/provision.sh does)');
      base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-search-')));
      root = path.join(base, 'ws');
      write(root, {
        '.gitignore': 'gen/\n*.log\n',
        'src/app.ts': 'export const needle = 1;\nconst other = 2;\nuse(needle);\n',
        'src/app.log': 'needle in a log\n',
        'src/keep/.gitignore': '!important.log\n',
        'src/keep/important.log': 'needle kept by negation\n',
        'src/keep/nested/.gitignore': 'drop.ts\n',
        'src/keep/nested/drop.ts': 'needle dropped by a nested gitignore\n',
        'src/keep/nested/stay.ts': 'needle stays\n',
        'src/.ignore': 'scratch.ts\n',
        'src/scratch.ts': 'needle in .ignore\n',
        'gen/out.ts': 'needle generated\n',
        'vendor/lib.ts': 'needle vendored\n',
        'node_modules/pkg/index.js': 'needle installed\n',
        'private.ts': 'needle excluded by .git/info/exclude\n',
        '.git/info/exclude': 'private.ts\n',
        '.git/HEAD': 'needle in git\n',
        '.github/workflows/ci.yml': 'needle: in a dot folder\n',
        'bin.dat': 'needle\0binary\n',
      });
      write(base, { 'outside/secret.ts': 'needle outside\n' });
      fs.symlinkSync(path.join(base, 'outside'), path.join(root, 'linked-dir'));
      fs.symlinkSync(path.join(base, 'outside/secret.ts'), path.join(root, 'linked-file.ts'));
    });
    beforeEach(() => {
      editor = new EditorReader(new DiskReader(root, nodeFs));
      // What VS Code's search.exclude holds by default, and one the person added.
      excludes = ['**/node_modules', '**/vendor'];
    });
    after(() => fs.rmSync(base, { recursive: true, force: true }));

    const kept = ['.github/workflows/ci.yml', 'src/app.ts', 'src/keep/important.log', 'src/keep/nested/stay.ts'];

    it('searches what the ignore rules keep: nested .gitignore, negation, .ignore, info/exclude, excludes', async () => {
      const { hits, complete } = await workspace().searchText('needle', { limit: 100 });
      assert.ok(complete);
      assert.deepEqual([...new Set(hits.map((h) => h.path))], kept);
      const listed = (await workspace().listFiles('.', { recursive: true, limit: 100 })).paths.filter(
        (p) => !p.endsWith('.gitignore') && !p.endsWith('.ignore'),
      );
      assert.deepEqual(listed, ['.github/workflows/ci.yml', 'bin.dat', 'src/app.ts', 'src/keep/important.log', 'src/keep/nested/stay.ts']);
      assert.deepEqual((await workspace().findFiles('*.ts')).paths, ['src/app.ts', 'src/keep/nested/stay.ts']);
    });

    it('drops an exclude when the setting no longer holds it', async () => {
      excludes = ['**/node_modules'];
      assert.ok((await workspace().findFiles('*.ts')).paths.includes('vendor/lib.ts'));
    });

    it('follows no link, to a folder or a file, and still refuses to read one out', async () => {
      const found = (await workspace().findFiles('**')).paths;
      assert.ok(!found.some((p) => p.startsWith('linked')), found.join(', '));
      const { hits } = await workspace().searchText('outside', { limit: 100 });
      assert.deepEqual(hits, []);
      await assert.rejects(workspace().readFile('linked-file.ts'), /outside the workspace/);
    });

    it('searches the unsaved text of an open document, not its saved file, and keeps ignore rules for it', async () => {
      editor.unsaved.set('src/app.ts', 'export const changed = 1;\n');
      editor.unsaved.set('gen/out.ts', 'changed but ignored\n');
      const result = await workspace().searchText('changed', { limit: 100 });
      assert.deepEqual(result.hits, [{ path: 'src/app.ts', line: 1, text: 'export const changed = 1;' }]);
      const stale = await workspace().searchText('use(needle)', { limit: 100 });
      assert.deepEqual(stale.hits, [], 'a line only the saved file has was returned');
    });

    it('groups hits per file with context lines', async () => {
      const out = await run(searchText, workspace(), { query: 'other', context: 1 });
      assert.equal(out, 'src/app.ts\n  1- export const needle = 1;\n  2: const other = 2;\n  3- use(needle);');
    });

    it('says when it stopped at the limit, and never says "no matches" for a search that did not finish', async () => {
      const out = await run(searchText, workspace(), { query: 'needle', limit: 2, context: 0 });
      assert.match(out, /\[stopped at 2 matches; more exist: narrow with include/);
      const timedOut = await run(searchText, workspace(stalled()), { query: 'nothing-has-this' });
      assert.match(timedOut, /^no matches in the files searched so far, but not every file was searched\. \[the search hit its time bound/);
      assert.match(await run(searchText, workspace(), { query: 'nothing-has-this' }), /^no matches \(every file the ignore rules keep was searched\)$/);
      assert.match(await run(listFiles, workspace(), { dir: '.', recursive: true, limit: 2 }), /\[showing 2 of \d+ files; list a subfolder, or raise limit/);
      assert.match(await run(findFiles, workspace(stalled()), { glob: '*.nothing' }), /not every file was looked at/);
    });

    it('keeps RE2 semantics for a model pattern', async () => {
      await assert.rejects(workspace().searchText('needle(?=;)', { isRegex: true }), /RE2 syntax/);
      const { hits } = await workspace().searchText('^export const \\w+ = \\d;$', { isRegex: true, limit: 10 });
      assert.deepEqual(
        hits.map((h) => h.path),
        ['src/app.ts'],
      );
    });

    it('finds a word in one deep file among more than 5,000 (the old walk stopped there and said "no matches")', async function () {
      this.timeout(60_000);
      const big = path.join(base, 'big');
      for (let d = 0; d < 30; d += 1) {
        const dir = path.join(big, `pkg${d}`);
        fs.mkdirSync(dir, { recursive: true });
        for (let f = 0; f < 200; f += 1) fs.writeFileSync(path.join(dir, `f${f}.ts`), `export const v${f} = ${d};\n`);
      }
      write(big, { 'zz/a/b/c/d/e/deep.ts': 'export const rareWordXyzzy = 1;\n' });
      const ws = guardReads(new FsWorkspace(big, nodeFs, { ripgrep: rg }), big, nodeFs);
      assert.match(await run(searchText, ws, { query: 'rareWordXyzzy' }), /^zz\/a\/b\/c\/d\/e\/deep\.ts\n {2}1: export const rareWordXyzzy = 1;$/);
    });
  });
}

describe('read_file on large, binary and unsaved files', () => {
  let root: string;
  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-readrange-')));
    // 6 MB: past the 4 MB a single bounded read loads.
    const line = (i: number) => `line ${i} ${'x'.repeat(50)}`;
    fs.writeFileSync(path.join(root, 'big.txt'), `${Array.from({ length: 100_000 }, (_, i) => line(i + 1)).join('\n')}\n`);
    fs.writeFileSync(path.join(root, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]));
    fs.writeFileSync(path.join(root, 'open.ts'), 'saved 1\nsaved 2\n');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('reads a line range far past the first 4 MB, a binary file as a note, and an unsaved document as the editor has it', async () => {
    const editor = new EditorReader(new DiskReader(root, nodeFs));
    editor.unsaved.set('open.ts', 'unsaved 1\nunsaved 2\n');
    const ws = guardReads(new FsWorkspace(root, nodeFs, { text: editor }), root, nodeFs);
    assert.equal(
      await run(readFile, ws, { path: 'big.txt', startLine: 99_998, endLine: 99_999 }),
      `line 99998 ${'x'.repeat(50)}\nline 99999 ${'x'.repeat(50)}`,
    );
    assert.match(await run(readFile, ws, { path: 'big.txt' }), /only its first 4194304 bytes are read at once: read a line range/);
    assert.equal(await run(readFile, ws, { path: 'image.png' }), 'image.png is a binary file (it holds NUL bytes); its content is not shown.');
    assert.equal(await run(readFile, ws, { path: 'open.ts', startLine: 2, endLine: 2 }), 'unsaved 2');
    assert.equal(await run(readFile, ws, { path: 'big.txt', startLine: 200_000 }), '[big.txt has fewer than 200000 lines]');
    await assert.rejects(run(readFile, ws, { path: 'missing.txt', startLine: 2 }), /Could not read missing\.txt/);
  });
});

describe('workspace search: ripgrep and the fallback walk agree', () => {
  it('find_files: the same files through ripgrep and the walk, and the quick glob filter agrees with RE2', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-globagree-')));
    try {
      write(root, {
        'a.ts': '',
        'b.tsx': '',
        'src/c.ts': '',
        'src/d.js': '',
        'src/deep/e.ts': '',
        'src/deep/er/f.md': '',
        'docs/x1.md': '',
        'docs/x22.md': '',
        '.github/workflows/ci.yml': '',
        'dist/ignored.ts': '',
        '.gitignore': 'dist/\n',
      });
      const rg = await findRipgrepOnPath();
      assert.ok(rg, 'no rg on the PATH');
      const globs = [
        '*.ts',
        '**/*.ts',
        'src/*.ts',
        'src/**/*.ts',
        'src/**',
        '*.{ts,tsx}',
        'docs/x?.md',
        'docs/x[12]*.md',
        '**/deep/*',
        '**',
        '.github/**/*.yml',
        './src/*.js',
      ];
      const every = [
        ...(await new FsWorkspace(root, nodeFs, { ripgrep: null }).files('')).paths,
        'dist/ignored.ts',
        'x/a.ts.bak',
        'src',
        'src.ts',
        '.ts',
        'src/.ts',
        'srcx/a.ts',
        'SRC/A.TS',
      ];
      for (const glob of globs) {
        for (const p of every) {
          assert.equal(globFilter(glob)(p), compileGlob(glob)(p), `${glob} on ${p}`);
          const ci = { caseInsensitive: true };
          assert.equal(globFilter(glob, ci)(p), compileGlob(glob, ci)(p), `${glob} on ${p}, case-insensitive`);
        }
        const viaRg: string[] = (await new FsWorkspace(root, nodeFs, { ripgrep: rg }).findFiles(glob, { limit: 100 })).paths;
        const viaWalk = (await new FsWorkspace(root, nodeFs, { ripgrep: null }).findFiles(glob, { limit: 100 })).paths;
        assert.deepEqual(viaRg, viaWalk, glob);
        assert.ok(viaRg.length > 0, `${glob} found nothing`);
        assert.ok(!viaRg.includes('dist/ignored.ts'), `${glob} found a gitignored file`);
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('lists the files `git ls-files --others --cached --exclude-standard` lists', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-gitagree-')));
    try {
      execFileSync('git', ['init', '-q'], { cwd: root });
      write(root, {
        '.gitignore': 'build/\n*.tmp\n!keep.tmp\n',
        'a/.gitignore': '*.ts\n!b/*.ts\n',
        'a/x.ts': '',
        'a/b/y.ts': '',
        'a/c.js': '',
        'build/z.js': '',
        'one.tmp': '',
        'keep.tmp': '',
        'src/main.ts': '',
      });
      const git = execFileSync('git', ['ls-files', '--others', '--cached', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).trim().split('\n').sort();
      for (const rg of [(await findRipgrepOnPath()) ?? null, null]) {
        const listed = (await new FsWorkspace(root, nodeFs, { ripgrep: rg }).listFiles('.', { recursive: true })).paths;
        assert.deepEqual(listed, git, `ripgrep ${rg ?? 'none'}`);
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
