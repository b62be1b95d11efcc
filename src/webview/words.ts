/**
 * The sidebar's words. The webview holds no English of its own: the host translates the catalog
 * (src/shared/webviewWords.ts) with vscode.l10n and puts it in the page as a JSON island, which the
 * page reads before it draws anything. Only the unit tier, which has no host, gives the English
 * catalog itself (test/unit/support/englishWords.ts).
 */
import type { WebviewWordKey, WebviewWords } from '../shared/webviewWords';
import { WORDS_ISLAND_ID } from '../shared/viewConstants';

let current: Partial<WebviewWords> = {};

/** Uses `words` from now on (each draw reads them; nothing drawn before is redrawn). */
export function useWords(words: Partial<WebviewWords>): void {
  current = words;
}

/** The words the host put in `root`'s page; none when it has no island (a page not made by the host). */
export function readWords(root: Document): Partial<WebviewWords> {
  const island = root.getElementById(WORDS_ISLAND_ID);
  if (!island?.textContent) return {};
  try {
    return JSON.parse(island.textContent) as Partial<WebviewWords>;
  } catch {
    return {};
  }
}

/**
 * The words of `key` with each `{n}` filled by `args[n]`. A key the page has no words for shows as
 * the key itself: plainly a mistake, where a silent English fallback would hide one from a translator.
 */
export function word(key: WebviewWordKey, ...args: Array<string | number>): string {
  const text = current[key] ?? key;
  return args.length ? text.replace(/\{(\d+)\}/g, (mark, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : mark)) : text;
}

/**
 * The words of `key` as parts, each `{n}` replaced by `args[n]` as it is (a `{ code }` literal stays
 * a part of its own, drawn as code): the translation decides where the value goes in the sentence.
 */
export function wordParts<T>(key: WebviewWordKey, ...args: T[]): Array<string | T> {
  return (current[key] ?? key)
    .split(/(\{\d+\})/)
    .map((part) => {
      const at = /^\{(\d+)\}$/.exec(part);
      return at && Number(at[1]) < args.length ? args[Number(at[1])]! : part;
    })
    .reduce<Array<string | T>>((parts, part) => {
      // A value that is text joins the words around it: one text part between two literals.
      const last = parts.length - 1;
      if (typeof part === 'string' && typeof parts[last] === 'string') parts[last] += part;
      else if (part !== '') parts.push(part);
      return parts;
    }, []);
}
