import * as assert from 'node:assert/strict';
import { createModelClient } from '../../../src/core/model/createModelClient';
import { conservativePrice } from '../../../src/core/model/pricing';
import type { ModelPrices } from '../../../src/core/model/pricing';
import { ChoreSpendLedger, InMemorySpendPersistence } from '../../../src/core/chores/spendLedger';
import type { ModelServer, ScriptStep } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from './runnerHarness';
import type { RunnerHarness } from './runnerHarness';

// Cost truth (issue 22): a model with no known price is never free by accident. The engine, the
// runner and the real OpenAI SDK client talk to the scripted server; the model id is one the
// built-in table does not list (an OpenRouter id), so only the conservative rate, the person's
// price or the server's reported cost can stop the loop at `maxCostUsd`.

const unpriced = 'google/gemini-2.5-pro';
const perCall = { input: 20_000, output: 1_000 };

const looping = `chores:
  - id: loop
    name: Looping chore
    trigger: { files: ["src/**"] }
    prompt: Keep reading.
    budget: { maxIterations: 50, maxCostUsd: 0.5 }
`;

/** Reads forever: each call uses `perCall` tokens, and reports `cost` when given. */
const reads = (n: number, cost?: number): ScriptStep[] =>
  Array.from({ length: n }, () => ({
    toolCalls: [{ name: 'read_file', arguments: { path: 'src/app.ts' } }],
    usage: { ...perCall, ...(cost !== undefined ? { cost } : {}) },
  }));

describe('chore cost caps hold for models without a known price', function () {
  this.timeout(30_000);
  let server: ModelServer;
  let h: RunnerHarness;
  const open = useRunnerHarness((s) => (server = s));

  const openOn = (prices?: ModelPrices, spend?: ChoreSpendLedger) =>
    open(choresFrom(looping), spend ? { spend } : {}, {
      model: async () =>
        createModelClient({
          provider: 'openai-compatible',
          baseUrl: server.openaiBaseUrl,
          apiKey: 'test-key',
          model: unpriced,
          maxRetries: 0,
          timeoutMs: 5_000,
        }),
      settings: () => ({ maxActionsPerTask: 200, maxTokensPerTask: 50_000_000, ...(prices ? { modelPrices: prices } : {}) }),
    });

  it('an unpriced model is charged at the conservative rate: maxCostUsd stops the loop and the run says the cost was estimated', async () => {
    const spend = new ChoreSpendLedger(new InMemorySpendPersistence(), () => Date.now());
    h = await openOn(undefined, spend);
    server.script(reads(20));
    await h.runner.fire('loop', 'manual');
    const run = await h.ended('loop');
    const rate = conservativePrice();
    const callUsd = (perCall.input * rate.input + perCall.output * rate.output) / 1e6;
    const calls = Math.ceil(0.5 / callUsd - 1e-9);
    assert.equal(run.status, 'budget_exhausted', run.reason ?? '');
    assert.equal(server.requests.length, calls, `stops after ${calls} calls at $${callUsd} each`);
    assert.ok(Math.abs(run.usage.costUsd - calls * callUsd) < 1e-9, String(run.usage.costUsd));
    assert.equal(run.usage.costEstimated, true);
    assert.match(run.reason ?? '', /≈\$.*estimated.*tasklane\.model\.prices.*budget\.maxCostUsd/);
    // The rolling caps count the same estimate.
    assert.ok(Math.abs(spend.spent('loop').day - calls * callUsd) < 1e-9);
  });

  it("with the person's price for the model, the loop stops where that price says, not estimated", async () => {
    h = await openOn({ 'google/*': { input: 1.25, output: 10, cacheRead: 0.31, cacheWrite: 1.25 } });
    server.script(reads(25));
    await h.runner.fire('loop', 'manual');
    const run = await h.ended('loop');
    const callUsd = (perCall.input * 1.25 + perCall.output * 10) / 1e6; // $0.035
    assert.equal(run.status, 'budget_exhausted', run.reason ?? '');
    assert.equal(server.requests.length, Math.ceil(0.5 / callUsd));
    assert.equal(run.usage.costEstimated, undefined);
    assert.doesNotMatch(run.reason ?? '', /estimated/);
  });

  it('a cost the server reports per response (OpenRouter usage.cost) is the cost used', async () => {
    h = await openOn();
    server.script(reads(10, 0.1));
    await h.runner.fire('loop', 'manual');
    const run = await h.ended('loop');
    assert.equal(run.status, 'budget_exhausted', run.reason ?? '');
    assert.equal(server.requests.length, 5, '5 × $0.10 reaches $0.50');
    assert.ok(Math.abs(run.usage.costUsd - 0.5) < 1e-9, String(run.usage.costUsd));
    assert.equal(run.usage.costEstimated, undefined);
  });
});
