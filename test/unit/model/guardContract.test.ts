/**
 * The contract every model client keeps under the guard (src/core/model/guarded.ts), whatever
 * its transport: the same cases run against the real OpenAI and Anthropic SDK clients talking to
 * the scripted model server, and against a client shaped like the vscode-lm one (it streams
 * parts, cancels through its signal, and maps its own failures to ModelErrors).
 */
import assert from 'node:assert/strict';
import { guarded } from '../../../src/core/model/guarded';
import { ModelStoppedError } from '../../../src/core/model/errors';
import { ModelError } from '../../../src/core/model/types';
import type { ModelClient, ModelRequest, ModelResponse } from '../../../src/core/model/types';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { failure, makeClient } from './clientHelpers';

const request = { system: 'sys', tools: [], messages: [{ role: 'user' as const, content: 'hi' }] };

/** One scripted answer of the fake: wait, then fail or answer (the wait ignores the signal when `deaf`). */
interface FakeStep {
  delayMs?: number;
  text?: string;
  error?: ModelError;
  deaf?: boolean;
}

/**
 * A vscode-lm-shaped client: like VsCodeLmClient it reports text parts through onDelta, turns its
 * signal into a cancellation (a ModelStoppedError) and knows nothing of timeouts or retries.
 */
class FakeLmClient implements ModelClient {
  readonly provider = 'vscode-lm';
  readonly model = 'fake/lm';
  calls = 0;
  constructor(private readonly steps: FakeStep[]) {}

  async complete(req: ModelRequest): Promise<ModelResponse> {
    const step = this.steps[this.calls++] ?? { text: 'unscripted' };
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, step.delayMs ?? 0);
      if (step.deaf) return;
      req.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new ModelStoppedError('', this.provider));
      });
    });
    if (step.error) throw step.error;
    req.onDelta?.({ kind: 'text', text: step.text ?? '' });
    return {
      text: step.text ?? '',
      toolCalls: [],
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      stopReason: 'end',
      model: this.model,
    };
  }
}

/** What each case needs from a transport: a client with these settings, and a way to script it. */
interface Transport {
  name: string;
  /** Scripts the next answers and returns the client to call and how many calls it received. */
  open(
    steps: Array<{ delayMs?: number; text?: string; rateLimitedForMs?: number }>,
    options: { timeoutMs: number; maxRetries: number; logger?: MemoryLogger },
  ): { client: ModelClient; calls: () => number };
}

describe('model clients under the guard: one contract for every transport', () => {
  let server: ModelServer;
  before(async () => {
    server = await startModelServer({ requireKey: 'test-key' });
  });
  afterEach(() => server.reset());
  after(() => server.close());

  const sdk = (format: 'openai' | 'anthropic'): Transport => ({
    name: format,
    open(steps, options) {
      server.script(
        steps.map((s) =>
          s.rateLimitedForMs !== undefined ? { error: { status: 429, retryAfterMs: s.rateLimitedForMs } } : { text: s.text ?? 'ok', delayMs: s.delayMs },
        ),
      );
      // createModelClient puts the SDK client under the guard, as production does.
      return { client: makeClient(server, format, options), calls: () => server.requests.length };
    },
  });

  const fakeLm: Transport = {
    name: 'vscode-lm (fake)',
    open(steps, options) {
      const fake = new FakeLmClient(
        steps.map((s) =>
          s.rateLimitedForMs !== undefined
            ? { error: new ModelError('rate_limit', 'fake/lm is blocked for now', { retryAfterMs: s.rateLimitedForMs }) }
            : // A stalled provider that ignores cancellation must not hang the turn either.
              { text: s.text ?? 'ok', delayMs: s.delayMs, deaf: true },
        ),
      );
      return { client: guarded(fake, { ...options, where: 'fake/lm' }), calls: () => fake.calls };
    },
  };

  for (const transport of [sdk('openai'), sdk('anthropic'), fakeLm]) {
    describe(transport.name, () => {
      it('a model that stalls ends in a timeout error, not a hang', async () => {
        const { client } = transport.open([{ delayMs: 2000, text: 'too late' }], { timeoutMs: 250, maxRetries: 2 });
        const started = Date.now();
        const error = await failure(client.complete(request));
        assert.equal(error.kind, 'timeout');
        assert.match(error.message, /No response from .* within 0\.25 s/);
        assert.ok(Date.now() - started < 1500, 'the guard waited for the model instead of timing out');
      });

      it('a 429 then success is retried once, after the backoff it asked for', async () => {
        const logger = new MemoryLogger();
        const { client, calls } = transport.open([{ rateLimitedForMs: 300 }, { text: 'after the wait' }], { timeoutMs: 5000, maxRetries: 2, logger });
        const started = Date.now();
        const response = await client.complete(request);
        assert.equal(response.text, 'after the wait');
        assert.equal(calls(), 2);
        assert.ok(Date.now() - started >= 280, `the retry came after ${Date.now() - started} ms, before the 300 ms asked for`);
        assert.ok(
          logger.lines.some((l) => l.includes('[MODEL]') && /rate_limit; retry 1 of 2/.test(l)),
          logger.lines.join('\n'),
        );
      });

      it('maxRetries 0 gives the error at once', async () => {
        const { client, calls } = transport.open([{ rateLimitedForMs: 2000 }, { text: 'never asked' }], { timeoutMs: 5000, maxRetries: 0 });
        const started = Date.now();
        const error = await failure(client.complete(request));
        assert.equal(error.kind, 'rate_limit');
        assert.equal(calls(), 1);
        assert.ok(Date.now() - started < 1000, 'waited before failing');
      });

      it('cancellation aborts the call at once, as a Stop', async () => {
        const { client } = transport.open([{ delayMs: 2000, text: 'never read' }], { timeoutMs: 5000, maxRetries: 2 });
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 50);
        const started = Date.now();
        const error = await failure(client.complete({ ...request, signal: controller.signal }));
        assert.equal(error.kind, 'cancelled');
        assert.ok(error instanceof ModelStoppedError);
        assert.ok(Date.now() - started < 1000, 'the call ran on after the abort');
      });
    });
  }
});
