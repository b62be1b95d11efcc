import assert from 'node:assert/strict';
import { createModelClient } from '../../../src/core/model/createModelClient';
import type { Logger } from '../../../src/core/ports';
import { ModelError } from '../../../src/core/model/types';
import type { ModelClient } from '../../../src/core/model/types';
import type { ModelServer } from '../../fixtures/modelServer';

/** A real SDK client (under the guard, as production builds it) aimed at the scripted server, with no retries and a short timeout unless told. */
export function makeClient(
  server: ModelServer,
  format: 'openai' | 'anthropic',
  options: { stream?: boolean; timeoutMs?: number; maxRetries?: number; baseUrl?: string; logger?: Logger } = {},
): ModelClient {
  return createModelClient({
    provider: format,
    model: format === 'openai' ? 'gpt-4.1-mini' : 'claude-sonnet-4-6',
    apiKey: 'test-key',
    baseUrl: options.baseUrl ?? (format === 'openai' ? server.openaiBaseUrl : server.anthropicBaseUrl),
    stream: options.stream ?? true,
    timeoutMs: options.timeoutMs ?? 5000,
    maxRetries: options.maxRetries ?? 0,
    env: {},
    ...(options.logger ? { logger: options.logger } : {}),
  });
}

/** Resolves with the ModelError `promise` rejects with; fails the test if it resolves or rejects with anything else. */
export async function failure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelError, `expected a ModelError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the call to fail');
}
