import * as assert from 'node:assert/strict';
import type { AgentChange } from '../../../src/core/engine/types';
import type { Trigger } from '../../../src/core/store/types';
import { dismissDeadLettersCommand, retryDeadLettersCommand } from '../../../src/host/deadLetterCommands';
import type { DeadLetterPrompts } from '../../../src/host/deadLetterCommands';
import { engineHooks } from './harness';
import type { Harness } from './harness';

// Dead letters have one owner in the engine (src/core/engine/deadLetters.ts): a retry or a
// dismissal through it writes, then publishes the new list, so the sidebar and the palette never
// show a row the store no longer holds.
describe('engine: dead letters are retried and dismissed through the Agent', () => {
  let h: Harness;
  engineHooks('openai', { setServer: () => undefined, setHarness: (next) => (h = next), harness: () => h });

  /** A valid chore fire with no chore runner attached: every attempt throws, then it is set aside. */
  async function deadLetter(): Promise<Trigger> {
    const fire = await h.triggers.emit({
      source: 'scheduled',
      sessionId: 'system',
      payload: { kind: 'chore_fire', choreId: 'nightly', fireTime: new Date(0).toISOString(), missed: false },
    });
    for (let i = 0; i < 8 && !h.agent.deadLetters.list().some((d) => d.id === fire.id); i++) {
      await h.idle();
      await h.clock.advance(10 * 60_000);
    }
    await h.idle();
    assert.deepEqual(
      h.agent.views.snapshot().deadLetters.map((d) => d.id),
      [fire.id],
    );
    return fire;
  }

  /** An invalid payload is set aside at its first attempt. */
  async function invalid(): Promise<Trigger> {
    const bad = await h.triggers.emit({ source: 'user_message', sessionId: 'system', payload: { text: 42 } });
    await h.idle();
    assert.ok(h.agent.deadLetters.list().some((d) => d.id === bad.id));
    return bad;
  }

  const published = (): Array<Extract<AgentChange, { type: 'deadLetters' }>> =>
    h.changes.filter((c): c is Extract<AgentChange, { type: 'deadLetters' }> => c.type === 'deadLetters');

  it('retry re-queues the trigger, publishes the empty list, and a second retry is a no-op', async () => {
    const fire = await deadLetter();
    const before = published().length;
    assert.equal(await h.agent.deadLetters.retry([fire.id]), 1);
    assert.deepEqual(h.agent.views.snapshot().deadLetters, [], 'the snapshot still lists the retried trigger');
    assert.deepEqual(published().at(-1)?.deadLetters, []);
    assert.ok(published().length > before, 'no deadLetters change was published');
    // Back in the queue (the loop may have tried it once already: no runner is attached yet).
    assert.ok(h.triggers.pending().some((t) => t.id === fire.id));
    // The sidebar's second click on a row that was already retried: nothing to do, no error.
    assert.equal(await h.agent.deadLetters.retry([fire.id]), 0);
    assert.deepEqual(h.agent.views.snapshot().deadLetters, []);
    assert.deepEqual(published().at(-1)?.deadLetters, []);
  });

  it('two clicks at once re-queue it once and neither fails', async () => {
    const fire = await deadLetter();
    const counts = await Promise.all([h.agent.deadLetters.retry([fire.id]), h.agent.deadLetters.retry([fire.id])]);
    assert.deepEqual(counts, [1, 0]);
    assert.deepEqual(h.agent.views.snapshot().deadLetters, []);
  });

  it('dismiss removes it for good, publishes the empty list, and a second dismiss is a no-op', async () => {
    const bad = await invalid();
    assert.equal(await h.agent.deadLetters.dismiss([bad.id]), 1);
    assert.deepEqual(h.agent.views.snapshot().deadLetters, []);
    assert.deepEqual(published().at(-1)?.deadLetters, []);
    assert.deepEqual(h.triggers.deadLetters(), []);
    assert.equal(await h.agent.deadLetters.dismiss([bad.id]), 0);
    assert.deepEqual(h.agent.views.snapshot().deadLetters, []);
  });

  describe('the palette commands', () => {
    const recorder = (answer = true) => {
      const said: string[] = [];
      const prompts: DeadLetterPrompts = {
        info: (text) => said.push(`info: ${text}`),
        error: (text) => said.push(`error: ${text}`),
        confirm: async (text) => {
          said.push(`confirm: ${text}`);
          return answer;
        },
      };
      return { said, prompts };
    };

    it('tasklane.retryDeadLetters re-queues all of them, the list empties, and running it again says there are none', async () => {
      await deadLetter();
      const { said, prompts } = recorder();
      assert.equal(await retryDeadLettersCommand(h.agent.deadLetters, prompts), 1);
      assert.deepEqual(h.agent.views.snapshot().deadLetters, []);
      assert.deepEqual(published().at(-1)?.deadLetters, []);
      assert.equal(await retryDeadLettersCommand(h.agent.deadLetters, prompts), 0);
      assert.deepEqual(said, ['info: Tasklane: 1 dead letter re-queued.', 'info: Tasklane: there are no dead letters to retry.']);
    });

    it('tasklane.dismissDeadLetters asks, dismisses all of them, and running it again dismisses nothing', async () => {
      await invalid();
      await invalid();
      const declined = recorder(false);
      assert.equal(await dismissDeadLettersCommand(h.agent.deadLetters, declined.prompts, false), 0);
      assert.match(declined.said[0], /^confirm: Dismiss 2 dead letters\?/);
      assert.equal(h.agent.views.snapshot().deadLetters.length, 2);

      const { said, prompts } = recorder();
      assert.equal(await dismissDeadLettersCommand(h.agent.deadLetters, prompts, true), 2);
      assert.deepEqual(h.agent.views.snapshot().deadLetters, []);
      assert.deepEqual(published().at(-1)?.deadLetters, []);
      assert.equal(await dismissDeadLettersCommand(h.agent.deadLetters, prompts, false), 0);
      assert.deepEqual(said, ['info: Tasklane: there are no dead letters to dismiss.']);
    });

    it('a failing write is shown to the person, not only logged', async () => {
      const fire = await deadLetter();
      const { said, prompts } = recorder();
      const failing = {
        retry: async () => {
          throw new Error(`Trigger ${fire.id} is locked`);
        },
      };
      await assert.rejects(retryDeadLettersCommand(failing, prompts), /locked/);
      assert.deepEqual(said, [`error: Tasklane: the dead letters could not be retried: Trigger ${fire.id} is locked`]);
    });
  });
});
