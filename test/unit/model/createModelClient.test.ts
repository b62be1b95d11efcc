import assert from 'node:assert/strict';
import { createModelClient, DEFAULT_MODELS, PLACEHOLDER_KEY } from '../../../src/core/model/createModelClient';
import { ModelError } from '../../../src/core/model/types';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';

const request = { system: '', tools: [], messages: [{ role: 'user' as const, content: 'hello' }] };

function thrown(fn: () => unknown): ModelError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ModelError, `expected a ModelError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected createModelClient to throw');
}

describe('createModelClient', () => {
  let server: ModelServer;
  before(async () => {
    server = await startModelServer();
  });
  afterEach(() => server.reset());
  after(() => server.close());

  it('missing key → missing_key, saying how to set it, per provider', () => {
    const openai = thrown(() => createModelClient({ provider: 'openai', env: {} }));
    assert.equal(openai.kind, 'missing_key');
    assert.match(openai.message, /Tasklane: Set API Key/);
    assert.match(openai.message, /OPENAI_API_KEY/);
    const anthropic = thrown(() => createModelClient({ provider: 'anthropic', apiKey: '  ', env: {} }));
    assert.equal(anthropic.kind, 'missing_key');
    assert.match(anthropic.message, /ANTHROPIC_API_KEY/);
  });

  it('falls back to the environment key and the default model', () => {
    const client = createModelClient({ provider: 'anthropic', env: { ANTHROPIC_API_KEY: 'sk-env' } });
    assert.equal(client.where, 'https://api.anthropic.com');
    assert.equal(client.model, DEFAULT_MODELS.anthropic);
    assert.equal(client.provider, 'anthropic');
    const openai = createModelClient({ provider: 'openai', env: { OPENAI_API_KEY: 'sk-env' } });
    assert.equal(openai.model, DEFAULT_MODELS.openai);
    assert.equal(openai.where, 'https://api.openai.com/v1');
  });

  it('an explicit key wins over the environment', async () => {
    const client = createModelClient({
      provider: 'openai',
      apiKey: 'from-secrets',
      baseUrl: server.openaiBaseUrl,
      env: { OPENAI_API_KEY: 'from-env' },
      maxRetries: 0,
    });
    await client.complete(request);
    assert.equal(server.requests[0]!.headers.authorization, 'Bearer from-secrets');
  });

  it('openai-compatible runs keyless with a placeholder and never sends OPENAI_API_KEY', async () => {
    const client = createModelClient({
      provider: 'openai-compatible',
      model: 'llama3.2',
      baseUrl: server.openaiBaseUrl,
      env: { OPENAI_API_KEY: 'sk-secret-openai' },
      maxRetries: 0,
    });
    assert.equal(client.provider, 'openai-compatible');
    const response = await client.complete(request);
    assert.equal(response.text, 'echo: hello');
    assert.equal(server.requests[0]!.headers.authorization, `Bearer ${PLACEHOLDER_KEY}`);
    assert.equal(server.requests[0]!.body.model, 'llama3.2');
  });

  it('openai-compatible sends max_tokens, openai sends max_completion_tokens', async () => {
    await createModelClient({ provider: 'openai-compatible', model: 'm', baseUrl: server.openaiBaseUrl, maxRetries: 0 }).complete({
      ...request,
      maxOutputTokens: 50,
    });
    await createModelClient({ provider: 'openai', apiKey: 'k', baseUrl: server.openaiBaseUrl, maxRetries: 0 }).complete({ ...request, maxOutputTokens: 50 });
    assert.deepEqual(
      server.requests.map((r) => [r.body.max_tokens, r.body.max_completion_tokens]),
      [
        [50, undefined],
        [undefined, 50],
      ],
    );
  });

  it('openai-compatible without a model id → no_model naming the setting', () => {
    const error = thrown(() => createModelClient({ provider: 'openai-compatible', env: {} }));
    assert.equal(error.kind, 'no_model');
    assert.match(error.message, /tasklane\.model\.id/);
  });

  it('a base URL that is not http(s) is refused with what to write', () => {
    const error = thrown(() => createModelClient({ provider: 'openai', apiKey: 'k', baseUrl: 'localhost:11434' }));
    assert.equal(error.kind, 'connection');
    assert.match(error.message, /http:\/\//);
  });

  it('passes timeoutMs and maxRetries through to the SDK client', async () => {
    server.script([{ error: { status: 500, retryAfterMs: 5 } }, { error: { status: 500, retryAfterMs: 5 } }, { text: 'third time' }]);
    const client = createModelClient({ provider: 'anthropic', apiKey: 'k', baseUrl: server.anthropicBaseUrl, maxRetries: 2, timeoutMs: 2000 });
    assert.equal((await client.complete(request)).text, 'third time');
    assert.equal(server.requests.length, 3);
  });
});
