import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readFile as readFileAction, searchText as searchTextAction } from '../../../src/core/actions/readActions';
import type { ActionContext, ActionDef } from '../../../src/core/actions/types';
import { ChangeSetDecider } from '../../../src/core/approval/changes/changeSetDecider';
import { createEditActions } from '../../../src/core/approval/changes/editActions';
import { DiskReader, FsWorkspace } from '../../../src/core/approval/paths/fsWorkspace';
import { guardReads } from '../../../src/core/approval/paths/guardedWorkspace';
import { nodeFs } from '../../../src/core/approval/paths/nodeFs';
import { TurnEffectsRecorder } from '../../../src/core/engine/turnEffects';
import { cutText, silentLogger } from '../../../src/core/ports';
import { EditorReader } from '../../fakes/editorReader';
import { FakeClock } from '../../fakes/fakeClock';
import { InMemoryChangeSetStore } from '../../../src/core/approval/changes/changeSetStore';

// One reading of the workspace (src/core/ports.ts WorkspaceReader): the read actions and the edit
// proposal read the same text, so an old_text copied from read_file matches what the proposal and
// its stale check see, unsaved editor changes included.
describe('one reading of the workspace: read actions and edits see the same (unsaved) text', () => {
  let ws: string;
  const clock = new FakeClock();

  beforeEach(async () => {
    ws = path.join(await realpath(await mkdtemp(path.join(tmpdir(), 'tasklane-reader-'))), 'ws');
    await mkdir(path.join(ws, 'src'), { recursive: true });
    await writeFile(path.join(ws, 'src/a.ts'), 'export const a = 1;\n');
  });
  afterEach(() => rm(path.dirname(ws), { recursive: true, force: true }));

  it('read_file and search_text return the unsaved text, and a replace_in_file from it is proposed and applies', async () => {
    const editor = new EditorReader(new DiskReader(ws, nodeFs));
    editor.unsaved.set('src/a.ts', 'export const a = 1;\nexport const unsaved = true;\n');
    const workspace = guardReads(new FsWorkspace(ws, nodeFs, { text: editor }), ws, nodeFs);
    const turn = new TurnEffectsRecorder(() => clock.now());
    const ctx: ActionContext = {
      sessionId: 't',
      taskId: 't',
      taskMode: 'simple',
      workspace,
      turn,
      now: () => clock.now(),
      logger: silentLogger,
      remember: async () => undefined,
      skillNames: [],
    };
    const run = (action: ActionDef, input: unknown) => action.run(action.input.parse(input), ctx) as Promise<string>;

    const shown = await run(readFileAction, { path: 'src/a.ts' });
    assert.equal(shown, 'export const a = 1;\nexport const unsaved = true;\n', 'read_file read the saved file, not the editor');
    assert.match(await run(searchTextAction, { query: 'unsaved = true' }), /^src\/a\.ts\n {2}1- export const a = 1;\n {2}2: export const unsaved = true;$/m);

    const store = new InMemoryChangeSetStore();
    const written: string[] = [];
    const decider = new ChangeSetDecider({
      store,
      files: editor,
      applier: { apply: async (changes) => void written.push(...changes.map((c) => c.after ?? '')) },
      ledger: { intent: async () => 'l', outcome: async () => undefined },
      durable: () => true,
      triggers: { emit: async () => ({}) as never },
      logger: silentLogger,
    });
    const edits = new Map(
      createEditActions({
        root: ws,
        fs: nodeFs,
        files: editor,
        store,
        decider,
        clock,
        policy: () => ({ autoApproveEdits: false }),
        taskChore: () => undefined,
      }).map((a) => [a.name, a]),
    );
    const replace = edits.get('replace_in_file') as ActionDef;
    // The old_text is a line only the unsaved text has.
    await run(replace, { path: 'src/a.ts', edits: [{ oldText: 'export const unsaved = true;', newText: 'export const unsaved = false;' }] });
    const id = turn.approval?.id;
    assert.ok(id, 'the edit was not proposed');
    const final = await decider.approve(id);
    assert.equal(final.status, 'applied', 'the proposal was stale against the text it was written from');
    assert.deepEqual(written, ['export const a = 1;\nexport const unsaved = false;\n']);
  });

  it('FsWorkspace without a reader reads the saved files (a headless run has no editor)', async () => {
    const workspace = new FsWorkspace(ws, nodeFs);
    assert.equal(await workspace.readFile('src/a.ts'), 'export const a = 1;\n');
    await assert.rejects(workspace.readFile('src/missing.ts'), /src\/missing\.ts does not exist/);
    assert.equal(await new DiskReader(ws, nodeFs).read('src/missing.ts'), null);
  });

  it('cutText never cuts inside a character', () => {
    assert.deepEqual(cutText('aé', 2), { text: 'a', truncated: true, size: 3 });
    assert.deepEqual(cutText('aé', 3), { text: 'aé', truncated: false, size: 3 });
  });
});
