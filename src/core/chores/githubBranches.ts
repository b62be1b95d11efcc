/**
 * Branch filters as GitHub Actions matches them (`on.<event>.branches`, "Filter pattern cheat
 * sheet"): the CLI re-checks the event against the chore's `branches:` and must agree with the
 * `on:` block it generated, or a fire GitHub starts is skipped (ci-2026-12c s8: `release/**` was
 * compared as a string).
 *
 *  - `*` any characters but `/`; `**` any characters; `?` zero or one of the preceding character;
 *    `+` one or more of the preceding character; `[...]` one character of a set or range;
 *    `\` escapes the next character;
 *  - a pattern starting with `!` excludes; patterns apply in order, so a later match wins
 *    (`['release/**', '!release/**-alpha']`).
 */

/** A pattern's regular expression (anchored). */
function patternRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) out += escape(pattern[++i]!);
    else if (c === '*' && pattern[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '?';
    else if (c === '+') out += '+';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) out += '\\[';
      else {
        out += `[${pattern.slice(i + 1, end).replace(/[\\\]^]/g, '\\$&')}]`;
        i = end;
      }
    } else out += escape(c);
  }
  return new RegExp(`^${out}$`);
}

const escape = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Whether `branch` passes `patterns` as GitHub filters branches (no patterns: every branch). */
export function branchMatches(patterns: readonly string[] | undefined, branch: string): boolean {
  if (!patterns || patterns.length === 0) return true;
  let matched = false;
  for (const pattern of patterns) {
    const negative = pattern.startsWith('!');
    if (patternRegExp(negative ? pattern.slice(1) : pattern).test(branch)) matched = !negative;
  }
  return matched;
}
