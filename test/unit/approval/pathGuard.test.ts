import * as assert from 'node:assert/strict';
import { mkdtemp, mkdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { nodeFs } from '../../../src/core/approval/paths/nodeFs';
import { resolveWorkspacePath } from '../../../src/core/approval/paths/pathGuard';
import type { WorkspacePathResolution } from '../../../src/core/approval/paths/pathGuard';

function assertInside(result: WorkspacePathResolution): Extract<WorkspacePathResolution, { ok: true }> {
  if (!result.ok) assert.fail(`expected the path to be accepted, got: ${result.reason}`);
  return result;
}

function assertRefused(result: WorkspacePathResolution, pattern: RegExp): void {
  if (result.ok) assert.fail(`expected a refusal, got ${result.absolutePath}`);
  assert.match(result.reason, pattern);
}

describe('approval: resolveWorkspacePath (real temp dirs, real symlinks)', () => {
  let base: string;
  let ws: string;
  let outside: string;

  before(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'guard-')));
    ws = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    await mkdir(path.join(ws, 'src', 'nested'), { recursive: true });
    await mkdir(outside);
    await mkdir(path.join(base, 'ws-evil'));
    await writeFile(path.join(ws, 'src', 'a.ts'), 'a');
    await writeFile(path.join(outside, 'secret.txt'), 'secret');
    await symlink('../outside', path.join(ws, 'link-out'));
    await symlink('src', path.join(ws, 'link-in'));
    await symlink('../outside/secret.txt', path.join(ws, 'file-link-out'));
    await symlink('../outside/not-yet.txt', path.join(ws, 'dangling-out'));
    await symlink(path.join(outside, 'abs-not-yet.txt'), path.join(ws, 'dangling-abs-out'));
    await symlink('src/new.ts', path.join(ws, 'dangling-in'));
    await symlink('loop-b', path.join(ws, 'loop-a'));
    await symlink('loop-a', path.join(ws, 'loop-b'));
    // A link whose relative target climbs out and back in stays inside.
    await symlink('../../../ws/src', path.join(ws, 'src', 'nested', 'round-trip'));
    // A link inside the workspace to a link that leaves it.
    await symlink('link-out', path.join(ws, 'chain-out'));
    await symlink('ws', path.join(base, 'ws-alias'));
  });

  after(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('accepts a plain relative path and reports where it lands', async () => {
    const result = assertInside(await resolveWorkspacePath(ws, 'src/a.ts', nodeFs));
    assert.equal(result.absolutePath, path.join(ws, 'src', 'a.ts'));
    assert.equal(result.relativePath, 'src/a.ts');
    assert.equal(result.exists, true);
  });

  it('accepts a file that does not exist yet, in a directory that does not either', async () => {
    const result = assertInside(await resolveWorkspacePath(ws, 'src/new/dir/b.ts', nodeFs));
    assert.equal(result.relativePath, 'src/new/dir/b.ts');
    assert.equal(result.exists, false);
  });

  it('normalises ./, duplicate slashes, backslashes and inner .. that stay inside', async () => {
    for (const requested of ['./src//a.ts', 'src\\a.ts', 'src/nested/../a.ts', '.\\src\\.\\a.ts']) {
      const result = assertInside(await resolveWorkspacePath(ws, requested, nodeFs));
      assert.equal(result.relativePath, 'src/a.ts', requested);
    }
  });

  it('refuses .. escapes with a message the model can act on', async () => {
    const result = await resolveWorkspacePath(ws, 'src/../../etc/passwd', nodeFs);
    assertRefused(result, /^src\/\.\.\/\.\.\/etc\/passwd resolves outside the workspace; use a path relative to the workspace root$/);
    assertRefused(await resolveWorkspacePath(ws, '..\\outside\\secret.txt', nodeFs), /resolves outside the workspace/);
  });

  it('refuses a sibling directory that shares the root as a string prefix', async () => {
    assertRefused(await resolveWorkspacePath(ws, '../ws-evil/a.txt', nodeFs), /outside the workspace/);
    assertRefused(await resolveWorkspacePath(ws, path.join(base, 'ws-evil', 'a.txt'), nodeFs), /outside the workspace/);
  });

  it('accepts absolute paths inside the root and refuses absolute paths outside', async () => {
    assert.equal(assertInside(await resolveWorkspacePath(ws, path.join(ws, 'src', 'a.ts'), nodeFs)).relativePath, 'src/a.ts');
    assertRefused(await resolveWorkspacePath(ws, '/etc/passwd', nodeFs), /^\/etc\/passwd resolves outside the workspace/);
  });

  it('refuses empty paths and NUL bytes', async () => {
    assertRefused(await resolveWorkspacePath(ws, '  ', nodeFs), /empty/);
    assertRefused(await resolveWorkspacePath(ws, 'src/a.ts\0.png', nodeFs), /NUL/);
  });

  it('refuses a symlinked file that points outside', async () => {
    assertRefused(await resolveWorkspacePath(ws, 'file-link-out', nodeFs), /outside the workspace through the symbolic link file-link-out/);
  });

  it('refuses a path whose parent directory is a symlink out of the workspace', async () => {
    assertRefused(await resolveWorkspacePath(ws, 'link-out/secret.txt', nodeFs), /through the symbolic link link-out/);
    assertRefused(await resolveWorkspacePath(ws, 'link-out/new-file.txt', nodeFs), /through the symbolic link link-out/);
    assertRefused(await resolveWorkspacePath(ws, 'chain-out/secret.txt', nodeFs), /through the symbolic link chain-out/);
  });

  it('refuses a symlink out of the workspace whose target does not exist yet', async () => {
    assertRefused(await resolveWorkspacePath(ws, 'dangling-out', nodeFs), /outside the workspace through the symbolic link dangling-out/);
    assertRefused(await resolveWorkspacePath(ws, 'dangling-abs-out', nodeFs), /outside the workspace/);
  });

  it('follows symlinks that stay inside and reports both the physical and the requested path', async () => {
    const viaDir = assertInside(await resolveWorkspacePath(ws, 'link-in/a.ts', nodeFs));
    assert.equal(viaDir.relativePath, 'src/a.ts');
    assert.equal(viaDir.requestedRelativePath, 'link-in/a.ts');
    assert.deepEqual(viaDir.aliases, ['link-in/a.ts', 'src/a.ts']);
    const dangling = assertInside(await resolveWorkspacePath(ws, 'dangling-in', nodeFs));
    assert.equal(dangling.relativePath, 'src/new.ts');
    assert.equal(dangling.exists, false);
    const roundTrip = assertInside(await resolveWorkspacePath(ws, 'src/nested/round-trip/a.ts', nodeFs));
    assert.equal(roundTrip.relativePath, 'src/a.ts');
  });

  it('names a file reached directly through the target of a sensitive link by the sensitive spelling too', async () => {
    const linked = path.join(base, 'linked-ws');
    await mkdir(path.join(linked, 'conf'), { recursive: true });
    await writeFile(path.join(linked, 'conf', 'settings.json'), '{}');
    await writeFile(path.join(linked, 'pkg.json'), '{}');
    await symlink('conf', path.join(linked, '.vscode'));
    await symlink('pkg.json', path.join(linked, 'package.json'));
    const direct = assertInside(await resolveWorkspacePath(linked, 'conf/settings.json', nodeFs));
    assert.ok(direct.aliases.includes('.vscode/settings.json'), direct.aliases.join(', '));
    const pkg = assertInside(await resolveWorkspacePath(linked, 'pkg.json', nodeFs));
    assert.ok(pkg.aliases.includes('package.json'), pkg.aliases.join(', '));
    const unrelated = assertInside(await resolveWorkspacePath(linked, 'conf-other.json', nodeFs));
    assert.deepEqual(unrelated.aliases, ['conf-other.json']);
  });

  it('refuses symlink loops instead of spinning', async () => {
    assertRefused(await resolveWorkspacePath(ws, 'loop-a/x', nodeFs), /more than 40 symbolic links/);
  });

  it('works when the workspace root itself is reached through a symlink', async () => {
    const alias = path.join(base, 'ws-alias');
    const result = assertInside(await resolveWorkspacePath(alias, 'src/a.ts', nodeFs));
    assert.equal(result.absolutePath, path.join(ws, 'src', 'a.ts'));
    assert.equal(assertInside(await resolveWorkspacePath(alias, path.join(ws, 'src', 'a.ts'), nodeFs)).relativePath, 'src/a.ts');
    assertRefused(await resolveWorkspacePath(alias, '../outside/secret.txt', nodeFs), /outside the workspace/);
  });

  it('compares case-insensitively only when the file system does', async () => {
    const upperAbsolute = path.join(ws.toUpperCase(), 'src', 'a.ts');
    assertRefused(await resolveWorkspacePath(ws, upperAbsolute, nodeFs), /outside the workspace/);
    const result = assertInside(await resolveWorkspacePath(ws, upperAbsolute, nodeFs, { caseInsensitive: true }));
    assert.equal(result.relativePath, 'src/a.ts');
  });

  it('fails closed when a component cannot be inspected', async () => {
    const denying = {
      ...nodeFs,
      lstat: async () => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      },
    };
    assertRefused(await resolveWorkspacePath(ws, 'src/a.ts', denying), /^src\/a\.ts cannot be checked \(EACCES\); use another path/);
  });

  it('says what to do when the workspace root is gone', async () => {
    await assert.rejects(resolveWorkspacePath(path.join(base, 'no-such-root'), 'a.ts', nodeFs), /cannot be resolved.*reopen the folder/);
  });
});
