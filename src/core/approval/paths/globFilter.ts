/**
 * A model's glob over tens of thousands of listed paths. compileGlob (textMatch.ts) matches with
 * RE2 in JavaScript: linear time whatever the glob (a backtracking RegExp is not safe for `*a*a*a*b`),
 * but some microseconds a path, which over 25,000 paths is most of a find_files. So the literal
 * ends of the glob are checked first, and RE2 runs only on paths that can still match.
 *
 * (ripgrep's own `-g` would be faster still, but it overrides the ignore files: `rg --files -g
 * '*.ts'` lists a gitignored `dist/a.ts` too.)
 */
import { compileGlob } from '../changes/textMatch';

const SPECIAL = /[*?[\]{}]/;

/** A matcher of workspace-relative paths for `glob`, the same verdicts as compileGlob's. Throws what compileGlob throws. */
export function globFilter(glob: string, options: { caseInsensitive?: boolean } = {}): (path: string) => boolean {
  const full = compileGlob(glob, options);
  const clean = glob.replace(/\\/g, '/').replace(/^\.\//, '');
  if (clean === '**' || clean === '**/*') return () => true;
  const fold = options.caseInsensitive ? (s: string) => s.toLowerCase() : (s: string) => s;
  // The text after the last wildcard is the end of every match; a glob with `/` is anchored at the
  // root, so the text before its first wildcard starts every match.
  let tail = clean;
  for (let i = clean.length - 1; i >= 0; i -= 1) {
    if (SPECIAL.test(clean[i])) {
      tail = clean.slice(i + 1);
      break;
    }
  }
  const firstSpecial = clean.search(SPECIAL);
  const head = clean.includes('/') && firstSpecial > 0 ? clean.slice(0, firstSpecial) : '';
  const suffix = fold(tail);
  const prefix = fold(head);
  // The forms models use most decide on the literal ends alone: `*.ts` and `**/*.ts` match any path
  // ending so (`*` is any name, the ending has no `/`), `src/**/*.ts` any path between its ends.
  const literal = /^[^*?[\]{}/]*$/;
  if (/^(\*\*\/)?\*/.test(clean) && literal.test(clean.replace(/^(\*\*\/)?\*/, ''))) return (path) => fold(path).endsWith(suffix);
  const between = /^([^*?[\]{}]*\/)\*\*\/\*([^*?[\]{}/]*)$/.exec(clean);
  if (between) return (path) => path.length >= prefix.length + suffix.length && fold(path).startsWith(prefix) && fold(path).endsWith(suffix);
  return (path) => {
    const p = fold(path);
    if (suffix && !p.endsWith(suffix)) return false;
    if (prefix && !p.startsWith(prefix)) return false;
    return full(path);
  };
}
