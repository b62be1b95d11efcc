import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ActionDef } from '../../../src/core/actions/types';
import type { FileChange } from '../../../src/core/approval/changes/changeSet';
import { ChangeSetDecider } from '../../../src/core/approval/changes/changeSetDecider';
import { InMemoryChangeSetStore } from '../../../src/core/approval/changes/changeSetStore';
import { createEditActions } from '../../../src/core/approval/changes/editActions';
import { nodeFs } from '../../../src/core/approval/paths/nodeFs';
import type { CodeDiagnostic, CodeIntelPort } from '../../../src/core/codeIntel/codeIntelPort';
import { describeProblems, problemsAfterApply } from '../../../src/core/codeIntel/problemsAfterApply';
import type { ApprovalPayload } from '../../../src/core/engine/triggerPayloads';
import { TurnEffectsRecorder } from '../../../src/core/engine/turnEffects';
import { silentLogger } from '../../../src/core/ports';
import type { TriggerSpec } from '../../../src/core/store/types';
import { FakeClock } from '../../fakes/fakeClock';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';

const error = (path: string, line: number, message: string): CodeDiagnostic => ({
  path,
  line,
  column: 1,
  severity: 'error',
  message,
  source: 'ts',
  code: '2322',
});

/** A language server stand-in: reports `after` once the file on disk changed, and says when it has. */
class FakeServer implements Pick<CodeIntelPort, 'diagnostics' | 'watchDiagnostics'> {
  now: CodeDiagnostic[] = [];
  watched: string[][] = [];
  settledWith: number[] = [];
  disposed = 0;
  async diagnostics(paths?: readonly string[]): Promise<CodeDiagnostic[]> {
    return this.now.filter((d) => !paths || paths.includes(d.path));
  }
  async watchDiagnostics(paths: readonly string[]) {
    this.watched.push([...paths]);
    return {
      settled: async (timeoutMs: number) => void this.settledWith.push(timeoutMs),
      dispose: () => void this.disposed++,
    };
  }
}

describe('code intelligence: problems after an applied edit', () => {
  let base: string;
  let server: FakeServer;
  let emitted: TriggerSpec[];
  let store: InMemoryChangeSetStore;
  let decider: ChangeSetDecider;
  let actions: Map<string, ActionDef>;
  let afterApply: CodeDiagnostic[];
  let autoApprove: boolean;
  const clock = new FakeClock();

  beforeEach(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'tasklane-problems-')));
    await mkdir(path.join(base, 'src'), { recursive: true });
    await writeFile(path.join(base, 'src/a.ts'), 'export const a: number = 1;\n');
    server = new FakeServer();
    // Already broken before the edit: not the edit's doing, so never reported as new.
    server.now = [error('src/a.ts', 9, 'an old problem')];
    afterApply = [error('src/a.ts', 9, 'an old problem'), error('src/a.ts', 1, "Type 'string' is not assignable to type 'number'.")];
    emitted = [];
    autoApprove = false;
    store = new InMemoryChangeSetStore();
    const disk = async (p: string) => readFile(path.join(base, p), 'utf8').catch(() => null);
    decider = new ChangeSetDecider({
      store,
      files: { read: disk },
      applier: {
        apply: async (changes: readonly FileChange[]) => {
          for (const c of changes) await writeFile(path.join(base, c.newPath ?? c.path), c.after ?? '');
          server.now = afterApply;
        },
      },
      ledger: { intent: async () => 'l-1', outcome: async () => undefined },
      durable: () => true,
      triggers: { emit: async (spec) => (emitted.push(spec), {} as never) },
      logger: silentLogger,
      problems: problemsAfterApply(server as unknown as CodeIntelPort, 1234),
    });
    actions = new Map(
      createEditActions({
        root: base,
        fs: nodeFs,
        files: { read: disk },
        store,
        decider,
        clock,
        policy: () => ({ autoApproveEdits: autoApprove }),
        taskChore: () => undefined,
      }).map((a) => [a.name, a]),
    );
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  async function propose(content = "export const a: number = 'one';\n"): Promise<{ result: string; approvalId?: string }> {
    const turn = new TurnEffectsRecorder(() => clock.now());
    const ctx = {
      sessionId: 't-1',
      taskId: 't-1',
      taskMode: 'simple' as const,
      workspace: new MemoryWorkspace(),
      turn,
      now: () => clock.now(),
      logger: silentLogger,
      remember: async () => undefined,
      skillNames: [],
    };
    const write = actions.get('write_file')!;
    const result = (await write.run(write.input.parse({ path: 'src/a.ts', content }), ctx)) as string;
    return { result, ...(turn.approval ? { approvalId: turn.approval.id } : {}) };
  }

  it('an approved edit tells the task only the problems it introduced, after the servers settled', async () => {
    const { approvalId } = await propose();
    const final = await decider.approve(approvalId!);
    assert.equal(final.status, 'applied');
    assert.deepEqual(server.watched, [['src/a.ts']], 'watched before the apply, the file it leaves');
    assert.deepEqual(server.settledWith, [1234]);
    assert.equal(server.disposed, 1);
    const note = (emitted[0]!.payload as ApprovalPayload).note ?? '';
    assert.match(
      note,
      /^The change was approved and applied: src\/a\.ts\.\nNew problems in the changed files since the edit \(1 error, 0 warnings\):\n- src\/a\.ts:1:1: error ts\(2322\): Type 'string'/,
    );
    assert.doesNotMatch(note, /an old problem/);
    assert.equal((await store.load(approvalId!))?.problems?.includes("Type 'string'"), true, 'kept with the set, so its card shows it');
  });

  it('an auto-approved edit returns the problems in the action result itself', async () => {
    autoApprove = true;
    const { result } = await propose();
    assert.match(result, /approved and applied.*\nNew problems in the changed files since the edit \(1 error/s);
    assert.equal(emitted.length, 0, 'the result tells the model; no wake-up');
  });

  it('says nothing of problems when the edit introduced none, and an edit stays applied if the read fails', async () => {
    afterApply = [error('src/a.ts', 9, 'an old problem')];
    const first = await propose();
    await decider.approve(first.approvalId!);
    assert.equal((emitted[0]!.payload as ApprovalPayload).note, 'The change was approved and applied: src/a.ts.');
    server.diagnostics = async () => {
      throw new Error('the language server crashed');
    };
    const second = await propose('export const a: number = 2;\n');
    assert.equal((await decider.approve(second.approvalId!)).status, 'applied');
  });

  it('compares the importers the host names, through its own reading, and names the changed files no server reported on', async () => {
    let now: CodeDiagnostic[] = [error('src/caller.ts', 9, 'old, not blamed')];
    const read: number[] = [];
    const port = {
      diagnostics: async () => assert.fail('the watch reads the problems itself'),
      watchDiagnostics: async (paths: readonly string[]) => {
        assert.deepEqual(paths, ['src/lib.ts', 'notes.zzz']);
        return {
          importers: ['src/caller.ts'],
          problems: async () => (read.push(now.length), now),
          settled: async () => ({ unreported: ['notes.zzz'] }),
          dispose: () => undefined,
        };
      },
    } as unknown as CodeIntelPort;
    const after = await problemsAfterApply(port, 4000)(['src/lib.ts', 'notes.zzz']);
    now = [...now, error('src/caller.ts', 2, 'Argument of type number')];
    const text = (await after()) ?? '';
    assert.deepEqual(read, [1, 2], 'read once before the change and once after');
    assert.equal(
      text,
      [
        'New problems in the changed files and the files importing them since the edit (1 error, 0 warnings):',
        '- src/caller.ts:2:1: error ts(2322): Argument of type number',
        'No language server reported on notes.zzz within 4 s (none checks it, or none found anything to report in it).',
      ].join('\n'),
    );
  });

  it('without a watch of its own, the port is read for the changed files and the importers alike', async () => {
    const asked: string[][] = [];
    const port = {
      diagnostics: async (paths?: readonly string[]) => (asked.push([...(paths ?? [])]), []),
      watchDiagnostics: async () => ({ importers: ['src/caller.ts'], settled: async () => undefined, dispose: () => undefined }),
    } as unknown as CodeIntelPort;
    const after = await problemsAfterApply(port, 4000)(['src/lib.ts']);
    assert.equal(await after(), undefined, 'nothing new, every file heard: nothing to say');
    assert.deepEqual(asked, [
      ['src/lib.ts', 'src/caller.ts'],
      ['src/lib.ts', 'src/caller.ts'],
    ]);
  });

  it('lists errors first, at most fifteen, and counts the rest', () => {
    const many = [
      ...Array.from({ length: 12 }, (_, i) => ({ ...error('a.ts', i + 1, `w${i}`), severity: 'warning' as const })),
      ...Array.from({ length: 8 }, (_, i) => error('a.ts', i + 100, `e${i}\nsecond line`)),
    ];
    const text = describeProblems(many)!;
    const lines = text.split('\n');
    assert.equal(lines[0], 'New problems in the changed files since the edit (8 errors, 12 warnings):');
    assert.equal(lines.length, 1 + 15 + 1);
    assert.match(lines[1]!, /error ts\(2322\): e0 second line$/);
    assert.equal(lines.at(-1), '- and 5 more');
    assert.equal(describeProblems([]), undefined);
  });
});
