/**
 * Token prices and usage arithmetic. Prices are public list prices in USD per million tokens; they
 * drift, and many models (OpenRouter's, newer ids, local ones, vscode-lm) are not in the table. So
 * a call's cost comes, in this order, from: what the server reported for it (OpenRouter's
 * `usage.cost`), the person's own prices (`tasklane.model.prices`, or `TASKLANE_MODEL_PRICES`
 * headless), the built-in table, and otherwise a conservative estimate: every token at the highest
 * price known for its kind. A model with no known price is never free by accident: every cost cap
 * still trips, early rather than never, and the figure is marked estimated wherever it shows.
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

/**
 * The person's prices (`tasklane.model.prices`), keyed by model id or glob (`*`, `?`; e.g.
 * `deepseek/*`, `llama*`); they add to the built-in table and win over it. 0 is a valid price
 * (a local model).
 */
export type ModelPrices = Readonly<Record<string, ModelPrice>>;

/** Where a call's cost came from. */
export type CostSource = 'reported' | 'setting' | 'table' | 'conservative';

/** A cost figure and how far to trust it. */
export interface CostEstimate {
  usd: number;
  /** False when no price is known for the model: `usd` is then the conservative estimate. */
  known: boolean;
  /** True when `usd` is the conservative estimate: views label it, caps count it. */
  estimated: boolean;
  source: CostSource;
  /** The price entry used, e.g. 'claude-sonnet-4-5' for 'claude-sonnet-4-5-20250929', or a setting's glob. */
  pricedAs?: string;
}

/** What {@link costOf} may know beyond the model id and its usage. */
export interface CostOptions {
  /** The person's prices (see {@link ModelPrices}). */
  prices?: ModelPrices;
  /** The cost the server reported for this call (USD), believed when it is a finite number ≥ 0. */
  reportedUsd?: number;
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

/** The id forms a model is looked up under: as given, without a router prefix, without a date suffix. */
function idCandidates(model: string): string[] {
  const candidates = new Set<string>();
  const bare = model
    .trim()
    .toLowerCase()
    .replace(/^[a-z0-9-]+\//, '');
  candidates.add(model);
  candidates.add(model.trim().toLowerCase());
  candidates.add(bare);
  candidates.add(bare.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, ''));
  // OpenRouter writes Anthropic versions with dots ('claude-sonnet-4.5').
  candidates.add(bare.replace(/^(claude-[a-z]+-\d+)\.(\d+)/, '$1-$2'));
  return [...candidates];
}

const isGlob = (key: string) => /[*?]/.test(key);

function globMatches(glob: string, id: string): boolean {
  const pattern = glob
    .trim()
    .toLowerCase()
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${pattern}$`).test(id);
}

/** The person's price for a model: an exact id first, then the longest glob that matches. */
function settingPrice(model: string, prices: ModelPrices | undefined): { price: ModelPrice; pricedAs: string } | undefined {
  if (!prices) return undefined;
  const entries = Object.entries(prices);
  const candidates = idCandidates(model);
  for (const id of candidates) {
    const exact = entries.find(([key]) => !isGlob(key) && key.trim().toLowerCase() === id.toLowerCase());
    if (exact) return { price: exact[1], pricedAs: exact[0] };
  }
  const globs = entries.filter(([key]) => isGlob(key)).sort(([a], [b]) => b.length - a.length);
  for (const [key, price] of globs) if (candidates.some((id) => globMatches(key, id))) return { price, pricedAs: key };
  return undefined;
}

/**
 * Finds the price of a model id: the person's prices first, then the built-in table, exact, then
 * without a router prefix ('openai/gpt-4o') and a date or '-latest' suffix ('gpt-4o-2024-08-06',
 * 'claude-sonnet-4-5-20250929'). Suffixes that change the model ('gpt-4o-audio-preview') are not
 * stripped, so they stay unknown.
 */
export function priceOf(model: string, prices?: ModelPrices): { price: ModelPrice; pricedAs: string; source: 'setting' | 'table' } | undefined {
  const own = settingPrice(model, prices);
  if (own) return { ...own, source: 'setting' };
  for (const id of idCandidates(model)) {
    const price = PRICES[id];
    if (price) return { price, pricedAs: id, source: 'table' };
  }
  return undefined;
}

/** The rate an unpriced model is charged at: for each kind of token, the highest price known (table and setting). */
export function conservativePrice(prices?: ModelPrices): ModelPrice {
  const all = [...Object.values(PRICES), ...Object.values(prices ?? {})];
  const max = (field: keyof ModelPrice) => Math.max(0, ...all.map((p) => p[field]));
  return { input: max('input'), output: max('output'), cacheRead: max('cacheRead'), cacheWrite: max('cacheWrite') };
}

function priced(usage: Usage, price: ModelPrice): number {
  return (
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      usage.cacheReadTokens * price.cacheRead +
      usage.cacheWriteTokens * price.cacheWrite) /
    1_000_000
  );
}

/** What one call cost: reported, priced by the setting or the table, or estimated conservatively. */
export function costOf(model: string, usage: Usage, options: CostOptions = {}): CostEstimate {
  const reported = options.reportedUsd;
  if (typeof reported === 'number' && Number.isFinite(reported) && reported >= 0) return { usd: reported, known: true, estimated: false, source: 'reported' };
  const found = priceOf(model, options.prices);
  if (found) return { usd: priced(usage, found.price), known: true, estimated: false, source: found.source, pricedAs: found.pricedAs };
  return { usd: priced(usage, conservativePrice(options.prices)), known: false, estimated: true, source: 'conservative' };
}

/**
 * What a person is told before a run when `model` has no known price: its cost will be estimated
 * at the conservative rate, and where to give a real one (`where`: the setting, or the variable).
 * Undefined when the model is priced.
 */
export function unpricedNote(model: string, prices: ModelPrices | undefined, where: string): string | undefined {
  if (priceOf(model, prices)) return undefined;
  const rate = conservativePrice(prices);
  return (
    `no price is known for the model "${model}": unless its server reports each call's cost (OpenRouter does), ` +
    `cost is estimated at the highest rates known ($${rate.input} input, $${rate.output} output per million tokens), so cost caps trip early rather than never. ` +
    `Give its real price in ${where}, e.g. {"${model}": {"input": 0.5, "output": 1.5}} (0 for a local model).`
  );
}

/**
 * Reads the person's prices from a setting or an environment variable: an object from model id
 * or glob to `{input, output, cacheRead?, cacheWrite?}` (USD per million tokens, ≥ 0; the cache
 * prices default to the input price). Entries that are not valid are left out and named in
 * `problems`, so a typo makes a model estimated, never free.
 */
export function parseModelPrices(raw: unknown): { prices: ModelPrices; problems: string[] } {
  const prices: Record<string, ModelPrice> = {};
  const problems: string[] = [];
  if (raw === undefined || raw === null) return { prices, problems };
  if (typeof raw !== 'object' || Array.isArray(raw)) return { prices, problems: ['prices must be an object from model id (or glob) to {input, output}'] };
  const rate = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const entry = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
    const input = rate(entry.input);
    const output = rate(entry.output);
    const cacheRead = entry.cacheRead === undefined ? input : rate(entry.cacheRead);
    const cacheWrite = entry.cacheWrite === undefined ? input : rate(entry.cacheWrite);
    if (!key.trim() || input === undefined || output === undefined || cacheRead === undefined || cacheWrite === undefined) {
      problems.push(`"${key}": needs input and output (and optional cacheRead, cacheWrite) as numbers ≥ 0, in USD per million tokens`);
      continue;
    }
    prices[key.trim()] = { input, output, cacheRead, cacheWrite };
  }
  return { prices, problems };
}
