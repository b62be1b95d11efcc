/**
 * Token prices and usage arithmetic. Prices are public list prices in USD per million tokens;
 * they drift, so an unknown model costs 0 and is flagged rather than guessed.
 */
import type { Usage } from './types';

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  /** Anthropic: 5-minute cache write (1.25 × input). OpenAI: no surcharge, same as input. */
  cacheWrite: number;
}

/** A cost figure and whether it came from the table. */
export interface CostEstimate {
  usd: number;
  /** False when the model is not in the table: `usd` is 0 and should be shown as unknown. */
  known: boolean;
  /** The table entry used, e.g. 'claude-sonnet-4-5' for 'claude-sonnet-4-5-20250929'. */
  pricedAs?: string;
}

const anthropic = (input: number, output: number): ModelPrice => ({ input, output, cacheRead: input * 0.1, cacheWrite: input * 1.25 });
const openai = (input: number, cacheRead: number, output: number): ModelPrice => ({ input, output, cacheRead, cacheWrite: input });

export const PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4-6': anthropic(5, 25),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-sonnet-4-6': anthropic(3, 15),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-3-5-sonnet': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),
  'claude-3-haiku': anthropic(0.25, 1.25),
  'gpt-5': openai(1.25, 0.125, 10),
  'gpt-5.1': openai(1.25, 0.125, 10),
  'gpt-5-mini': openai(0.25, 0.025, 2),
  'gpt-5-nano': openai(0.05, 0.005, 0.4),
  'gpt-4.1': openai(2, 0.5, 8),
  'gpt-4.1-mini': openai(0.4, 0.1, 1.6),
  'gpt-4.1-nano': openai(0.1, 0.025, 0.4),
  'gpt-4o': openai(2.5, 1.25, 10),
  'gpt-4o-mini': openai(0.15, 0.075, 0.6),
  o3: openai(2, 0.5, 8),
  'o4-mini': openai(1.1, 0.275, 4.4),
};

/**
 * Finds the table entry for a model id: exact, then without a router prefix ('openai/gpt-4o')
 * and a date or '-latest' suffix ('gpt-4o-2024-08-06', 'claude-sonnet-4-5-20250929').
 * Suffixes that change the model ('gpt-4o-audio-preview') are not stripped, so they stay unknown.
 */
export function priceOf(model: string): { price: ModelPrice; pricedAs: string } | undefined {
  const candidates = new Set<string>();
  const bare = model
    .trim()
    .toLowerCase()
    .replace(/^[a-z0-9-]+\//, '');
  candidates.add(model);
  candidates.add(bare);
  candidates.add(bare.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, ''));
  // OpenRouter writes Anthropic versions with dots ('claude-sonnet-4.5').
  candidates.add(bare.replace(/^(claude-[a-z]+-\d+)\.(\d+)/, '$1-$2'));
  for (const id of candidates) {
    const price = PRICES[id];
    if (price) return { price, pricedAs: id };
  }
  return undefined;
}

export function costOf(model: string, usage: Usage): CostEstimate {
  const found = priceOf(model);
  if (!found) return { usd: 0, known: false };
  const { price } = found;
  const usd =
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      usage.cacheReadTokens * price.cacheRead +
      usage.cacheWriteTokens * price.cacheWrite) /
    1_000_000;
  return { usd, known: true, pricedAs: found.pricedAs };
}
