/**
 * Matching for model-chosen patterns (search_text queries and include globs). Both run on the
 * extension host's only thread, so both use RE2 (re2js): matching time is linear in the input
 * whatever the pattern, so `(a+)+$` cannot block the host the way a backtracking RegExp does.
 * Patterns RE2 does not support (lookahead, backreferences) are refused with a message saying
 * so, rather than falling back to a backtracking engine.
 */
import type { RE2JS } from 're2js';
import { re2 } from '../../re2';

/** Longest pattern accepted; longer ones are refused (they are not searches a model needs). */
export const MAX_PATTERN_CHARS = 1000;

/** Tests one line of text. */
export type LineMatcher = (line: string) => boolean;

/** Compiles a search_text query. Throws an Error written for the model when it cannot be used. */
export function compileSearchPattern(query: string, isRegex: boolean): LineMatcher {
  if (query.length > MAX_PATTERN_CHARS) throw new Error(`The search query is ${query.length} characters long; keep it under ${MAX_PATTERN_CHARS}.`);
  if (!isRegex) return (line) => line.includes(query);
  let pattern: RE2JS;
  try {
    pattern = re2().compile(query);
  } catch (error) {
    throw new Error(
      `The regex ${JSON.stringify(query)} cannot be used (${(error as Error).message}). search_text uses RE2 syntax, which has no lookaround or backreferences; simplify the pattern or search for literal text with isRegex false.`,
      { cause: error },
    );
  }
  return (line) => pattern.matcher(line).find();
}

/**
 * Compiles an include glob (`src/**\/*.ts`, `*.{js,ts}`, `docs/?.md`, `[ab].txt`) to a matcher of
 * workspace-relative paths. A glob without `/` matches the file name at any depth, as ripgrep's
 * `-g` does, since that is what a model means by `*.ts`.
 */
export function compileGlob(
  glob: string,
  options: {
    caseInsensitive?: boolean;
    /** False: a glob without `/` matches at the root only (VS Code's RelativePattern). */ baseNameAnyDepth?: boolean;
  } = {},
): (relativePath: string) => boolean {
  if (glob.length > MAX_PATTERN_CHARS) throw new Error(`The include glob is ${glob.length} characters long; keep it under ${MAX_PATTERN_CHARS}.`);
  const clean = glob.replace(/\\/g, '/').replace(/^\.\//, '');
  const anyDepth = options.baseNameAnyDepth !== false && !clean.includes('/');
  let re = '';
  let braces = 0;
  for (let i = 0; i < clean.length; i += 1) {
    const c = clean[i];
    if (c === '*') {
      if (clean[i + 1] === '*') {
        i += 1;
        if (clean[i + 1] === '/') {
          i += 1;
          re += '(?:.*/)?';
        } else {
          re += '.*';
        }
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '{') {
      braces += 1;
      re += '(?:';
    } else if (c === '}' && braces > 0) {
      braces -= 1;
      re += ')';
    } else if (c === ',' && braces > 0) {
      re += '|';
    } else if (c === '[') {
      const end = clean.indexOf(']', i + 2);
      if (end === -1) {
        re += '\\[';
      } else {
        const body = clean.slice(i + 1, end);
        re += `[${body.startsWith('!') ? `^${body.slice(1)}` : body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else {
      re += re2().quote(c);
    }
  }
  if (braces > 0) throw new Error(`The include glob ${glob} has an unclosed {; close it or leave it out.`);
  let compiled: RE2JS;
  try {
    compiled = re2().compile(`^${anyDepth ? '(?:.*/)?' : ''}${re}$`, options.caseInsensitive ? re2().CASE_INSENSITIVE : 0);
  } catch (error) {
    throw new Error(`The include glob ${glob} is not valid (${(error as Error).message}); use a glob such as src/**/*.ts.`, { cause: error });
  }
  return (relativePath) => compiled.matcher(relativePath).matches();
}
