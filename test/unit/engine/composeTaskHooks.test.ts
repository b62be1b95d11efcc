import * as assert from 'node:assert/strict';
import { composeTaskHooks } from '../../../src/core/engine/composeTaskHooks';
import type { TaskRecord } from '../../../src/core/engine/records';
import type { TaskHooks } from '../../../src/core/engine/taskHooks';
import type { Trigger } from '../../../src/core/store/types';

// The engine takes one TaskHooks; several providers must all be heard, not the first one only.
describe('composeTaskHooks', () => {
  const task = { id: 't1' } as TaskRecord;
  const trigger = { id: 'tr1' } as Trigger;
  const usage = { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 } as Parameters<NonNullable<TaskHooks['modelCalled']>>[1];
  const ended = { status: 'completed' as const, summary: 'done' };

  it('gives no hooks for no provider, and the provider itself for one', () => {
    assert.equal(composeTaskHooks([]), undefined);
    const only: TaskHooks = { guard: () => undefined };
    assert.equal(composeTaskHooks([only]), only);
  });

  it('asks every provider, in order, and keeps the first answer that decides', async () => {
    const heard: string[] = [];
    const first: TaskHooks = {
      resolveProactive: async () => {
        heard.push('first.resolve');
        return undefined; // not its trigger
      },
      guard: () => {
        heard.push('first.guard');
        return undefined;
      },
      modelCalled: () => void heard.push('first.model'),
    };
    const second: TaskHooks = {
      resolveProactive: async () => {
        heard.push('second.resolve');
        return { prompt: 'from second' } as Awaited<ReturnType<NonNullable<TaskHooks['resolveProactive']>>>;
      },
      guard: () => {
        heard.push('second.guard');
        return 'second says stop';
      },
      modelCalled: () => void heard.push('second.model'),
      beforeTaskEnd: async () => 'one more turn',
    };
    const hooks = composeTaskHooks([first, second]);
    assert.ok(hooks);
    assert.deepEqual(await hooks.resolveProactive?.(trigger), { prompt: 'from second' });
    assert.equal(hooks.guard?.(task, 'model'), 'second says stop');
    hooks.modelCalled?.(task, usage, 0.5);
    assert.equal(await hooks.beforeTaskEnd?.(task, ended), 'one more turn');
    assert.deepEqual(heard, ['first.resolve', 'second.resolve', 'first.guard', 'second.guard', 'first.model', 'second.model']);
  });

  it('stops at the first provider that decides, and sets only the hooks some provider has', async () => {
    let secondAsked = false;
    const hooks = composeTaskHooks([
      { guard: () => 'budget spent', beforeTaskEnd: async () => 'not yet' },
      {
        guard: () => {
          secondAsked = true;
          return 'other';
        },
      },
    ]);
    assert.ok(hooks);
    assert.equal(hooks.guard?.(task, 'action'), 'budget spent');
    assert.equal(secondAsked, false);
    assert.equal(await hooks.beforeTaskEnd?.(task, ended), 'not yet');
    // No provider resolves proactive triggers: the engine must see no such hook (it then runs the
    // trigger's own prompt rather than dropping it).
    assert.equal(hooks.resolveProactive, undefined);
    assert.equal(hooks.modelCalled, undefined);
  });
});
