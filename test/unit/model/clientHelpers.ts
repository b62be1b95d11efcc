import { AnthropicClient } from '../../../src/core/model/anthropicClient';
import { OpenAiClient } from '../../../src/core/model/openaiClient';
import type { ModelClient } from '../../../src/core/model/types';
import type { ModelServer } from '../../fixtures/modelServer';

/** A real SDK client aimed at the scripted server, with no retries and a short timeout unless told. */
export function makeClient(
  server: ModelServer,
  format: 'openai' | 'anthropic',
  options: { stream?: boolean; timeoutMs?: number; maxRetries?: number; baseUrl?: string } = {},
): ModelClient {
  const common = {
    model: format === 'openai' ? 'gpt-4.1-mini' : 'claude-sonnet-4-6',
    apiKey: 'test-key',
    stream: options.stream ?? true,
    timeoutMs: options.timeoutMs ?? 5000,
    maxRetries: options.maxRetries ?? 0,
  };
  return format === 'openai'
    ? new OpenAiClient({ ...common, baseUrl: options.baseUrl ?? server.openaiBaseUrl })
    : new AnthropicClient({ ...common, baseUrl: options.baseUrl ?? server.anthropicBaseUrl });
}
