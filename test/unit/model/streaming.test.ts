/**
 * Streaming through the real OpenAI and Anthropic SDKs against the scripted server: deltas
 * arrive in order and add up to the answer, tool-call arguments stream as they form, and an
 * abort in the middle of a stream cancels the HTTP request and hands back what was said.
 */
import assert from 'node:assert/strict';
import { ModelStoppedError } from '../../../src/core/model/errors';
import type { ModelDelta, ModelRequest } from '../../../src/core/model/types';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer, RecordedRequest } from '../../fixtures/modelServer';
import { makeClient } from './clientHelpers';
import { until as poll } from '../../support/poll';

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  system: 'You are Tasklane.',
  tools: [{ name: 'send_message', description: 'Reply.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
  messages: [{ role: 'user', content: 'Hello' }],
  ...overrides,
});

/** Resolves when `condition` holds (the shared poll over the event loop; no fixed sleep decides anything). */
const until = (condition: () => boolean, what: string, timeoutMs = 5000): Promise<true> => poll(what, () => condition(), { timeoutMs, intervalMs: 2 });

describe('model streaming: deltas, tool progress, Stop', () => {
  let server: ModelServer;
  before(async () => {
    server = await startModelServer({ chunkChars: 4 });
  });
  afterEach(() => server.reset());
  after(() => server.close());

  for (const format of ['openai', 'anthropic'] as const) {
    describe(format, () => {
      it('emits text deltas in order, adding up to the final text', async () => {
        const text = 'Streaming replies arrive piece by piece.';
        server.script([{ text }]);
        const deltas: ModelDelta[] = [];
        const response = await makeClient(server, format).complete(request({ onDelta: (d) => deltas.push(d) }));
        assert.equal(response.text, text);
        assert.ok(deltas.length >= Math.ceil(text.length / 4), `expected one delta per chunk, got ${deltas.length}`);
        assert.ok(deltas.every((d) => d.kind === 'text'));
        assert.equal(deltas.map((d) => (d.kind === 'text' ? d.text : '')).join(''), text);
      });

      it('a non-streamed answer is told once, whole', async () => {
        server.script([{ text: 'all at once', toolCalls: [{ name: 'send_message', arguments: { text: 'hi' } }] }]);
        const deltas: ModelDelta[] = [];
        const response = await makeClient(server, format, { stream: false }).complete(request({ onDelta: (d) => deltas.push(d) }));
        assert.deepEqual(deltas, [
          { kind: 'text', text: 'all at once' },
          { kind: 'tool', callId: response.toolCalls[0]!.id, name: 'send_message', argumentsText: '{"text":"hi"}' },
        ]);
      });

      it('streams tool-call arguments as they form, per call', async () => {
        const args = [{ text: 'A reply long enough to arrive in several pieces.' }, { text: 'And a second one.' }];
        server.script([{ toolCalls: args.map((a) => ({ name: 'send_message', arguments: a })) }]);
        const deltas: ModelDelta[] = [];
        const response = await makeClient(server, format).complete(request({ onDelta: (d) => deltas.push(d) }));
        assert.equal(response.toolCalls.length, 2);
        for (const call of response.toolCalls) {
          const mine = deltas.filter((d): d is Extract<ModelDelta, { kind: 'tool' }> => d.kind === 'tool' && d.callId === call.id);
          assert.ok(mine.length > 3, `${call.id}: expected several argument deltas, got ${mine.length}`);
          assert.ok(mine.every((d) => d.name === 'send_message'));
          // Each delta extends the one before, and the last is the whole argument text.
          for (let i = 1; i < mine.length; i++) assert.ok(mine[i]!.argumentsText.startsWith(mine[i - 1]!.argumentsText));
          assert.equal(mine[mine.length - 1]!.argumentsText, call.rawArguments);
        }
        // In wire order: every delta of the first call comes before the second's.
        const order = deltas.map((d) => (d.kind === 'tool' ? d.callId : ''));
        assert.ok(order.lastIndexOf(response.toolCalls[0]!.id) < order.indexOf(response.toolCalls[1]!.id));
      });

      it('abort mid-stream closes the HTTP request and throws ModelStoppedError with the text so far', async () => {
        server.script([{ text: 'one two three four five six seven', holdAfterChunks: 3 }]);
        const controller = new AbortController();
        const deltas: string[] = [];
        const call = makeClient(server, format).complete(request({ signal: controller.signal, onDelta: (d) => d.kind === 'text' && deltas.push(d.text) }));
        const settled = call.then(
          () => undefined,
          (error: unknown) => error,
        );
        const record = (): RecordedRequest | undefined => server.requests[0];
        await until(() => record()?.held === true && deltas.length === 3, 'the stream to be held after 3 chunks');
        controller.abort();
        const error = await settled;
        assert.ok(error instanceof ModelStoppedError, `expected ModelStoppedError, got ${String(error)}`);
        assert.equal(error.kind, 'cancelled');
        assert.equal(error.partialText, 'one two thre');
        assert.equal(error.partialText, deltas.join(''));
        // The server saw the connection go away before the answer ended: cancelled on the wire.
        await until(() => record()?.aborted === true, 'the server to see the request aborted');
        assert.equal(record()!.chunksSent, 3);
      });
    });
  }

  it('release() lets a held stream finish', async () => {
    server.script([{ text: 'held then released', holdAfterChunks: 1 }]);
    const call = makeClient(server, 'openai').complete(request());
    await until(() => server.requests[0]?.held === true, 'the hold');
    server.release();
    assert.equal((await call).text, 'held then released');
    assert.notEqual(server.requests[0]!.aborted, true);
  });
});
