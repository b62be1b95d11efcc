import type * as Re2js from 're2js';

let re2js: typeof Re2js | undefined;

/**
 * re2js (linear-time regular expressions, for patterns a model, a search or a chore supplies),
 * loaded on first use. It is a seventh of the extension host's bundle and a window that never
 * searches or checks a chore never needs it, so esbuild.js turns this `require` into one of
 * `dist/lazy/re2js.js` (LAZY_REQUIRE); synchronous, because compiling a pattern is (the chores.yaml
 * validator runs inside a zod refinement).
 */
export function re2(): typeof Re2js.RE2JS {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  re2js ??= require('re2js') as typeof Re2js;
  return re2js.RE2JS;
}
