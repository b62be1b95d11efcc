/**
 * A cost as every view writes it. A cost that is the conservative estimate for a model with no
 * known price (src/core/model/pricing.ts) reads "≈$0.123 estimated", so no view shows a plain
 * dollar figure, let alone "$0.000", for a cost nobody knows.
 */
export function costText(usd: number, estimated: boolean | undefined, digits = 3): string {
  return estimated ? `≈$${usd.toFixed(digits)} estimated` : `$${usd.toFixed(digits)}`;
}
