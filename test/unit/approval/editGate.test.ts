import * as assert from 'node:assert/strict';
import { mkdtemp, mkdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { EditOperation } from '../../../src/core/approval/changes/changeSet';
import { approveChangeSet, classifyChangeSet } from '../../../src/core/approval/changes/changeSetReview';
import { nodeFs } from '../../../src/core/approval/paths/nodeFs';
import { resolveWorkspacePath } from '../../../src/core/approval/paths/pathGuard';
import { proposeChangeSet } from '../../../src/core/approval/changes/proposeChangeSet';
import { classifyResolvedEdit } from '../../../src/core/approval/paths/sensitivePaths';
import type { Clock } from '../../../src/core/ports';
import { readOrNull } from '../../support/files';

const clock: Clock = { now: () => 1, setTimeout: () => ({ cancel() {} }) };
const auto = { autoApproveEdits: true };

// The pieces as the engine strings them together: guard each path, classify, propose over the real disk.
describe('approval: guard, policy and proposal together (real temp workspace)', () => {
  let base: string;
  let ws: string;
  const files = {
    read: async (relative: string): Promise<string | null> => readOrNull(path.join(ws, relative)),
  };

  before(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'gate-')));
    ws = path.join(base, 'ws');
    await mkdir(path.join(ws, 'conf'), { recursive: true });
    await mkdir(path.join(ws, 'src'));
    await writeFile(path.join(ws, 'conf', 'settings.json'), '{}\n');
    await writeFile(path.join(ws, 'src', 'a.ts'), 'export const a = 1;\n');
    await symlink('conf', path.join(ws, '.vscode'));
    await symlink('.vscode', path.join(ws, 'cfg'));
  });

  after(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('asks for .vscode/settings.json even when .vscode is a symlink to an ordinary folder', async () => {
    const resolved = await resolveWorkspacePath(ws, '.vscode/settings.json', nodeFs);
    assert.ok(resolved.ok);
    assert.equal(resolved.relativePath, 'conf/settings.json');
    assert.equal(classifyResolvedEdit(resolved, auto).decision, 'ask');
  });

  it('asks for a link that writes into a sensitive folder under another name', async () => {
    const resolved = await resolveWorkspacePath(ws, 'cfg/settings.json', nodeFs);
    assert.ok(resolved.ok);
    // Neither the request nor the physical path is sensitive; the hop through .vscode is.
    assert.deepEqual(resolved.aliases, ['cfg/settings.json', '.vscode/settings.json', 'conf/settings.json']);
    const result = classifyResolvedEdit(resolved, auto);
    assert.equal(result.decision, 'ask');
    assert.match(result.decision === 'ask' ? result.reason : '', /^\.vscode\/settings\.json always needs approval/);
  });

  it('lets an ordinary auto-approved edit through and asks for a rename into a sensitive path', async () => {
    const operations: EditOperation[] = [{ op: 'replace_in_file', path: 'src/a.ts', edits: [{ oldText: '= 1', newText: '= 2' }] }];
    const set = await proposeChangeSet({ taskId: 't', sessionId: 's', operations }, { files, clock });
    assert.deepEqual(classifyChangeSet(set, auto), { decision: 'auto' });
    assert.equal(classifyChangeSet(set, { autoApproveEdits: false }).decision, 'ask');

    const rename = await proposeChangeSet(
      { taskId: 't', sessionId: 's', operations: [{ op: 'rename_file', path: 'src/a.ts', newPath: 'package.json' }] },
      { files, clock },
    );
    const result = classifyChangeSet(rename, auto);
    assert.equal(result.decision, 'ask');
    assert.match(result.decision === 'ask' ? result.reason : '', /package\.json always needs approval/);
  });

  it('refuses to apply after the file changes on disk, then accepts a fresh proposal', async () => {
    const operations: EditOperation[] = [{ op: 'replace_in_file', path: 'src/a.ts', edits: [{ oldText: '= 1', newText: '= 2' }] }];
    const set = await proposeChangeSet({ taskId: 't', sessionId: 's', operations }, { files, clock });
    await writeFile(path.join(ws, 'src', 'a.ts'), 'export const a = 1; // touched\n');
    const stale = await approveChangeSet(set, files);
    assert.equal(stale.ok, false);
    const again = await proposeChangeSet({ taskId: 't', sessionId: 's', operations }, { files, clock });
    const fresh = await approveChangeSet(again, files);
    assert.ok(fresh.ok);
    assert.equal(fresh.apply[0].after, 'export const a = 2; // touched\n');
  });
});
