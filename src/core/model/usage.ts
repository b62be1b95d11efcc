/**
 * Token arithmetic, in one place. What the words mean, in logs, budgets and views alike:
 *
 * - **input tokens** (`promptTokens`): the whole prompt of a call: uncached input plus what was
 *   read from or written to the provider's prompt cache (`inputTokens + cacheReadTokens +
 *   cacheWriteTokens`). Usage.inputTokens alone is only the uncached part; it is never shown as
 *   "input" on its own.
 * - **output tokens**: `outputTokens`.
 * - **tokens** (`totalTokens`): input tokens plus output tokens, everything sent and received.
 *   The per-task token budget counts this.
 *
 * Log lines write `<input> in / <output> out` or `tokens=<total>` with exactly these.
 */
import type { Usage } from './types';

/** No tokens. */
export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

/** The sum of two usages, field by field. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

/** Input tokens: the whole prompt, cached or not. */
export const promptTokens = (u: Usage): number => u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;

/** Tokens: everything a call (or a sum of calls) sent and received. */
export const totalTokens = (u: Usage): number => promptTokens(u) + u.outputTokens;

/** The log's wording of a usage: `<input> in / <output> out`. */
export const describeTokens = (u: Usage): string => `${promptTokens(u)} in / ${u.outputTokens} out`;
