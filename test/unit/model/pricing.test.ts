import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { conservativePrice, costOf, parseModelPrices, priceOf, PRICES, unpricedNote } from '../../../src/core/model/pricing';
import type { Usage } from '../../../src/core/model/types';
import { costText, costWords } from '../../../src/shared/costText';
import { ENGLISH } from '../../../src/shared/translator';
import { WEBVIEW_WORDS } from '../../../src/shared/webviewWords';
import { DEMO_MODEL_ID } from '../../fixtures/demoModel';

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

  it('an unknown model is never free: it is charged at the highest known rate and marked estimated', () => {
    const rate = conservativePrice();
    assert.deepEqual(rate, {
      input: Math.max(...Object.values(PRICES).map((p) => p.input)),
      output: Math.max(...Object.values(PRICES).map((p) => p.output)),
      cacheRead: Math.max(...Object.values(PRICES).map((p) => p.cacheRead)),
      cacheWrite: Math.max(...Object.values(PRICES).map((p) => p.cacheWrite)),
    });
    const cost = costOf('google/gemini-2.5-pro', usage(1_000_000, 100_000));
    assert.equal(cost.known, false);
    assert.equal(cost.estimated, true);
    assert.equal(cost.source, 'conservative');
    assert.ok(Math.abs(cost.usd - (rate.input + rate.output / 10)) < 1e-9, String(cost.usd));
    assert.ok(cost.usd > 0);
  });

  it("the person's prices add to and override the table, by exact id first, then the longest glob; 0 is allowed", () => {
    const { prices, problems } = parseModelPrices({
      'deepseek/*': { input: 0.3, output: 1.2 },
      'deepseek/deepseek-chat': { input: 0.2, output: 0.8, cacheRead: 0.02 },
      'llama*': { input: 0, output: 0 },
      'gpt-4o': { input: 1, output: 2 },
      broken: { input: -1, output: 2 },
      alsoBroken: 'cheap',
    });
    assert.equal(problems.length, 2);
    assert.equal(prices.broken, undefined);
    const chat = costOf('deepseek/deepseek-chat', usage(1_000_000, 1_000_000, 1_000_000), { prices });
    assert.deepEqual([chat.source, chat.pricedAs, chat.estimated], ['setting', 'deepseek/deepseek-chat', false]);
    assert.ok(Math.abs(chat.usd - (0.2 + 0.8 + 0.02)) < 1e-9, String(chat.usd));
    const coder = costOf('deepseek/deepseek-coder', usage(1_000_000, 0, 1_000_000), { prices });
    assert.equal(coder.pricedAs, 'deepseek/*');
    assert.ok(Math.abs(coder.usd - (0.3 + 0.3)) < 1e-9, 'cache reads default to the input price');
    assert.deepEqual(costOf('llama3.1:8b', usage(5_000_000, 5_000_000), { prices }), {
      usd: 0,
      known: true,
      estimated: false,
      source: 'setting',
      pricedAs: 'llama*',
    });
    assert.equal(costOf('gpt-4o', usage(1_000_000, 0), { prices }).usd, 1, 'the setting overrides the table');
  });

  it('a cost the server reports is believed over any price, and a malformed one is ignored', () => {
    assert.deepEqual(costOf('google/gemini-2.5-pro', usage(1_000_000, 1_000), { reportedUsd: 0.0123 }), {
      usd: 0.0123,
      known: true,
      estimated: false,
      source: 'reported',
    });
    assert.equal(costOf('gpt-4o', usage(1_000_000, 0), { reportedUsd: Number.NaN }).source, 'table');
  });

  it('tells how to give a real price for an unpriced model, and says nothing for a priced one', () => {
    assert.match(unpricedNote('mistral-large-latest', undefined, 'tasklane.model.prices') ?? '', /no price is known.*estimated.*tasklane\.model\.prices/);
    assert.equal(unpricedNote('gpt-4o', undefined, 'x'), undefined);
    assert.equal(unpricedNote('mistral-large-latest', { 'mistral-*': { input: 2, output: 6, cacheRead: 2, cacheWrite: 2 } }, 'x'), undefined);
  });

  it('keeps Anthropic cache multipliers consistent across the table', () => {
    for (const [id, p] of Object.entries(PRICES)) {
      if (!id.startsWith('claude')) continue;
      assert.ok(Math.abs(p.cacheRead - p.input * 0.1) < 1e-12 && Math.abs(p.cacheWrite - p.input * 1.25) < 1e-12, id);
    }
  });
});

describe('a cost known to be zero: the demo model npm start runs', () => {
  // start.mjs writes this user setting for the demo (test/harness/start.mjs); read it from there so
  // the test follows what a newcomer's `npm start` really sets.
  const startScript = fs.readFileSync(path.resolve(__dirname, '../../harness/start.mjs'), 'utf8');
  const written = /settings\['tasklane\.model\.prices'\] = (\{.*\});/.exec(startScript)?.[1];

  it('is priced at 0 by npm start, so its calls cost nothing and are not estimated', () => {
    assert.ok(written, 'start.mjs no longer prices the demo model');
    const { prices, problems } = parseModelPrices(JSON.parse(written.replace(/'/g, '"').replace(/(\w+):/g, '"$1":')));
    assert.deepEqual(problems, []);
    const cost = costOf(DEMO_MODEL_ID, usage(49_588, 2_000), { prices });
    assert.deepEqual({ usd: cost.usd, estimated: cost.estimated }, { usd: 0, estimated: false });
    assert.equal(costText(cost.usd, cost.estimated), 'no charge');
    // Unpriced, the same run was shown as money (ux review: ≈$0.78 for a 1-s demo chore run).
    const unpriced = costOf(DEMO_MODEL_ID, usage(49_588, 2_000));
    assert.match(costText(unpriced.usd, unpriced.estimated), /^≈\$\d+\.\d{3} estimated$/);
  });

  it('every view reads an exact zero as "no charge", a real cost as dollars', () => {
    assert.equal(costText(0, false), 'no charge');
    assert.equal(costText(0, undefined, 4), 'no charge');
    assert.equal(costText(0.1234, false), '$0.123');
    assert.equal(costText(0, true), '≈$0.000 estimated');
  });

  it("in the person's language: the host's words, the sidebar's the same messages", () => {
    const words = costWords(ENGLISH);
    assert.deepEqual(words, { estimated: WEBVIEW_WORDS.costEstimated, noCharge: WEBVIEW_WORDS.costNoCharge }, "the sidebar has the host's messages");
    const accented = costWords({ t: (message) => `⟦${message}⟧` });
    assert.equal(costText(0.5, true, 3, accented), '⟦≈$0.500 estimated⟧');
    assert.equal(costText(0, false, 3, accented), '⟦no charge⟧');
  });
});
