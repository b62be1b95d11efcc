/**
 * Streaming turns in the engine: a reply streams to the sidebar as `stream` changes before the
 * committed message, and Stop in the middle keeps what was shown as a reply marked stopped, with
 * no error line and no retry. Real engine, store and SDK clients against the scripted server.
 */
import * as assert from 'node:assert/strict';
import type { ModelDelta } from '../../../src/core/model/types';
import { STOPPED_NOTE } from '../../../src/core/prompts/requestBuilder';
import { partialStringField, settledEnd, TurnStream } from '../../../src/core/engine/streaming';
import { redactCredentials } from '../../../src/core/security/redact';
import type { AgentChange, StreamDelta } from '../../../src/core/engine/types';
import type { ModelServer } from '../../fixtures/modelServer';
import { createHarness, engineHooks, WIRES } from './harness';
import type { Harness } from './harness';
import { until as poll } from '../../support/poll';

/** Resolves when `condition` holds (the shared poll over the event loop; no fixed sleep decides anything). */
const until = (condition: () => boolean, what: string, timeoutMs = 5000): Promise<true> => poll(what, () => condition(), { timeoutMs, intervalMs: 2 });

const streamedText = (changes: AgentChange[], sessionId: string) =>
  changes.map((c) => (c.type === 'stream' && c.sessionId === sessionId && c.delta.kind === 'text' ? c.delta.text : '')).join('');

for (const wire of WIRES) {
  describe(`engine: streaming turns (${wire})`, () => {
    let server: ModelServer;
    let h: Harness;
    engineHooks(wire, { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

    it('publishes the reply as stream changes, then the committed message, inside one turn', async () => {
      const reply = 'Here is a reply that streams in many small pieces, "quoted" and\nmulti-line.';
      server.script([{ text: 'Thinking. ', toolCalls: [{ name: 'send_message', arguments: { text: reply } }] }]);
      const { sessionId } = await h.agent.sendMessage('hello');
      await h.idle();
      const mine = h.changes.filter((c) => 'sessionId' in c && c.sessionId === sessionId && (c.type === 'turn' || c.type === 'stream' || c.type === 'message'));
      const kinds = mine.map((c) => (c.type === 'turn' ? `turn:${c.running}` : c.type));
      const start = kinds.indexOf('turn:true');
      const end = kinds.indexOf('turn:false');
      const committed = mine.findIndex((c) => c.type === 'message' && c.message.role === 'assistant');
      const streams = kinds.flatMap((k, i) => (k === 'stream' ? [i] : []));
      assert.ok(start >= 0 && end > start, `a turn bracket is published: ${kinds.join(' ')}`);
      assert.ok(streams.length >= 2, `the reply streams in pieces, got ${streams.length}`);
      assert.ok(
        streams[0]! > start && streams.at(-1)! < committed && committed < end,
        `stream changes come before the final message, inside the turn: ${kinds.join(' ')}`,
      );
      // The free text and the message's text, decoded from the streamed arguments, as the bubble showed them.
      assert.equal(streamedText(h.changes, sessionId), `Thinking. \n\n${reply}`);
      const turnIds = new Set(mine.flatMap((c) => (c.type === 'turn' || c.type === 'stream' ? [c.turnId] : [])));
      assert.equal(turnIds.size, 1, 'one turn id for the whole turn');
      // Only the final message is durable.
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === sessionId)!;
      assert.deepEqual(
        session.messages.map((m) => [m.role, m.text, m.stopped ?? false]),
        [
          ['user', 'hello', false],
          ['assistant', reply, false],
        ],
      );
      assert.equal(session.liveTurnId, undefined);
    });

    it('Stop mid-stream commits the partial reply marked stopped: no error line, no retry', async () => {
      const reply = 'Once upon a time there was a very long story that nobody wanted to hear to the end.';
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: reply } }], holdAfterChunks: 3 }]);
      const { sessionId } = await h.agent.sendMessage('tell me a story');
      // Three chunks have arrived; the bubble holds back the word still being written.
      const arrived = partialStringField(JSON.stringify({ text: reply }).slice(0, 3 * 8), 'text');
      const shownBeforeStop = arrived.slice(0, settledEnd(arrived));
      await until(() => server.requests[0]?.held === true && streamedText(h.changes, sessionId) === shownBeforeStop, 'the first chunks in the sidebar');
      assert.ok(h.agent.views.snapshot().sessions.find((s) => s.id === sessionId)?.liveTurnId, 'the snapshot says a turn runs');
      await h.agent.stop(sessionId);
      await h.idle();
      await until(() => server.requests[0]?.aborted === true, 'the model server to see the request aborted');

      const session = h.agent.views.snapshot().sessions.find((s) => s.id === sessionId)!;
      assert.deepEqual(
        session.messages.map((m) => [m.role, m.text, m.stopped ?? false]),
        [
          ['user', 'tell me a story', false],
          ['assistant', shownBeforeStop.trim(), true],
        ],
      );
      assert.equal(session.status, 'idle');
      assert.equal(server.requests.length, 1, 'no retry');
      assert.deepEqual(
        h.triggers.pending().filter((t) => t.sessionId === sessionId),
        [],
      );
      assert.ok(!h.changes.some((c) => c.type === 'message' && c.message.role === 'error'));
      assert.ok(h.changes.some((c) => c.type === 'turn' && c.sessionId === sessionId && !c.running));

      // The next turn's model knows the last reply was cut off by the person.
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'Short version: they lived.' } }] }]);
      await h.agent.sendMessage('ok, short version', { sessionId });
      await h.idle();
      const body = JSON.stringify(server.requests[1]?.body);
      assert.ok(body.includes(STOPPED_NOTE), 'the stopped reply is marked in the next request');
    });

    it('Stop in a task turn keeps the partial text and pauses the task (Continue resumes)', async () => {
      const text = 'A task reply that will be stopped before it ends, for sure.';
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Story', instruction: 'Tell a story', mode: 'simple' } }] },
        { text, holdAfterChunks: 2 },
      ]);
      await h.agent.sendMessage('start a story task');
      await until(() => server.requests[1]?.held === true, 'the task turn to stream');
      const taskId = h.agent.views.snapshot().tasks[0]!.id;
      const taskSession = h.agent.views.snapshot().tasks[0]!.sessionId;
      await until(() => streamedText(h.changes, taskSession) === 'A task reply ', 'the task text in the sidebar (its unfinished word held back)');
      await h.agent.stop(taskSession);
      await h.idle();
      const task = h.agent.views.snapshot().tasks.find((t) => t.id === taskId)!;
      assert.equal(task.status, 'paused');
      assert.equal(task.pauseReason, 'stopped');
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === taskSession)!;
      assert.ok(session.messages.some((m) => m.role === 'assistant' && m.stopped && m.text === 'A task reply'));
      assert.ok(!session.messages.some((m) => m.role === 'error'), 'a stop is not an error');
      assert.equal(server.requests.length, 2, 'a stopped task makes no further model call');

      server.script([{ toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'Told.' } }] }]);
      await h.agent.continueTask(taskId);
      await h.idle();
      assert.equal(server.requests.length, 3, 'Continue runs the next turn');
      assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === taskId)?.status, 'completed');
    });

    it('a restart mid-stream commits nothing of the stream: the turn is re-run and answers once', async () => {
      const reply = 'The answer, streamed slowly enough to be cut by a restart halfway through.';
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: reply } }], holdAfterChunks: 3 }]);
      const { sessionId } = await h.agent.sendMessage('a question');
      await until(() => server.requests[0]?.held === true && streamedText(h.changes, sessionId).length > 0, 'the reply to start streaming');
      // The process goes away mid-stream (shutdown aborts the call like a crash would leave it unacked).
      await h.shutdown();
      const old = h;
      h = await createHarness({ wire, server, dir: old.dir, clock: old.clock });
      const close = h.close;
      h.close = async () => {
        await close();
        await old.close();
      };
      assert.deepEqual(
        h.agent.views
          .snapshot()
          .sessions.find((s) => s.id === sessionId)!
          .messages.map((m) => m.role),
        ['user'],
        'nothing of the stream was committed',
      );
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: reply } }] }]);
      await h.clock.advance(60_000);
      await h.idle();
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === sessionId)!;
      assert.deepEqual(
        session.messages.map((m) => [m.role, m.text, m.stopped ?? false]),
        [
          ['user', 'a question', false],
          ['assistant', reply, false],
        ],
      );
      assert.equal(server.requests.filter((r) => JSON.stringify(r.body).includes('a question')).length, 2, 'the cut turn was re-run once');
    });

    it('stop(sessionId) with no turn running changes nothing', async () => {
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'done' } }] }]);
      const { sessionId } = await h.agent.sendMessage('hi');
      await h.idle();
      await h.agent.stop(sessionId);
      await h.agent.stop('no-such-session');
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'still here' } }] }]);
      await h.agent.sendMessage('again', { sessionId });
      await h.idle();
      assert.equal(
        h.agent.views
          .snapshot()
          .sessions.find((s) => s.id === sessionId)
          ?.messages.at(-1)?.text,
        'still here',
      );
    });
  });
}

describe('engine: TurnStream', () => {
  const tool = (argumentsText: string, name = 'send_message', callId = 'c1'): ModelDelta => ({ kind: 'tool', callId, name, argumentsText });

  it('sends the first delta at once and coalesces the ones inside the interval', () => {
    let now = 0;
    const out: StreamDelta[] = [];
    const stream = new TurnStream((d) => out.push(d), { intervalMs: 33, now: () => now });
    stream.onDelta({ kind: 'text', text: 'a ' });
    assert.deepEqual(out, [{ kind: 'text', text: 'a ' }]);
    now = 5;
    stream.onDelta({ kind: 'text', text: 'b ' });
    stream.onDelta({ kind: 'text', text: 'c ' });
    assert.equal(out.length, 1, 'held back inside the interval');
    now = 40;
    stream.onDelta({ kind: 'text', text: 'd ' });
    assert.deepEqual(out, [
      { kind: 'text', text: 'a ' },
      { kind: 'text', text: 'b c d ' },
    ]);
    stream.close();
  });

  it('flushes a held-back delta on its own timer', async () => {
    const out: StreamDelta[] = [];
    const stream = new TurnStream((d) => out.push(d), { intervalMs: 5 });
    stream.onDelta({ kind: 'text', text: 'a ' });
    stream.onDelta({ kind: 'text', text: 'b ' });
    await until(() => out.length === 2, 'the timer flush');
    assert.deepEqual(out[1], { kind: 'text', text: 'b ' });
    stream.close();
  });

  it('decodes message arguments into appended text, and previews other tools once per change', () => {
    const out: StreamDelta[] = [];
    const stream = new TurnStream((d) => out.push(d), { intervalMs: 0 });
    stream.onDelta(tool('{"te'));
    stream.onDelta(tool('{"text":"Hi \\'));
    stream.onDelta(tool('{"text":"Hi \\"you\\"\\n'));
    stream.onDelta(tool('{"text":"Hi \\"you\\"\\n\\u00e9!"}'));
    stream.onDelta(tool('{"path":"a.ts"}', 'read_file', 'c2'));
    stream.onDelta(tool('{"path":"a.ts"}', 'read_file', 'c2'));
    assert.deepEqual(out, [
      { kind: 'text', text: 'Hi ' },
      { kind: 'text', text: '"you"\n' },
      { kind: 'tool', callId: 'c2', name: 'read_file', preview: '{"path":"a.ts"}' },
    ]);
    assert.equal(stream.visibleText(), 'Hi "you"\n', 'the last word waits for what follows it');
    stream.close();
    assert.deepEqual(out.at(-1), { kind: 'text', text: 'é!' }, 'the end of the turn releases it');
    stream.onDelta({ kind: 'text', text: 'late' });
    assert.equal(out.length, 4, 'nothing is published after the turn closed');
  });

  it('never shows a secret, whole or in part, however the deltas cut it (seeded)', () => {
    const secret = 'sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zB9';
    const known = 'hunter2-correct-horse';
    const redact = (text: string) => redactCredentials(text.split(known).join('[REDACTED:secret]'));
    const reply = `Your key is ${secret} and the password is ${known}, and a block:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow${'x'.repeat(40)}\n-----END RSA PRIVATE KEY-----\nDone, Bearer ${'t0k3n'.repeat(5)} ok.`;
    const seed = Number(process.env.TASKLANE_SEED ?? 7);
    let state = seed;
    const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const fragments = [secret.slice(0, 12), known.slice(0, 9), 'MIIEow', 't0k3nt0k3n'];
    for (let run = 0; run < 200; run++) {
      const out: StreamDelta[] = [];
      let now = 0;
      const stream = new TurnStream((d) => out.push(d), { intervalMs: 33, now: () => now, redact });
      for (let at = 0; at < reply.length;) {
        const size = 1 + Math.floor(next() * 12);
        stream.onDelta({ kind: 'text', text: reply.slice(at, at + size) });
        at += size;
        now += Math.floor(next() * 50);
        const shown = out.map((d) => (d.kind === 'text' ? d.text : '')).join('');
        for (const fragment of fragments) assert.ok(!shown.includes(fragment), `seed ${seed} run ${run}: "${fragment}" was on screen mid-stream: ${shown}`);
      }
      stream.close();
      const shown = out.map((d) => (d.kind === 'text' ? d.text : '')).join('');
      assert.equal(shown, redact(reply), `seed ${seed} run ${run}: the bubble ends as the redacted reply`);
    }
  });

  it('redacts the preview of a tool call', () => {
    const out: StreamDelta[] = [];
    const stream = new TurnStream((d) => out.push(d), { intervalMs: 0 });
    stream.onDelta(tool('{"path":".env","content":"OPENAI_API_KEY=sk-proj-Ab3dE5', 'write_file', 'c3'));
    stream.onDelta(tool('{"path":".env","content":"OPENAI_API_KEY=sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zB9\\n"}', 'write_file', 'c3'));
    stream.close();
    const previews = out.map((d) => (d.kind === 'tool' ? d.preview : '')).join('\n');
    assert.ok(!previews.includes('sk-proj-Ab3dE5'), previews);
    assert.match(previews, /REDACTED/);
  });

  it('partialStringField reads a cut JSON string as far as it goes', () => {
    assert.equal(partialStringField('', 'text'), '');
    assert.equal(partialStringField('{"text": "ab', 'text'), 'ab');
    assert.equal(partialStringField('{"text":"a\\u00', 'text'), 'a');
    assert.equal(partialStringField('{"text":"a\\\\b"}', 'text'), 'a\\b');
    assert.equal(partialStringField('{"other":1,"text":"x"}', 'text'), 'x');
  });
});
