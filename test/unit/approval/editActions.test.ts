import * as assert from 'node:assert/strict';
import { mkdtemp, mkdir, readFile, realpath, rm, symlink, unlink, writeFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ActionContext, ActionDef } from '../../../src/core/actions/types';
import type { FileChange } from '../../../src/core/approval/changes/changeSet';
import { ChangeSetDecider } from '../../../src/core/approval/changes/changeSetDecider';
import { InMemoryChangeSetStore } from '../../../src/core/approval/changes/changeSetStore';
import { createEditActions } from '../../../src/core/approval/changes/editActions';
import { nodeFs } from '../../../src/core/approval/paths/nodeFs';
import { approvalPayloadSchema } from '../../../src/core/engine/triggerPayloads';
import type { ApprovalPayload } from '../../../src/core/engine/triggerPayloads';
import { TurnEffectsRecorder } from '../../../src/core/engine/turnEffects';
import { silentLogger } from '../../../src/core/ports';
import type { TriggerSpec } from '../../../src/core/store/types';
import { FakeClock } from '../../fakes/fakeClock';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';
import { readOrNull } from '../../support/files';

// The edit actions and the decision over a real temp workspace: the applier writes with node:fs,
// so "nothing written" and "both written" are checked on the disk itself.
describe('approval: edit actions and decisions (real temp workspace)', () => {
  let base: string;
  let ws: string;
  let store: InMemoryChangeSetStore;
  let emitted: TriggerSpec[];
  let ledger: Array<{ kind: 'intent' | 'outcome'; value: unknown }>;
  let durable: boolean;
  let applied: FileChange[][];
  let actions: Map<string, ActionDef>;
  let decider: ChangeSetDecider;
  let settings: { autoApproveEdits: boolean };
  let sources: Record<string, string>;
  const clock = new FakeClock();

  const disk = async (relative: string): Promise<string | null> => readOrNull(path.join(ws, relative));

  async function applyWithNode(changes: readonly FileChange[]): Promise<void> {
    applied.push([...changes]);
    for (const change of changes) {
      const target = path.join(ws, change.newPath ?? change.path);
      if (change.kind === 'delete') await unlink(target);
      else if (change.kind === 'rename') {
        await rename(path.join(ws, change.path), target);
        await writeFile(target, change.after ?? '');
      } else {
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, change.after ?? '');
      }
    }
  }

  function context(taskId = 't-1'): ActionContext & { turn: TurnEffectsRecorder } {
    return {
      sessionId: taskId,
      taskId,
      taskMode: 'simple',
      workspace: new MemoryWorkspace(),
      turn: new TurnEffectsRecorder(() => clock.now()),
      now: () => clock.now(),
      logger: silentLogger,
      remember: async () => undefined,
      skillNames: [],
    };
  }

  const run = (name: string, input: unknown, ctx: ActionContext) =>
    (actions.get(name) as ActionDef).run((actions.get(name) as ActionDef).input.parse(input), ctx) as Promise<string>;

  beforeEach(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'tasklane-edits-')));
    ws = path.join(base, 'ws');
    await mkdir(path.join(ws, 'src'), { recursive: true });
    await mkdir(path.join(ws, '.vscode'), { recursive: true });
    await writeFile(path.join(ws, 'src/a.ts'), 'export const a = 1;\n');
    await writeFile(path.join(ws, 'src/b.ts'), 'export const b = 2;\n');
    await writeFile(path.join(base, 'outside.txt'), 'secret\n');
    store = new InMemoryChangeSetStore();
    emitted = [];
    ledger = [];
    applied = [];
    durable = true;
    settings = { autoApproveEdits: false };
    sources = { 't-1': 'user', 't-chore': 'chore:nightly' };
    decider = new ChangeSetDecider({
      store,
      files: { read: disk },
      applier: { apply: applyWithNode },
      ledger: {
        intent: async (_task, _action, input) => {
          ledger.push({ kind: 'intent', value: input });
          return 'l-1';
        },
        outcome: async (_id, status, outcome) => {
          ledger.push({ kind: 'outcome', value: { status, outcome } });
        },
      },
      durable: () => durable,
      triggers: { emit: async (spec) => (emitted.push(spec), {} as never) },
      logger: silentLogger,
    });
    actions = new Map(
      createEditActions({
        root: ws,
        fs: nodeFs,
        files: { read: disk },
        store,
        decider,
        clock,
        policy: () => settings,
        taskChore: (id) => (sources[id]?.startsWith('chore:') ? sources[id].slice('chore:'.length) : undefined),
      }).map((a) => [a.name, a]),
    );
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('two edits in one turn become one pending change set; nothing is written until approval', async () => {
    const ctx = context();
    await run('replace_in_file', { path: 'src/a.ts', edits: [{ oldText: '= 1', newText: '= 10' }] }, ctx);
    const result = await run('write_file', { path: 'src/b.ts', content: 'export const b = 20;\n' }, ctx);
    assert.match(result, /nothing is written until the user approves/);
    const pending = await store.list({ status: 'pending' });
    assert.equal(pending.length, 1, 'one change set for the turn');
    assert.deepEqual(
      pending[0].files.map((f) => f.path),
      ['src/a.ts', 'src/b.ts'],
    );
    assert.equal(ctx.turn.approval?.id, pending[0].id);
    assert.equal(await disk('src/a.ts'), 'export const a = 1;\n');

    const final = await decider.approve(pending[0].id);
    assert.equal(final.status, 'applied');
    assert.equal(applied.length, 1, 'applied in one unit');
    assert.equal(await disk('src/a.ts'), 'export const a = 10;\n');
    assert.equal(await disk('src/b.ts'), 'export const b = 20;\n');
    assert.deepEqual(
      ledger.map((l) => l.kind),
      ['intent', 'outcome'],
    );
    const payload = emitted[0].payload as ApprovalPayload;
    assert.equal(emitted[0].source, 'approval');
    assert.equal(payload.decision, 'approved');
    assert.match(payload.note ?? '', /approved and applied: src\/a\.ts, src\/b\.ts/);
  });

  it('a file changed after the proposal: nothing is applied, the task is told which file', async () => {
    const ctx = context();
    await run('write_file', { path: 'src/a.ts', content: 'A\n' }, ctx);
    await run('write_file', { path: 'src/b.ts', content: 'B\n' }, ctx);
    await writeFile(path.join(ws, 'src/b.ts'), 'changed by the user\n');
    const final = await decider.approve(ctx.turn.approval!.id);
    assert.equal(final.status, 'stale');
    assert.equal(applied.length, 0);
    assert.equal(await disk('src/a.ts'), 'export const a = 1;\n');
    const payload = emitted[0].payload as ApprovalPayload;
    assert.equal(payload.decision, 'rejected');
    assert.match(payload.note ?? '', /src\/b\.ts \(modified\)/);
    // The files as data too, which the thread words in the person's language (issue 42); the set keeps them.
    assert.deepEqual(payload.stale, [{ path: 'src/b.ts', change: 'modified' }]);
    assert.deepEqual(final.staleFiles, payload.stale);
    assert.deepEqual(approvalPayloadSchema.parse(payload), payload, 'the trigger carries them through react()');
  });

  it('reject: disk untouched, the task gets the reason', async () => {
    const ctx = context();
    await run('delete_file', { path: 'src/a.ts' }, ctx);
    await decider.reject(ctx.turn.approval!.id, 'keep a.ts, it is used by the build');
    assert.equal(await disk('src/a.ts'), 'export const a = 1;\n');
    assert.match((emitted[0].payload as ApprovalPayload).note ?? '', /keep a\.ts, it is used by the build/);
  });

  it("the user's edit of the proposed side is what gets written", async () => {
    const ctx = context();
    await run('create_file', { path: 'src/new.ts', content: 'proposed\n' }, ctx);
    await decider.approve(ctx.turn.approval!.id, { proposedEdits: { 'src/new.ts': 'edited by the user\n' } });
    assert.equal(await disk('src/new.ts'), 'edited by the user\n');
  });

  it('autoApproveEdits applies ordinary edits at once, but sensitive paths (any case) and chore runs still ask', async () => {
    settings.autoApproveEdits = true;
    const plain = context();
    assert.match(await run('write_file', { path: 'src/a.ts', content: 'auto\n' }, plain), /applied.*auto-approved/);
    assert.equal(plain.turn.approval, undefined);
    assert.equal(await disk('src/a.ts'), 'auto\n');
    assert.equal(emitted.length, 0, 'the action result tells the model; no wake-up trigger');

    for (const sensitive of [
      '.vscode/settings.json',
      '.VSCode/Tasks.JSON',
      'PACKAGE.json',
      '.env.local',
      '.github/workflows/ci.yml',
      '.tasklane/chores.yaml',
      'x.code-workspace',
    ]) {
      const ctx = context();
      await run('write_file', { path: sensitive, content: '{}\n' }, ctx);
      assert.ok(ctx.turn.approval, `${sensitive} must ask even with autoApproveEdits`);
      assert.equal(await disk(sensitive), null, `${sensitive} was written without approval`);
    }
    const chore = context('t-chore');
    await run('write_file', { path: 'src/b.ts', content: 'chore\n' }, chore);
    assert.ok(chore.turn.approval, 'a chore run must wait for review');
    assert.equal(await disk('src/b.ts'), 'export const b = 2;\n');
  });

  it('paths outside the workspace are refused with a message the model can act on', async () => {
    await symlink(path.join(base, 'outside.txt'), path.join(ws, 'link-out'));
    await symlink(path.join(base, 'missing.txt'), path.join(ws, 'link-missing'));
    await symlink(path.join(ws, 'src/a.ts'), path.join(ws, 'link-in'));
    for (const bad of ['../outside.txt', path.join(base, 'outside.txt'), 'link-out', 'link-missing']) {
      await assert.rejects(run('write_file', { path: bad, content: 'x' }, context()), /outside the workspace/, bad);
    }
    assert.equal(await readFile(path.join(base, 'outside.txt'), 'utf8'), 'secret\n');
    const ctx = context();
    await run('write_file', { path: 'link-in', content: 'through the link\n' }, ctx);
    const [set] = await store.list({ status: 'pending' });
    assert.equal(set.files[0].path, 'src/a.ts', 'a link inside resolves to its target');
  });

  it('refuses to apply while the store is not durable, and leaves the set pending', async () => {
    const ctx = context();
    await run('write_file', { path: 'src/a.ts', content: 'x\n' }, ctx);
    durable = false;
    await assert.rejects(decider.approve(ctx.turn.approval!.id), /cannot save its state/);
    assert.equal(applied.length, 0);
    assert.equal((await store.load(ctx.turn.approval!.id))?.status, 'pending');
  });

  it('withdrawing the set of a stopped task rejects it without waking the task, and it can no longer be approved', async () => {
    const ctx = context();
    await run('write_file', { path: 'src/a.ts', content: 'x\n' }, ctx);
    const id = ctx.turn.approval!.id;
    const withdrawn = await decider.withdraw(id, 'the task was stopped');
    assert.equal(withdrawn.status, 'rejected');
    assert.match(withdrawn.reason ?? '', /the task was stopped/);
    assert.equal(emitted.length, 0, 'nothing wakes a stopped task');
    await assert.rejects(decider.approve(id), /already rejected/);
    assert.equal(applied.length, 0);
  });

  it('a failed apply leaves the set stale, records the failure and tells the task', async () => {
    decider = new ChangeSetDecider({
      store,
      files: { read: disk },
      applier: {
        apply: async () => {
          throw new Error('the editor refused the edit');
        },
      },
      ledger: { intent: async () => 'l-1', outcome: async (_id, status) => void ledger.push({ kind: 'outcome', value: status }) },
      durable: () => true,
      triggers: { emit: async (spec) => (emitted.push(spec), {} as never) },
      logger: silentLogger,
    });
    const ctx = context();
    await run('write_file', { path: 'src/a.ts', content: 'x\n' }, ctx);
    const final = await decider.approve(ctx.turn.approval!.id);
    assert.equal(final.status, 'stale');
    assert.deepEqual(
      ledger.map((l) => l.value),
      ['failed'],
    );
    assert.match((emitted[0].payload as ApprovalPayload).note ?? '', /could not be applied \(the editor refused the edit\)/);
  });
});
