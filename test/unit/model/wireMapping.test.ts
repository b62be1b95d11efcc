import assert from 'node:assert/strict';
import { normaliseAnthropicStop, toAnthropicMessages } from '../../../src/core/model/anthropicClient';
import { toToolCall } from '../../../src/core/model/clientOptions';
import { fromOpenAiUsage, normaliseOpenAiStop, toOpenAiMessages } from '../../../src/core/model/openaiClient';
import { startModelServer } from '../../fixtures/modelServer';
import { makeClient } from './clientHelpers';

describe('model wire mapping', () => {
  it('toToolCall: empty arguments mean {}, invalid JSON leaves arguments undefined', () => {
    assert.deepEqual(toToolCall('c1', 'list', '').arguments, {});
    assert.equal(toToolCall('c1', 'list', '{"a":').arguments, undefined);
    assert.equal(toToolCall('c1', 'list', '{"a":').rawArguments, '{"a":');
  });

  it('anthropic: a malformed earlier call is echoed with {} input and its error result keeps is_error', () => {
    const messages = toAnthropicMessages({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', toolCalls: [toToolCall('t1', 'read_file', '{"path":')] },
        { role: 'tool', toolCallId: 't1', toolName: 'read_file', content: 'arguments were not JSON', isError: true },
        { role: 'user', content: '' },
      ],
    });
    assert.deepEqual(messages, [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'arguments were not JSON', is_error: true }] },
    ]);
  });

  it('openai: no system message when the system prompt is empty; assistant text without tools stays a string', () => {
    assert.deepEqual(
      toOpenAiMessages({
        system: '',
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'a' },
        ],
      }),
      [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'a' },
      ],
    );
  });

  it('normalises stop reasons and OpenAI usage', () => {
    assert.deepEqual(['stop', 'tool_calls', 'length', 'content_filter'].map(normaliseOpenAiStop), ['end', 'tool_calls', 'max_tokens', 'content_filter']);
    assert.deepEqual(['end_turn', 'tool_use', 'max_tokens', 'refusal'].map(normaliseAnthropicStop), ['end', 'tool_calls', 'max_tokens', 'refusal']);
    assert.deepEqual(fromOpenAiUsage({ prompt_tokens: 1000, completion_tokens: 5, total_tokens: 1005, prompt_tokens_details: { cached_tokens: 800 } }), {
      inputTokens: 200,
      outputTokens: 5,
      cacheReadTokens: 800,
      cacheWriteTokens: 0,
    });
    assert.deepEqual(fromOpenAiUsage(undefined), { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('anthropic streaming: a tool without parameters yields {} arguments', async () => {
    const server = await startModelServer();
    try {
      server.script([{ toolCalls: [{ name: 'list_todos', arguments: '' }] }]);
      const response = await makeClient(server, 'anthropic').complete({
        system: '',
        tools: [{ name: 'list_todos', description: 'd', inputSchema: { type: 'object' } }],
        messages: [{ role: 'user', content: 'x' }],
      });
      assert.deepEqual(
        response.toolCalls.map((c) => [c.name, c.arguments]),
        [['list_todos', {}]],
      );
    } finally {
      await server.close();
    }
  });
});
