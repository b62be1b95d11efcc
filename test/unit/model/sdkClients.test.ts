/**
 * The real OpenAI and Anthropic SDK clients against the scripted model server, in both wire
 * formats, streaming and not.
 */
import assert from 'node:assert/strict';
import type { ModelRequest } from '../../../src/core/model/types';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { makeClient } from './clientHelpers';

const tools = [
  { name: 'read_file', description: 'Read a workspace file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  {
    name: 'search_text',
    description: 'Search the workspace.',
    inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
];

const baseRequest = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  system: 'You are Tasklane.',
  tools,
  messages: [{ role: 'user', content: 'Read a.ts please' }],
  ...overrides,
});

describe('SDK model clients against the scripted server', () => {
  let server: ModelServer;
  before(async () => {
    server = await startModelServer({ chunkChars: 5, requireKey: 'test-key' });
  });
  afterEach(() => server.reset());
  after(() => server.close());

  for (const format of ['openai', 'anthropic'] as const) {
    for (const stream of [true, false]) {
      describe(`${format}, ${stream ? 'streaming' : 'not streaming'}`, () => {
        it('returns the text reply and reports it through onText', async () => {
          server.script([{ text: 'Hello there, general Kenobi.' }]);
          const deltas: string[] = [];
          const response = await makeClient(server, format, { stream }).complete(baseRequest(), (d) => deltas.push(d));
          assert.equal(response.text, 'Hello there, general Kenobi.');
          assert.equal(deltas.join(''), response.text);
          // Streaming must deliver the text in pieces, not all at the end.
          if (stream) assert.ok(deltas.length > 1, `expected several deltas, got ${deltas.length}`);
          else assert.equal(deltas.length, 1);
          assert.equal(response.stopReason, 'end');
          assert.deepEqual(response.toolCalls, []);
          assert.equal(response.model, format === 'openai' ? 'gpt-4.1-mini' : 'claude-sonnet-4-6');
          assert.equal(server.requests[0]!.stream, stream);
        });

        it('parses tool calls and keeps raw arguments', async () => {
          server.script([
            {
              text: 'Let me look.',
              toolCalls: [
                { name: 'read_file', arguments: { path: 'src/a.ts' } },
                { name: 'search_text', arguments: { query: 'TODO' } },
              ],
            },
          ]);
          const response = await makeClient(server, format, { stream }).complete(baseRequest({ toolChoice: 'required' }));
          assert.equal(response.stopReason, 'tool_calls');
          assert.equal(response.text, 'Let me look.');
          assert.deepEqual(
            response.toolCalls.map((c) => [c.name, c.arguments]),
            [
              ['read_file', { path: 'src/a.ts' }],
              ['search_text', { query: 'TODO' }],
            ],
          );
          assert.equal(response.toolCalls[0]!.rawArguments, '{"path":"src/a.ts"}');
          assert.ok(response.toolCalls.every((c) => c.id.length > 0));
          assert.notEqual(response.toolCalls[0]!.id, response.toolCalls[1]!.id);
        });

        // Non-streaming Anthropic carries tool input as a JSON object, so it cannot be malformed.
        if (format === 'openai' || stream) {
          it('keeps invalid JSON arguments raw with arguments undefined', async () => {
            server.script([{ toolCalls: [{ name: 'read_file', arguments: '{"path": "a.ts"' }] }]);
            const response = await makeClient(server, format, { stream }).complete(baseRequest());
            assert.equal(response.toolCalls.length, 1);
            assert.equal(response.toolCalls[0]!.rawArguments, '{"path": "a.ts"');
            assert.equal(response.toolCalls[0]!.arguments, undefined);
          });
        }

        it('normalises usage with cache fields', async () => {
          server.script([{ text: 'ok', usage: { input: 120, output: 30, cacheRead: 900, cacheWrite: format === 'anthropic' ? 64 : 0 } }]);
          const response = await makeClient(server, format, { stream }).complete(baseRequest());
          assert.deepEqual(response.usage, { inputTokens: 120, outputTokens: 30, cacheReadTokens: 900, cacheWriteTokens: format === 'anthropic' ? 64 : 0 });
        });

        if (format === 'openai') {
          it('passes on the cost a server reports with its usage (OpenRouter usage.cost), and none when it reports none', async () => {
            server.script([{ text: 'ok', usage: { input: 10, output: 5, cost: 0.00042 } }, { text: 'ok' }]);
            const client = makeClient(server, format, { stream });
            assert.equal((await client.complete(baseRequest())).costUsd, 0.00042);
            assert.equal((await client.complete(baseRequest())).costUsd, undefined);
          });
        }
      });
    }
  }

  it('openai: sends system, tools, tool_choice, include_usage and the tool round-trip on the wire', async () => {
    server.script([{ text: 'done' }]);
    await makeClient(server, 'openai').complete(
      baseRequest({
        toolChoice: 'required',
        maxOutputTokens: 256,
        messages: [
          { role: 'user', content: 'Read a.ts' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'call_7', name: 'read_file', rawArguments: '{"path":"a.ts"}', arguments: { path: 'a.ts' } }] },
          { role: 'tool', toolCallId: 'call_7', toolName: 'read_file', content: 'no such file', isError: true },
          { role: 'assistant', content: '', toolCalls: [{ id: 'call_8', name: 'read_file', rawArguments: '{"path":"b.ts"}', arguments: { path: 'b.ts' } }] },
          // The engine's failed results already say "Error: " (requestBuilder.ts): said once, never "Error: Error: ".
          { role: 'tool', toolCallId: 'call_8', toolName: 'read_file', content: 'Error: oldText was not found in b.ts', isError: true },
        ],
      }),
    );
    const { body, headers } = server.requests[0]!;
    assert.equal(headers.authorization, 'Bearer test-key');
    assert.deepEqual(body.messages[0], { role: 'system', content: 'You are Tasklane.' });
    assert.deepEqual(
      body.tools.map((t: { function: { name: string } }) => t.function.name),
      ['read_file', 'search_text'],
    );
    assert.deepEqual(body.tools[0].function.parameters, tools[0]!.inputSchema);
    assert.equal(body.tool_choice, 'required');
    assert.equal(body.max_completion_tokens, 256);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.deepEqual(body.messages[2].tool_calls, [{ id: 'call_7', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }]);
    assert.deepEqual(body.messages[3], { role: 'tool', tool_call_id: 'call_7', content: 'Error: no such file' });
    assert.deepEqual(body.messages[5], { role: 'tool', tool_call_id: 'call_8', content: 'Error: oldText was not found in b.ts' });
  });

  it('anthropic: puts cache_control on system, the last tool and the last stable-prefix message', async () => {
    server.script([{ text: 'done' }]);
    await makeClient(server, 'anthropic').complete(
      baseRequest({
        stablePrefixMessages: 2,
        messages: [
          { role: 'user', content: 'Rules from AGENTS.md' },
          { role: 'user', content: 'Task: fix the build' },
          {
            role: 'assistant',
            content: 'Reading.',
            toolCalls: [{ id: 'toolu_1', name: 'read_file', rawArguments: '{"path":"a.ts"}', arguments: { path: 'a.ts' } }],
          },
          { role: 'tool', toolCallId: 'toolu_1', toolName: 'read_file', content: 'export {}' },
          { role: 'user', content: 'and hurry' },
        ],
      }),
    );
    const { body, headers } = server.requests[0]!;
    // SDK versions differ: older ones send x-api-key, newer ones a Bearer token.
    assert.ok(headers['x-api-key'] === 'test-key' || headers.authorization === 'Bearer test-key', JSON.stringify(headers));
    assert.deepEqual(body.system, [{ type: 'text', text: 'You are Tasklane.', cache_control: { type: 'ephemeral' } }]);
    assert.equal(body.tools[0].cache_control, undefined);
    assert.deepEqual(body.tools[1].cache_control, { type: 'ephemeral' });
    assert.deepEqual(body.tools[1].input_schema, tools[1]!.inputSchema);
    assert.deepEqual(body.tool_choice, { type: 'auto' });
    assert.equal(typeof body.max_tokens, 'number');
    // Consecutive user messages merge into one turn; the breakpoint sits on the second block.
    assert.deepEqual(
      body.messages.map((m: { role: string }) => m.role),
      ['user', 'assistant', 'user'],
    );
    assert.deepEqual(body.messages[0].content, [
      { type: 'text', text: 'Rules from AGENTS.md' },
      { type: 'text', text: 'Task: fix the build', cache_control: { type: 'ephemeral' } },
    ]);
    assert.deepEqual(body.messages[1].content[1], { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } });
    assert.deepEqual(body.messages[2].content, [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'export {}' },
      { type: 'text', text: 'and hurry' },
    ]);
    const breakpoints = JSON.stringify(body).split('"cache_control"').length - 1;
    assert.equal(breakpoints, 3);
  });

  it('anthropic: toolChoice required becomes tool_choice any', async () => {
    server.script([{ toolCalls: [{ name: 'read_file', arguments: { path: 'x' } }] }]);
    await makeClient(server, 'anthropic', { stream: false }).complete(baseRequest({ toolChoice: 'required' }));
    assert.deepEqual(server.requests[0]!.body.tool_choice, { type: 'any' });
  });
});
