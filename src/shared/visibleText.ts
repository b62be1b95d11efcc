/**
 * Text shown in an approval (a command line, a path, a title) with every character that is
 * invisible or reorders text written out as `<U+XXXX>`: bidi controls (U+202A–202E, U+2066–2069,
 * U+200E/200F, U+061C), zero-width and other format characters (U+200B–200D, U+2060, U+FEFF,
 * U+00AD…), control characters, line and paragraph separators and unusual spaces (NBSP, U+3000,
 * Hangul fillers). Otherwise `rm -rf ‮/ tsl‭` or a zero-width space would make the card say
 * something other than what runs. Newlines and tabs stay as they are.
 */
const HIDDEN = /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u115F\u1160\u3164\uFFA0]/gu;

export function showInvisible(text: string): string {
  return text.replace(HIDDEN, (ch) => (ch === '\n' || ch === '\t' ? ch : `<U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`));
}
