import * as assert from 'node:assert/strict';
import { mkdtemp, mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ActionContext, ActionDef } from '../../../src/core/actions/types';
import { ChangeSetDecider } from '../../../src/core/approval/changes/changeSetDecider';
import { InMemoryChangeSetStore } from '../../../src/core/approval/changes/changeSetStore';
import { createEditActions } from '../../../src/core/approval/changes/editActions';
import { nodeFs } from '../../../src/core/approval/paths/nodeFs';
import { applyReplacements } from '../../../src/core/approval/changes/renameSymbol';
import type { CodeLocation, FileRename } from '../../../src/core/codeIntel/codeIntelPort';
import { TurnEffectsRecorder } from '../../../src/core/engine/turnEffects';
import { silentLogger } from '../../../src/core/ports';
import { FakeClock } from '../../fakes/fakeClock';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';
import { readOrNull } from '../../support/files';

// rename_symbol over a real temp workspace: the "language server" answers with the ranges of every
// whole-word use, as a rename provider does; the proposal, the decision and the disk are the real ones.
describe('approval: rename_symbol proposes the language server rename as one change set', () => {
  let ws: string;
  let store: InMemoryChangeSetStore;
  let decider: ChangeSetDecider;
  let actions: Map<string, ActionDef>;
  /** The edit actions' dependencies, without a rename (as the command line builds them). */
  let common: Parameters<typeof createEditActions>[0];
  let asked: Array<{ at: CodeLocation; newName: string }>;
  const clock = new FakeClock();
  const disk = async (relative: string) => readOrNull(path.join(ws, relative));

  /** Every whole-word `name` in the files, as replacements (what TypeScript's rename returns for this sample). */
  async function serverRename(at: CodeLocation, newName: string): Promise<FileRename[]> {
    asked.push({ at, newName });
    const line = ((await disk(at.path)) ?? '').split('\n')[at.line - 1] ?? '';
    const name = /^[\w$]+/.exec(line.slice(at.column - 1))?.[0] ?? '';
    const out: FileRename[] = [];
    for (const file of ['src/shapes.ts', 'src/use.ts']) {
      const lines = ((await disk(file)) ?? '').split('\n');
      const edits = lines.flatMap((text, i) =>
        [...text.matchAll(new RegExp(`\\b${name}\\b`, 'g'))].map((m) => ({
          path: file,
          line: i + 1,
          column: (m.index ?? 0) + 1,
          endLine: i + 1,
          endColumn: (m.index ?? 0) + 1 + name.length,
          newText: newName,
        })),
      );
      if (edits.length) out.push({ path: file, edits });
    }
    return out;
  }

  function context(): ActionContext & { turn: TurnEffectsRecorder } {
    return {
      sessionId: 't-1',
      taskId: 't-1',
      taskMode: 'simple',
      workspace: new MemoryWorkspace(),
      turn: new TurnEffectsRecorder(() => clock.now()),
      now: () => clock.now(),
      logger: silentLogger,
      remember: async () => undefined,
      skillNames: [],
    };
  }
  const run = (input: unknown, ctx: ActionContext) => {
    const action = actions.get('rename_symbol') as ActionDef;
    return action.run(action.input.parse(input), ctx) as Promise<string>;
  };

  beforeEach(async () => {
    ws = path.join(await realpath(await mkdtemp(path.join(tmpdir(), 'tasklane-rename-'))), 'ws');
    await mkdir(path.join(ws, 'src'), { recursive: true });
    await writeFile(path.join(ws, 'src/shapes.ts'), 'export function circleArea(r: number) {\n  return Math.PI * r * r;\n}\n');
    await writeFile(path.join(ws, 'src/use.ts'), "import { circleArea } from './shapes';\nexport const both = circleArea(1) + circleArea(2);\n");
    asked = [];
    store = new InMemoryChangeSetStore();
    decider = new ChangeSetDecider({
      store,
      files: { read: disk },
      applier: {
        apply: async (changes) => {
          for (const change of changes) await writeFile(path.join(ws, change.path), change.after ?? '');
        },
      },
      ledger: { intent: async () => 'l-1', outcome: async () => undefined },
      durable: () => true,
      triggers: { emit: async () => ({}) as never },
      logger: silentLogger,
    });
    common = {
      root: ws,
      fs: nodeFs,
      files: { read: disk },
      store,
      decider,
      clock,
      policy: () => ({ autoApproveEdits: false }),
      taskChore: () => undefined,
    };
    actions = new Map(createEditActions({ ...common, rename: serverRename }).map((a) => [a.name, a]));
  });
  afterEach(() => rm(path.dirname(ws), { recursive: true, force: true }));

  it('renames every use once approved, and nothing before', async () => {
    const ctx = context();
    const result = await run({ path: 'src/use.ts', line: 2, symbol: 'circleArea', newName: 'computeArea' }, ctx);
    assert.match(result, /nothing is written until the user approves/);
    assert.deepEqual(asked, [{ at: { path: 'src/use.ts', line: 2, column: 21 }, newName: 'computeArea' }], 'asked at the symbol on that line');
    const pending = await store.list({ status: 'pending' });
    assert.equal(pending.length, 1, 'one change set, on the normal review card');
    assert.deepEqual(
      pending[0].files.map((f) => [f.path, f.kind, f.added, f.removed]),
      [
        ['src/shapes.ts', 'modify', 1, 1],
        ['src/use.ts', 'modify', 2, 2],
      ],
    );
    assert.equal(ctx.turn.approval?.id, pending[0].id, 'the task waits for the decision');
    assert.match((await disk('src/use.ts')) ?? '', /circleArea/, 'nothing written before approval');
    assert.match((await disk('src/shapes.ts')) ?? '', /circleArea/);

    const final = await decider.approve(pending[0].id);
    assert.equal(final.status, 'applied');
    assert.equal(await readFile(path.join(ws, 'src/shapes.ts'), 'utf8'), 'export function computeArea(r: number) {\n  return Math.PI * r * r;\n}\n');
    assert.equal(
      await readFile(path.join(ws, 'src/use.ts'), 'utf8'),
      "import { computeArea } from './shapes';\nexport const both = computeArea(1) + computeArea(2);\n",
    );
  });

  it('tells the model what to fix when the symbol is not on the line, and asks no server', async () => {
    await assert.rejects(run({ path: 'src/use.ts', line: 1, symbol: 'radius', newName: 'r' }, context()), /radius is not on line 1 of src\/use\.ts/);
    await assert.rejects(run({ path: '../outside.ts', line: 1, symbol: 'x', newName: 'y' }, context()), /outside the workspace/);
    assert.deepEqual(asked, []);
  });

  it('is not offered without a rename (the command line)', () => {
    const without = createEditActions(common);
    assert.ok(!without.some((a) => a.name === 'rename_symbol'));
  });

  it('applies replacements by position, several on a line, CRLF kept, overlaps refused', () => {
    const edit = (line: number, column: number, endColumn: number, newText: string) => ({ path: 'f', line, column, endLine: line, endColumn, newText });
    assert.equal(
      applyReplacements('f', 'a(a, a)\r\nb = a\r\n', [edit(1, 1, 2, 'xy'), edit(1, 3, 4, 'xy'), edit(2, 5, 6, 'xy'), edit(1, 6, 7, 'xy')]),
      'xy(xy, xy)\r\nb = xy\r\n',
    );
    assert.throws(() => applyReplacements('f', 'abcdef', [edit(1, 1, 4, 'x'), edit(1, 3, 5, 'y')]), /overlap/);
  });
});
