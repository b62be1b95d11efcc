import { ENGLISH } from './translator';
import type { Translator } from './translator';

/** A cost's words in the person's language: `estimated` has `{0}` where the amount goes. */
export interface CostWords {
  estimated: string;
  noCharge: string;
}

/**
 * The cost words through `l10n` (the host's vscode.l10n, or English). The sidebar has the same two
 * messages in its catalog (src/shared/webviewWords.ts `costEstimated`, `costNoCharge`; a test keeps
 * them equal), since the webview gets its words by key.
 */
export function costWords(l10n: Translator): CostWords {
  return { estimated: l10n.t('≈{0} estimated'), noCharge: l10n.t('no charge') };
}

const ENGLISH_COST_WORDS = costWords(ENGLISH);

/**
 * A cost as every view writes it. A cost that is the conservative estimate for a model with no
 * known price (src/core/model/pricing.ts) reads "≈$0.123 estimated", so no view shows a plain
 * dollar figure, let alone "$0.000", for a cost nobody knows. A cost known to be zero (a model the
 * person priced at 0: a local model, or the demo `npm start` runs, which it prices at 0) reads
 * "no charge": "$0.000" looks like a rounded-down bill. `words` default to English: the core's
 * logs and the text it writes for the model and for CI stay English.
 */
export function costText(usd: number, estimated: boolean | undefined, digits = 3, words: CostWords = ENGLISH_COST_WORDS): string {
  const amount = `$${usd.toFixed(digits)}`;
  if (estimated) return words.estimated.replace('{0}', amount);
  return usd === 0 ? words.noCharge : amount;
}
