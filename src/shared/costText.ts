/**
 * A cost as every view writes it. A cost that is the conservative estimate for a model with no
 * known price (src/core/model/pricing.ts) reads "≈$0.123 estimated", so no view shows a plain
 * dollar figure, let alone "$0.000", for a cost nobody knows. A cost known to be zero (a model the
 * person priced at 0: a local model, or the demo `npm start` runs, which it prices at 0) reads
 * "no charge": "$0.000" looks like a rounded-down bill.
 */
export function costText(usd: number, estimated: boolean | undefined, digits = 3): string {
  if (estimated) return `≈$${usd.toFixed(digits)} estimated`;
  return usd === 0 ? NO_CHARGE : `$${usd.toFixed(digits)}`;
}

/** How a cost known to be zero reads. */
export const NO_CHARGE = 'no charge';
