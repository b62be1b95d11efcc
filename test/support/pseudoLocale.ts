/** A pseudo-locale: every letter accented and the text bracketed, placeholders and links kept working. */
export function pseudo(text: string): string {
  const accents: Record<string, string> = { a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ú', A: 'Á', E: 'É', I: 'Í', O: 'Ó', U: 'Ú', n: 'ñ', c: 'ç' };
  // Leave `code`, (command:…) link targets, #setting# links, $(icon)s and {0} placeholders as they are.
  const parts = text.split(/(`[^`]*`|\]\([^)]*\)|#[\w.]+#|\{\d+\}|\$\([\w-]+\))/);
  return `⟦${parts.map((part, i) => (i % 2 ? part : part.replace(/[aeiouAEIOUnc]/g, (ch) => accents[ch]!))).join('')}⟧`;
}

/**
 * What is left of `text` once every pseudo-translated message (⟦…⟧, nested or not) is taken out:
 * Tasklane's words that were never translated, and the values placed into none.
 */
export function untranslated(text: string): string {
  let rest = text;
  for (let before = ''; before !== rest;) {
    before = rest;
    rest = rest.replace(/⟦[^⟦⟧]*⟧/g, ' ');
  }
  return rest;
}

/**
 * The English of Tasklane's own that `text`, shown under the pseudo-locale, still has: words outside
 * every translated message, and words inside one that kept a plain vowel (pseudo() accents every
 * vowel, so such a word is a value built in English and put into a translated message, like a cost's
 * "estimated" in "⟦çóst {0}⟧"). What pseudo() leaves as it is (code, link targets, setting links,
 * icons) is not looked at; a test's own values are written without letters.
 */
export function englishLeft(text: string): string[] {
  const outside = untranslated(text).match(/[A-Za-z]{2,}/g) ?? [];
  const inside = text.replace(/`[^`]*`|\]\([^)]*\)|#[\w.]+#|\$\([\w~-]+\)/g, ' ').match(/[A-Za-z]*[aeiouAEIOU][A-Za-z]*/g) ?? [];
  return [...new Set([...outside, ...inside.filter((word) => word.length >= 2)])];
}
