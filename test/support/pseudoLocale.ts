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
