/**
 * Providers as they are (issue 39), through the real SDK clients against the scripted server,
 * with the response shapes of the providers' published API references and SDK test fixtures:
 * a tool call written as text by an OpenAI-compatible server (Hermes / Qwen `<tool_call>` tags,
 * a Llama 3.x bare JSON object), a request longer than the context (OpenAI
 * `context_length_exceeded`, Anthropic "prompt is too long", a 413 `request_too_large`), 429 and
 * 529 `overloaded_error` with and without retry-after, and a stream cut before its finish reason.
 */
import assert from 'node:assert/strict';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { failure, makeClient } from './clientHelpers';

const tools = [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }];
const request = { system: 'sys', tools, messages: [{ role: 'user' as const, content: 'read a.ts' }] };

describe('model clients: provider behaviours as they are', function () {
  this.timeout(20_000);
  let server: ModelServer;
  before(async () => (server = await startModelServer()));
  afterEach(() => server.reset());
  after(() => server.close());

  for (const stream of [true, false]) {
    it(`openai-compatible: a tool call in <tool_call> tags or as a bare JSON object is a tool call (${stream ? 'stream' : 'whole'})`, async () => {
      const client = makeClient(server, 'openai', { stream });
      server.script([
        { text: 'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>' },
        { text: '{"name": "read_file", "parameters": {"path": "b.ts"}}' },
        { text: 'Use {"name": "read_file"} to read.' },
        { text: '<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>' },
      ]);
      const tagged = await client.complete(request);
      assert.deepEqual(
        tagged.toolCalls.map((c) => [c.name, c.arguments]),
        [['read_file', { path: 'a.ts' }]],
      );
      assert.equal(tagged.text, 'Let me look.');
      const bare = await client.complete(request);
      assert.deepEqual(
        bare.toolCalls.map((c) => [c.name, c.arguments]),
        [['read_file', { path: 'b.ts' }]],
      );
      assert.equal((await client.complete(request)).toolCalls.length, 0, 'prose that mentions a call stays prose');
      assert.equal((await client.complete(request)).toolCalls.length, 0, 'a tool that was not offered is not recovered');
    });
  }

  for (const format of ['openai', 'anthropic'] as const) {
    describe(format, () => {
      it('a request longer than the context → context_length, whatever words the provider uses', async () => {
        const shapes =
          format === 'openai'
            ? [
                {
                  status: 400,
                  code: 'context_length_exceeded',
                  message:
                    "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
                },
                { status: 400, message: 'the request exceeds the available context size, try increasing it' },
              ]
            : [
                { status: 400, message: 'prompt is too long: 210452 tokens > 200000 maximum' },
                { status: 413, message: 'Request exceeds the maximum allowed number of bytes.' },
              ];
        for (const error of shapes) {
          server.script([{ error }]);
          const failed = await failure(makeClient(server, format).complete(request));
          assert.equal(failed.kind, 'context_length', `${error.status} ${error.message}`);
        }
        server.script([{ error: { status: 400, message: 'tools.0.name: String should match pattern' } }]);
        assert.equal((await failure(makeClient(server, format).complete(request))).kind, 'bad_request', 'another 400 stays a bad request');
      });

      it('429 without retry-after and 529 overloaded are retried with backoff, then succeed', async () => {
        server.script([{ error: { status: 429 } }, { error: { status: 529, message: 'Overloaded' } }, { text: 'third time' }]);
        const response = await makeClient(server, format, { maxRetries: 2 }).complete(request);
        assert.equal(response.text, 'third time');
        assert.deepEqual(
          server.requests.map((r) => r.status ?? 200),
          [429, 529, 200],
        );
      });

      it('529 with retries exhausted is a server error that says to try later; 429 without retry-after says to wait', async () => {
        server.script([{ error: { status: 529, message: 'Overloaded' } }]);
        const overloaded = await failure(makeClient(server, format).complete(request));
        assert.equal(overloaded.kind, 'server');
        assert.match(overloaded.message, /529.*Try again later/);
        server.script([{ error: { status: 429 } }]);
        const limited = await failure(makeClient(server, format).complete(request));
        assert.equal(limited.kind, 'rate_limit');
        assert.equal(limited.details.retryAfterMs, undefined);
        assert.match(limited.message, /wait a minute and retry/);
      });

      it('a stream cut before its finish reason → connection, never a half answer', async () => {
        server.script([{ toolCalls: [{ name: 'read_file', arguments: { path: 'a-long-path/for/a/file.ts' } }], truncateAfterChunks: 1 }]);
        const cut = await failure(makeClient(server, format).complete(request));
        assert.equal(cut.kind, 'connection');
        assert.match(cut.message, /stopped before it finished/);
        server.script([{ text: 'A sentence that is cut off in the mid', truncateAfterChunks: 1 }]);
        assert.equal((await failure(makeClient(server, format).complete(request))).kind, 'connection');
      });
    });
  }
});
