import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readActions } from '../../../src/core/actions/readActions';
import type { ActionContext, ActionDef } from '../../../src/core/actions/types';
import type { FileChange } from '../../../src/core/approval/changes/changeSet';
import { ChangeSetDecider } from '../../../src/core/approval/changes/changeSetDecider';
import { InMemoryChangeSetStore } from '../../../src/core/approval/changes/changeSetStore';
import { guardRestricted } from '../../../src/core/approval/commands/commandActions';
import { createEditActions } from '../../../src/core/approval/changes/editActions';
import { applyTimeGuard, inspectEditTarget } from '../../../src/core/approval/paths/editTarget';
import { FsWorkspace } from '../../../src/core/approval/paths/fsWorkspace';
import { guardReads } from '../../../src/core/approval/paths/guardedWorkspace';
import { nodeFs } from '../../../src/core/approval/paths/nodeFs';
import { resolveWorkspacePath } from '../../../src/core/approval/paths/pathGuard';
import { compileGlob } from '../../../src/core/approval/changes/textMatch';
import { classifyResolvedEdit } from '../../../src/core/approval/paths/sensitivePaths';
import { TurnEffectsRecorder } from '../../../src/core/engine/turnEffects';
import type { FoundFiles, SearchHit, WorkspacePort } from '../../../src/core/ports';
import { silentLogger } from '../../../src/core/ports';
import { FakeClock } from '../../fakes/fakeClock';
import { attack } from './attackTally';

const SECRET = 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG';

/**
 * What VS Code's file search does by default (`search.followSymlinks: true`): walk through
 * linked folders. The guard must hold even over an inner port this careless.
 */
class FollowingWorkspace implements WorkspacePort {
  constructor(private readonly root: string) {}
  private all(dir: string, depth = 0): string[] {
    if (depth > 6) return [];
    const out: string[] = [];
    for (const name of fs.readdirSync(path.join(this.root, dir))) {
      const rel = dir ? `${dir}/${name}` : name;
      let stats: fs.Stats;
      try {
        stats = fs.statSync(path.join(this.root, rel));
      } catch {
        continue;
      }
      if (stats.isDirectory()) out.push(...this.all(rel, depth + 1));
      else out.push(rel);
    }
    return out;
  }
  async readFile(p: string): Promise<string> {
    return fs.readFileSync(path.join(this.root, p), 'utf8');
  }
  async listFiles(dir: string, options: { recursive?: boolean } = {}): Promise<string[]> {
    const base = dir === '.' ? '' : dir.replace(/\/$/, '');
    if (options.recursive) return this.all(base).sort();
    return fs.readdirSync(path.join(this.root, base)).map((n) => (base ? `${base}/${n}` : n));
  }
  async searchText(query: string): Promise<SearchHit[]> {
    const hits: SearchHit[] = [];
    for (const file of this.all('')) {
      fs.readFileSync(path.join(this.root, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (line.includes(query)) hits.push({ path: file, line: i + 1, text: line });
        });
    }
    return hits;
  }
  async findFiles(glob: string): Promise<FoundFiles> {
    const matches = compileGlob(glob);
    return { paths: this.all('').filter(matches), complete: true };
  }
}

describe('security: one path guard for seeing and changing files (real links in a temp workspace)', () => {
  let base: string;
  let ws: string;
  let outside: string;
  const clock = new FakeClock();

  before(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-links-')));
    ws = path.join(base, 'ws');
    outside = path.join(base, 'home');
    fs.mkdirSync(path.join(outside, '.aws'), { recursive: true });
    fs.writeFileSync(path.join(outside, '.aws/credentials'), `[default]\naws_access_key_id = AKIAEXAMPLE\n${SECRET}\n`);
    fs.writeFileSync(path.join(outside, 'hard-source.txt'), 'aws_hard = linked secret\n');
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'shared-vscode'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'packages/app'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'const aws_region = "inside";\n');
    fs.writeFileSync(path.join(ws, 'shared-vscode/tasks.json'), '{}\n');
    fs.writeFileSync(path.join(ws, 'notes.md'), 'plain\n');
    // Links a repository can ship (git stores symlinks), and a hard link a command could make.
    fs.symlinkSync('../../home', path.join(ws, 'docs/assets'));
    fs.symlinkSync(outside, path.join(ws, 'abs-home'));
    fs.symlinkSync(path.join(outside, '.aws/credentials'), path.join(ws, 'creds.txt'));
    fs.symlinkSync('../../shared-vscode', path.join(ws, 'packages/app/.vscode'));
    fs.symlinkSync('../src', path.join(ws, 'docs/src-link'));
    fs.linkSync(path.join(outside, 'hard-source.txt'), path.join(ws, 'hard.txt'));
    fs.writeFileSync(path.join(ws, 'README-copy.txt'), 'readme\n');
    fs.linkSync(path.join(ws, 'README-copy.txt'), path.join(ws, 'README-hardlink.txt'));
  });
  after(() => fs.rmSync(base, { recursive: true, force: true }));

  const inners = (): Array<[string, WorkspacePort]> => [
    ['FsWorkspace', new FsWorkspace(ws, nodeFs)],
    ['an inner port that follows links', new FollowingWorkspace(ws)],
  ];
  const outsideHit = (hits: Array<{ path: string; text: string }>) =>
    hits.filter(
      (h) =>
        h.text.includes('wJalr') ||
        h.text.includes('AKIA') ||
        h.text.includes('aws_hard') ||
        h.path.includes('assets') ||
        h.path.includes('abs-home') ||
        h.path.includes('creds'),
    );

  it('search_text never returns a line from a file outside the workspace, whatever the include glob', async () => {
    for (const [label, inner] of inners()) {
      const guarded = guardReads(inner, ws, nodeFs);
      for (const include of [undefined, 'docs/assets/**', '**', 'abs-home/**', '**/credentials', 'creds.txt', 'hard.txt', '*']) {
        await attack('search through a link out', async () => {
          const { hits } = await guarded.searchText('aws_', { include, limit: 500 });
          assert.deepEqual(outsideHit(hits), [], `${label}, include ${include}: ${JSON.stringify(hits)}`);
        });
      }
      // The inside hit is still found (through the direct path), so the filter is not "return nothing".
      assert.ok(
        (await guarded.searchText('aws_', { limit: 500 })).hits.some((h) => h.path === 'src/a.ts'),
        label,
      );
    }
  });

  it('recursive list_files never lists what a link out leads to', async () => {
    for (const [label, inner] of inners()) {
      const guarded = guardReads(inner, ws, nodeFs);
      for (const dir of ['.', 'docs', '']) {
        await attack('list through a link out', async () => {
          const files = (await guarded.listFiles(dir, { recursive: true, limit: 1000 })).paths;
          assert.deepEqual(
            files.filter((f) => /assets|abs-home|creds|credentials/.test(f)),
            [],
            `${label} ${dir}: ${files.join(', ')}`,
          );
          assert.ok(files.includes('src/a.ts') || dir === 'docs', `${label}: inside files are still listed`);
        });
      }
      for (const dir of ['docs/assets', 'abs-home', 'docs/assets/.aws']) {
        await attack('list through a link out', () => assert.rejects(guarded.listFiles(dir, { recursive: true }), /outside the workspace/));
      }
      await attack('list through a link out', async () => {
        const top = (await guarded.listFiles('.', {})).paths;
        assert.ok(!top.some((f) => f.startsWith('abs-home') || f.startsWith('creds')), top.join(', '));
      });
    }
  });

  it('find_files never names what a link out leads to, whatever the glob', async () => {
    for (const [label, inner] of inners()) {
      const guarded = guardReads(inner, ws, nodeFs);
      for (const glob of ['**', '*', 'docs/assets/**', 'abs-home/**', '**/credentials', 'creds.txt', '**/*.txt']) {
        await attack('find through a link out', async () => {
          const { paths } = await guarded.findFiles(glob, { limit: 1000 });
          assert.deepEqual(
            paths.filter((f) => /assets|abs-home|creds|credentials|hard\.txt/.test(f)),
            [],
            `${label}, glob ${glob}: ${paths.join(', ')}`,
          );
        });
      }
      for (const glob of ['../**', '/etc/*', '..\\*']) {
        await attack('find outside the root', () => assert.rejects(guarded.findFiles(glob), /reaches outside the workspace/));
      }
      // The inside file is still found, so the filter is not "return nothing".
      assert.ok((await guarded.findFiles('*.ts')).paths.includes('src/a.ts'), label);
    }
  });

  it('holds in Restricted Mode too: the read actions stay available and still go through the guard', async () => {
    const actions = new Map(guardRestricted(readActions, () => false).map((a) => [a.name, a] as const));
    const ctx = {
      sessionId: 's',
      taskId: 't',
      workspace: guardReads(new FollowingWorkspace(ws), ws, nodeFs),
      turn: new TurnEffectsRecorder(() => clock.now()),
      now: () => clock.now(),
      logger: silentLogger,
      remember: async () => undefined,
      skillNames: [],
    } as ActionContext;
    const run = (name: string, input: unknown) =>
      (actions.get(name) as ActionDef).run((actions.get(name) as ActionDef).input.parse(input), ctx) as Promise<string>;
    for (const input of [{ query: 'wJalr' }, { query: 'aws_', include: 'docs/assets/**' }, { query: 'AKIA', isRegex: false }]) {
      await attack('restricted-mode search/list', async () => assert.doesNotMatch(await run('search_text', input), /wJalr|AKIA/));
    }
    await attack('restricted-mode search/list', async () => assert.doesNotMatch(await run('list_files', { dir: '.', recursive: true }), /credentials|assets/));
    await attack('restricted-mode search/list', () => assert.rejects(run('read_file', { path: 'docs/assets/.aws/credentials' }), /outside the workspace/));
  });

  it('read_file refuses links out at every level and hard-linked files', async () => {
    const guarded = guardReads(new FsWorkspace(ws, nodeFs), ws, nodeFs);
    for (const p of [
      'docs/assets/.aws/credentials',
      'abs-home/.aws/credentials',
      'creds.txt',
      'docs/src-link/../assets/.aws/credentials',
      '../home/.aws/credentials',
      path.join(outside, '.aws/credentials'),
    ]) {
      await attack('read through a link out', () => assert.rejects(guarded.readFile(p), /outside the workspace/, p));
    }
    for (const p of ['hard.txt', 'README-hardlink.txt']) {
      await attack('hard link', () => assert.rejects(guarded.readFile(p), /hard link/, p));
    }
    assert.equal(await guarded.readFile('docs/src-link/a.ts'), 'const aws_region = "inside";\n', 'a link that stays inside is fine');
  });

  it('an edit of a hard-linked file, or of a file a nested .vscode link points into, always asks', async () => {
    const policy = { autoApproveEdits: true };
    const cases: Array<[string, RegExp]> = [
      ['README-hardlink.txt', /hard link/],
      ['hard.txt', /hard link/],
      ['shared-vscode/tasks.json', /\.vscode\/tasks\.json always needs approval/],
      ['packages/app/.vscode/tasks.json', /\.vscode\/tasks\.json always needs approval/],
    ];
    for (const [p, reason] of cases) {
      await attack(p.includes('hard') ? 'hard link' : 'nested sensitive link', async () => {
        const resolved = await resolveWorkspacePath(ws, p, nodeFs);
        assert.ok(resolved.ok, p);
        const verdict = classifyResolvedEdit(await inspectEditTarget(ws, resolved, nodeFs), policy);
        assert.equal(verdict.decision, 'ask', p);
        assert.match(verdict.decision === 'ask' ? verdict.reason : '', reason);
      });
    }
    const plain = await resolveWorkspacePath(ws, 'notes.md', nodeFs);
    assert.ok(plain.ok);
    assert.deepEqual(classifyResolvedEdit(await inspectEditTarget(ws, plain, nodeFs), policy), { decision: 'auto' }, 'an ordinary file still auto-applies');
    // A workspace too large to scan is not vouched for.
    const capped = await inspectEditTarget(ws, plain, nodeFs, { maxEntries: 2 });
    assert.equal(capped.complete, false);
    assert.equal(classifyResolvedEdit(capped, policy).decision, 'ask');
  });

  describe('apply time: the guard runs again', () => {
    let root: string;
    let victim: string;
    let store: InMemoryChangeSetStore;

    beforeEach(() => {
      root = path.join(base, `apply-${Math.random().toString(36).slice(2)}`);
      victim = path.join(base, `victim-${Math.random().toString(36).slice(2)}`);
      fs.mkdirSync(path.join(root, 'build'), { recursive: true });
      fs.mkdirSync(victim, { recursive: true });
      fs.writeFileSync(path.join(root, 'build/existing.txt'), 'old\n');
      fs.writeFileSync(path.join(victim, 'existing.txt'), 'old\n');
      store = new InMemoryChangeSetStore();
    });

    function setup(recheck: boolean) {
      const read = async (p: string) => {
        try {
          return fs.readFileSync(path.join(root, p), 'utf8');
        } catch {
          return null;
        }
      };
      // Like VS Code's WorkspaceEdit: it writes at root/path, following whatever links are there now.
      const apply = async (changes: readonly FileChange[]) => {
        for (const c of changes) fs.writeFileSync(path.join(root, c.path), c.after ?? '');
      };
      const decider = new ChangeSetDecider({
        store,
        files: { read },
        applier: { apply },
        ledger: { intent: async () => 'l', outcome: async () => undefined },
        durable: () => true,
        triggers: { emit: async () => ({}) as never },
        logger: silentLogger,
        ...(recheck ? { recheck: applyTimeGuard(root, nodeFs) } : {}),
      });
      const actions = new Map(
        createEditActions({
          root,
          fs: nodeFs,
          files: { read },
          store,
          decider,
          clock,
          policy: () => ({ autoApproveEdits: false }),
          taskChore: () => undefined,
        }).map((a) => [a.name, a]),
      );
      return { decider, actions };
    }

    const swap = () => {
      fs.rmSync(path.join(root, 'build'), { recursive: true });
      fs.symlinkSync(victim, path.join(root, 'build'));
    };

    for (const [label, op, input] of [
      ['a create', 'create_file', { path: 'build/new.txt', content: 'planted\n' }],
      ['a modify', 'write_file', { path: 'build/existing.txt', content: 'planted\n' }],
    ] as const) {
      it(`refuses ${label} whose folder became a link out between proposal and approval`, async () => {
        const { decider, actions } = setup(true);
        const action = actions.get(op) as ActionDef;
        const turn = new TurnEffectsRecorder(() => clock.now());
        await action.run(action.input.parse(input), {
          sessionId: 't',
          taskId: 't',
          turn,
          workspace: new FsWorkspace(root, nodeFs),
          now: () => 0,
          logger: silentLogger,
          remember: async () => undefined,
          skillNames: [],
        } as ActionContext);
        assert.ok(turn.approval, 'the edit waits for approval');
        swap();
        await attack('apply-time re-check', async () => {
          const final = await decider.approve(turn.approval!.id);
          assert.equal(final.status, 'stale');
          assert.match(final.reason ?? '', /outside the workspace|changed since the proposal/);
          assert.ok(!fs.readdirSync(victim).some((f) => fs.readFileSync(path.join(victim, f), 'utf8').includes('planted')), 'nothing was written outside');
        });
      });
    }

    it('(control) without the re-check the same swap writes outside the workspace', async () => {
      const { decider, actions } = setup(false);
      const action = actions.get('create_file') as ActionDef;
      const turn = new TurnEffectsRecorder(() => clock.now());
      await action.run(action.input.parse({ path: 'build/new.txt', content: 'planted\n' }), {
        sessionId: 't',
        taskId: 't',
        turn,
        workspace: new FsWorkspace(root, nodeFs),
        now: () => 0,
        logger: silentLogger,
        remember: async () => undefined,
        skillNames: [],
      } as ActionContext);
      swap();
      await decider.approve(turn.approval!.id);
      assert.equal(fs.readFileSync(path.join(victim, 'new.txt'), 'utf8'), 'planted\n');
    });
  });
});
