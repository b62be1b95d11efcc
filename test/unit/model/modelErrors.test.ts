/**
 * Failure paths of the real SDK clients against the scripted server: each ends as a ModelError
 * whose kind the engine can act on and whose message tells the user what to do.
 */
import assert from 'node:assert/strict';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { failure, makeClient } from './clientHelpers';

const request = { system: 'sys', tools: [], messages: [{ role: 'user' as const, content: 'hi' }] };

describe('SDK model clients: errors', () => {
  let server: ModelServer;
  before(async () => {
    server = await startModelServer({ requireKey: 'test-key' });
  });
  afterEach(() => server.reset());
  after(() => server.close());

  for (const format of ['openai', 'anthropic'] as const) {
    describe(format, () => {
      it('401 → auth, naming the server and the command to run', async () => {
        server.script([{ error: { status: 401 } }]);
        const error = await failure(makeClient(server, format).complete(request));
        assert.equal(error.kind, 'auth');
        assert.equal(error.details.status, 401);
        assert.ok(error.message.includes(server.url), error.message);
        assert.match(error.message, /Run 'Tasklane: Set API Key'/);
      });

      it('a key the server does not accept → auth', async () => {
        const strict = await startModelServer({ requireKey: 'other-key' });
        try {
          const error = await failure(makeClient(strict, format).complete(request));
          assert.equal(error.kind, 'auth');
        } finally {
          await strict.close();
        }
      });

      it('wrong base URL path → not_found, with what to check', async () => {
        const error = await failure(makeClient(server, format, { baseUrl: `${server.url}/wrong` }).complete(request));
        assert.equal(error.kind, 'not_found');
        assert.equal(error.details.status, 404);
        assert.match(error.message, /tasklane\.model\.baseUrl/);
      });

      it('404 for an unknown model → not_found naming the model', async () => {
        server.script([{ error: { status: 404, message: 'model not found' } }]);
        const error = await failure(makeClient(server, format).complete(request));
        assert.equal(error.kind, 'not_found');
        assert.match(error.message, /model not found/);
        assert.match(error.message, format === 'openai' ? /gpt-4\.1-mini/ : /claude-sonnet-4-6/);
      });

      it('429 with Retry-After is retried after the wait, then succeeds', async () => {
        server.script([{ error: { status: 429, retryAfterSeconds: 1 } }, { text: 'after the wait' }]);
        const started = Date.now();
        const response = await makeClient(server, format, { maxRetries: 1 }).complete(request);
        const elapsed = Date.now() - started;
        assert.equal(response.text, 'after the wait');
        assert.equal(server.requests.length, 2);
        assert.ok(elapsed >= 950, `the retry came after ${elapsed} ms, before Retry-After's 1 s`);
      });

      it('429 with retries exhausted → rate_limit carrying retryAfterMs', async () => {
        server.script([{ error: { status: 429, retryAfterMs: 20, retryAfterSeconds: 20 } }, { error: { status: 429, retryAfterSeconds: 20 } }]);
        const error = await failure(makeClient(server, format, { maxRetries: 1 }).complete(request));
        assert.equal(server.requests.length, 2);
        assert.equal(error.kind, 'rate_limit');
        assert.equal(error.details.retryAfterMs, 20_000);
        assert.match(error.message, /Rate limited \(429\).*retry after 20 s/);
      });

      it('500 then success is retried; 500 with retries exhausted → server', async () => {
        server.script([{ error: { status: 500, retryAfterMs: 10 } }, { text: 'recovered' }]);
        assert.equal((await makeClient(server, format, { maxRetries: 1 }).complete(request)).text, 'recovered');
        server.reset();
        server.script([{ error: { status: 503, message: 'overloaded' } }]);
        const error = await failure(makeClient(server, format).complete(request));
        assert.equal(error.kind, 'server');
        assert.match(error.message, /\(503\).*overloaded/);
      });

      it('no response within timeoutMs → timeout', async () => {
        server.script([{ delayMs: 1500, text: 'too late' }]);
        const started = Date.now();
        const error = await failure(makeClient(server, format, { timeoutMs: 200 }).complete(request));
        assert.equal(error.kind, 'timeout');
        assert.match(error.message, /No response from .* within 0\.2 s/);
        assert.ok(Date.now() - started < 1400, 'the client waited for the server instead of timing out');
      });

      it('a stream that stalls after it started → timeout, not a hang', async () => {
        server.script([{ text: 'slow slow slow slow', chunkDelayMs: 600 }]);
        const deltas: string[] = [];
        const error = await failure(makeClient(server, format, { timeoutMs: 250 }).complete(request, (d) => deltas.push(d)));
        assert.equal(error.kind, 'timeout');
        assert.match(error.message, /stalled/);
      });

      it('caller abort → cancelled', async () => {
        server.script([{ delayMs: 1000, text: 'never read' }]);
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 50);
        const error = await failure(makeClient(server, format).complete({ ...request, signal: controller.signal }));
        assert.equal(error.kind, 'cancelled');
      });

      it('caller abort in the middle of a stream → cancelled, not a truncated answer', async () => {
        server.script([{ text: 'a long answer that streams slowly', chunkDelayMs: 40 }]);
        const controller = new AbortController();
        const deltas: string[] = [];
        const error = await failure(
          makeClient(server, format).complete({ ...request, signal: controller.signal }, (d) => {
            deltas.push(d);
            controller.abort();
          }),
        );
        assert.equal(error.kind, 'cancelled');
        assert.ok(deltas.length >= 1);
      });

      it('connection refused → connection, pointing at the base URL setting', async () => {
        const gone = await startModelServer();
        const url = gone.url;
        await gone.close();
        const error = await failure(makeClient(gone, format, { baseUrl: format === 'openai' ? `${url}/v1` : url }).complete(request));
        assert.equal(error.kind, 'connection');
        assert.match(error.message, /Cannot reach .*: connection refused\. Check tasklane\.model\.baseUrl/);
      });
    });
  }
});
