import * as assert from 'node:assert/strict';
import { readPayload } from '../../../src/core/engine/triggerPayloads';
import type { Trigger } from '../../../src/core/store/types';
import type { ModelServer } from '../../fixtures/modelServer';
import { engineHooks } from './harness';
import type { Harness } from './harness';

// Trigger payloads are parsed by their zod schemas where a trigger is claimed
// (src/core/engine/triggerPayloads.ts): a payload that does not fit is dead-lettered at once with
// a reason naming the field, and the loop goes on; nothing runs with an undefined field.
describe('engine: trigger payloads are validated when claimed', () => {
  let server: ModelServer;
  let h: Harness;
  engineHooks('openai', { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

  const dead = (id: string) => h.triggers.deadLetters().find((t) => t.id === id);

  it('a malformed payload written straight to the store is dead-lettered at once, naming the field; the loop goes on', async () => {
    server.script([{ text: 'hello there' }, { text: 'still here' }]);
    const { sessionId } = await h.agent.sendMessage('hello');
    await h.idle();
    const requestsBefore = server.requests.length;

    const badText = await h.triggers.emit({ source: 'user_message', sessionId, payload: { text: 42 } });
    const badDecision = await h.triggers.emit({ source: 'approval', sessionId, payload: { approvalId: 'a-1', decision: 'maybe' } });
    const badFire = await h.triggers.emit({
      source: 'scheduled',
      sessionId: 'chore:x',
      payload: { kind: 'chore_fire', choreId: 'x', fireTime: 'not a date', missed: false },
    });
    const noPrompt = await h.triggers.emit({ source: 'file_event', sessionId: 'files', payload: { name: 'no prompt' } });
    await h.idle();

    for (const [trigger, field] of [
      [badText, 'text'],
      [badDecision, 'decision'],
      [badFire, 'fireTime'],
      [noPrompt, 'prompt'],
    ] as const) {
      const letter = dead(trigger.id);
      assert.ok(letter, `${trigger.source} ${field}: not dead-lettered`);
      assert.equal(letter.attempts, 1, `${trigger.source}: retried an invalid payload`);
      assert.match(letter.lastError ?? '', new RegExp(`invalid .*payload \\(${field}: `), `${trigger.source}: ${letter.lastError}`);
    }
    assert.equal(server.requests.length, requestsBefore, 'an invalid payload reached the model');
    const said = h.agent.views
      .snapshot()
      .sessions.find((s) => s.id === sessionId)!
      .messages.map((m) => m.text);
    assert.ok(
      said.some((t) => /A user_message step failed once and was set aside: .*text: text must be a string/.test(t)),
      said.join('\n'),
    );
    assert.deepEqual(h.agent.views.snapshot().tasks, [], 'an invalid proactive payload started a task');

    // The loop is alive: the next valid message is answered.
    await h.agent.sendMessage('are you there?');
    await h.idle();
    assert.equal(server.requests.length, requestsBefore + 1);
  });

  it('every payload the engine emits today parses (wake, retry, route, wait, chore context)', () => {
    const t = (source: Trigger['source'], payload: unknown) => ({ id: 'x', source, sessionId: 's', payload }) as Trigger;
    assert.equal(readPayload(t('user_message', { text: 'hi', route: true })).kind, 'user_message');
    assert.equal(readPayload(t('user_message', { wake: 'reply' })).kind, 'user_message');
    assert.equal(readPayload(t('user_message', { text: 'hi', route: false, retry: true })).kind, 'user_message');
    assert.equal(readPayload(t('task_continuation', null)).kind, 'continuation');
    assert.equal(readPayload(t('task_continuation', { wake: 'reply' })).kind, 'continuation');
    assert.equal(readPayload(t('resume', { wait: 'reply' })).kind, 'continuation');
    assert.equal(readPayload(t('approval', { approvalId: 'c-1', decision: 'approved', note: 'ok' })).kind, 'approval');
    const fire = readPayload(
      t('file_event', {
        kind: 'chore_fire',
        choreId: 'c',
        fireTime: new Date(0).toISOString(),
        missed: false,
        cause: 'git',
        fireKey: 'k',
        attempt: 1,
        context: { kind: 'git', head: 'abc' },
      }),
    );
    assert.equal(fire.kind, 'chore_fire');
    const open = readPayload(t('proactive', { prompt: 'Do it', extra: 'kept for origin' }));
    assert.equal(open.kind === 'proactive' && open.payload.extra, 'kept for origin');
    assert.equal(readPayload(t('restart_notice', { redelivered: 1, restarts: 2 })).kind, 'none');
    assert.throws(() => readPayload(t('user_message', {})), /text: text must be a string \(or wake must be "reply"\)/);
  });
});
