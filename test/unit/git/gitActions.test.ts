import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitActions } from '../../../src/core/actions/gitActions';
import type { ActionContext, ActionDef } from '../../../src/core/actions/types';
import { FsWorkspace } from '../../../src/core/approval/paths/fsWorkspace';
import { guardReads } from '../../../src/core/approval/paths/guardedWorkspace';
import { nodeFs } from '../../../src/core/approval/paths/nodeFs';
import { ReadOnlyGit } from '../../../src/core/git/readOnlyGit';
import { silentLogger } from '../../../src/core/ports';

/** A git that commits in the test's own repositories (identity given, no global config needed). */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', '-c', 'commit.gpgSign=false', ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: os.tmpdir(), GIT_CONFIG_NOSYSTEM: '1' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

function repository(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-git-'));
  git(root, 'init', '-q', '-b', 'main');
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src/greet.js'), 'export function greet(name) {\n  return "Hello " + name;\n}\n');
  fs.writeFileSync(path.join(root, 'README.md'), '# Demo\n');
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', 'Add greet');
  fs.writeFileSync(path.join(root, 'src/greet.js'), 'export function greet(name) {\n  return `Hi ${name}`;\n}\n');
  git(root, 'commit', '-q', '-am', 'Say hi instead');
  return root;
}

describe('read_git: the repository read through a git that runs nothing it configures', () => {
  const roots: string[] = [];
  after(() => roots.forEach((root) => fs.rmSync(root, { recursive: true, force: true })));

  function setup(options: { trusted?: boolean; env?: Record<string, string> } = {}) {
    const root = repository();
    roots.push(root);
    const reader = new ReadOnlyGit(root, { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...options.env } });
    const action = gitActions(reader, () => options.trusted ?? true)[0] as ActionDef;
    const ctx = {
      sessionId: 't',
      taskId: 't',
      workspace: guardReads(new FsWorkspace(root, nodeFs), root, nodeFs),
      logger: silentLogger,
    } as unknown as ActionContext;
    const read = (input: Record<string, unknown>) => action.run(action.input.parse(input), ctx) as Promise<string>;
    return { root, read, action };
  }

  it('reports status, the uncommitted diff, a commit, the log of a path and a blame', async () => {
    const { root, read } = setup();
    fs.writeFileSync(path.join(root, 'README.md'), '# Demo\n\nMore.\n');
    fs.writeFileSync(path.join(root, 'notes.txt'), 'new\n');

    const status = await read({ what: 'status' });
    assert.match(status, /^## main/m);
    assert.match(status, /^ M README\.md$/m);
    assert.match(status, /^\?\? notes\.txt$/m);

    const diff = await read({ what: 'diff' });
    assert.match(diff, /^\+More\.$/m);
    assert.doesNotMatch(diff, /greet/);

    const log = await read({ what: 'log', path: 'src/greet.js' });
    const lines = log.split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0], /^[0-9a-f]{7,} \d{4}-\d\d-\d\d Ada: Say hi instead$/);
    assert.match(lines[1], /Ada: Add greet$/);
    assert.equal((await read({ what: 'log', commit: 'HEAD~1' })).split('\n').length, 1);

    const shown = await read({ what: 'diff', commit: 'HEAD~1' });
    assert.match(shown, /^commit [0-9a-f]{40}$/m);
    assert.match(shown, /Add greet/);
    assert.match(shown, /^\+export function greet/m);

    const blame = await read({ what: 'blame', path: 'src/greet.js', lines: '2-2' });
    assert.equal(blame.split('\n').length, 1);
    assert.match(blame, /\(Ada \d{4}-\d\d-\d\d 2\)\s+return `Hi \$\{name\}`;/);
  });

  it('refuses paths outside the workspace, links out and revisions that are options', async () => {
    const { root, read } = setup();
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-outside-'));
    roots.push(outside);
    fs.symlinkSync(outside, path.join(root, 'out'));
    await assert.rejects(read({ what: 'log', path: '../elsewhere' }), /outside the workspace/);
    await assert.rejects(read({ what: 'blame', path: 'out/secret.txt' }), /outside the workspace|link/);
    await assert.rejects(read({ what: 'diff', commit: '--output=/tmp/tasklane-planted' }), /not a revision/);
    await assert.rejects(read({ what: 'diff', commit: 'no-such-branch' }), /No commit no-such-branch/);
    assert.ok(!fs.existsSync('/tmp/tasklane-planted'));
  });

  it('is withdrawn and refuses in Restricted Mode', async () => {
    const { read, action } = setup({ trusted: false });
    assert.equal(action.available?.(), false);
    await assert.rejects(read({ what: 'status' }), /Restricted Mode/);
  });

  it('bounds what one answer adds to the prompt', async () => {
    const { root, read } = setup();
    fs.writeFileSync(path.join(root, 'big.txt'), `${'line of text\n'.repeat(5000)}`);
    git(root, 'add', 'big.txt');
    const diff = await read({ what: 'diff' });
    assert.ok(diff.length < 12_200, `${diff.length} characters`);
    assert.match(diff, /\[truncated; give a path\]$/);
  });

  describe('a hostile repository', () => {
    /** A repository whose config names a program for every hook git reads could run. */
    function hostile() {
      const { root, read } = setup({ env: {} });
      const marker = path.join(root, '..', `${path.basename(root)}-ran.txt`);
      roots.push(marker);
      const program = path.join(root, '..', `${path.basename(root)}-program.sh`);
      roots.push(program);
      // Records that it ran, then passes its input through (what a filter or textconv must print).
      fs.writeFileSync(program, `#!/bin/sh\necho "ran $*" >> '${marker}'\ncat\n`, { mode: 0o755 });
      fs.writeFileSync(path.join(root, '.gitattributes'), '* diff=evil filter=evil\n');
      fs.appendFileSync(
        path.join(root, '.git/config'),
        [
          '[core]',
          `\tfsmonitor = ${program} fsmonitor`,
          `\tpager = ${program} pager`,
          '[diff]',
          `\texternal = ${program} external`,
          '[diff "evil"]',
          `\ttextconv = ${program} textconv`,
          `\tcommand = ${program} command`,
          '[filter "evil"]',
          `\tclean = ${program} clean`,
          `\tsmudge = ${program} smudge`,
          '\trequired = true',
          '[log]',
          '\tshowSignature = true',
          '[gpg]',
          `\tprogram = ${program}`,
          '',
        ].join('\n'),
      );
      fs.writeFileSync(path.join(root, '.git/hooks/post-index-change'), `#!/bin/sh\necho "ran post-index-change" >> '${marker}'\n`, { mode: 0o755 });
      // Changed and re-stamped files: status and diff must look at their content.
      fs.writeFileSync(path.join(root, 'src/greet.js'), 'export const planted = 1;\n');
      const later = new Date(Date.now() + 5000);
      fs.utimesSync(path.join(root, 'README.md'), later, later);
      return { root, read, marker };
    }
    const ran = (marker: string) => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '');

    it('runs none of its programs for status, diff, a commit, the log or a blame', async () => {
      const { read, marker } = hostile();
      assert.match(await read({ what: 'status' }), /^ M src\/greet\.js$/m);
      assert.match(await read({ what: 'diff' }), /^\+export const planted = 1;$/m);
      assert.match(await read({ what: 'diff', commit: 'HEAD' }), /Say hi instead/);
      assert.match(await read({ what: 'log', path: 'src/greet.js' }), /Say hi instead/);
      assert.match(await read({ what: 'blame', path: 'src/greet.js', lines: '1' }), /planted/);
      assert.equal(ran(marker), '', 'no program of the repository ran');
    });

    it('ignores GIT_* variables that would redirect it or run a diff program', async () => {
      const { root, marker } = hostile();
      const other = repository();
      roots.push(other);
      const reader = new ReadOnlyGit(root, {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: os.tmpdir(),
          GIT_DIR: path.join(other, '.git'),
          GIT_EXTERNAL_DIFF: `${marker}.sh`,
          GIT_PAGER: `${marker}.sh`,
        },
      });
      const { text } = await reader.run(['status', '--short', '--', '.']);
      assert.match(text, /src\/greet\.js/, 'the workspace repository was read, not GIT_DIR');
      assert.equal(ran(marker), '');
    });

    it('(control) plain git run in the same repository runs them', () => {
      const { root, marker } = hostile();
      git(root, 'status');
      git(root, 'diff', 'HEAD');
      git(root, 'log', '-1');
      git(root, 'blame', '--', 'src/greet.js');
      const log = ran(marker);
      for (const what of ['fsmonitor', 'command', 'clean', 'textconv', 'post-index-change']) assert.match(log, new RegExp(`ran ${what}`), `${what} ran`);
    });
  });
});
