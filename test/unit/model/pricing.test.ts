import assert from 'node:assert/strict';
import { costOf, priceOf, PRICES } from '../../../src/core/model/pricing';
import type { Usage } from '../../../src/core/model/types';

const usage = (inputTokens: number, outputTokens: number, cacheReadTokens = 0, cacheWriteTokens = 0): Usage => ({
  inputTokens,
  outputTokens,
  cacheReadTokens,
  cacheWriteTokens,
});

describe('pricing', () => {
  it('prices every token class of an Anthropic call', () => {
    // claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million.
    const cost = costOf('claude-sonnet-4-5', usage(1_000_000, 100_000, 2_000_000, 400_000));
    assert.equal(cost.known, true);
    assert.ok(Math.abs(cost.usd - (3 + 1.5 + 0.6 + 1.5)) < 1e-9, String(cost.usd));
  });

  it('prices cached OpenAI input at the cached rate', () => {
    // gpt-4o: $2.50 in, $1.25 cached, $10 out per million.
    const cost = costOf('gpt-4o', usage(200_000, 10_000, 800_000));
    assert.ok(Math.abs(cost.usd - (0.5 + 0.1 + 1)) < 1e-9, String(cost.usd));
  });

  it('matches dated, -latest and router-prefixed ids, but not different variants', () => {
    assert.equal(priceOf('claude-sonnet-4-5-20250929')?.pricedAs, 'claude-sonnet-4-5');
    assert.equal(priceOf('gpt-4o-2024-08-06')?.pricedAs, 'gpt-4o');
    assert.equal(priceOf('openai/gpt-4o-mini')?.pricedAs, 'gpt-4o-mini');
    assert.equal(priceOf('anthropic/claude-sonnet-4.5')?.pricedAs, 'claude-sonnet-4-5');
    assert.equal(priceOf('gpt-4o-audio-preview'), undefined);
  });

  it('an unknown model costs 0 and is flagged', () => {
    assert.deepEqual(costOf('llama3.2', usage(1000, 1000)), { usd: 0, known: false });
  });

  it('keeps Anthropic cache multipliers consistent across the table', () => {
    for (const [id, p] of Object.entries(PRICES)) {
      if (!id.startsWith('claude')) continue;
      assert.ok(Math.abs(p.cacheRead - p.input * 0.1) < 1e-12 && Math.abs(p.cacheWrite - p.input * 1.25) < 1e-12, id);
    }
  });
});
