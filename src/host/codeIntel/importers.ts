/**
 * The files that import a changed JavaScript or TypeScript file, so the problems an edit causes in
 * a caller (`import { f } from './c'` and `f` changed its parameters) are heard too. Found by a text
 * search for import specifiers ending in the file's name, then kept only when the specifier, taken
 * relative to the importing file, names the changed file (with or without its extension, or as its
 * folder's index). Package-style imports (`@app/c`, path aliases) are not resolved: those callers
 * are reported only when the person has them open.
 */
import * as path from 'node:path';
import type { SearchResult } from '../../core/ports';

const SCRIPT = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
/** Search hits looked at, at most. */
const MAX_HITS = 500;

/** `search` is the read actions' search (ignore rules, path guard, RE2). */
export function importersOf(search: (query: string, options: { isRegex: boolean; limit: number; context: number }) => Promise<SearchResult>) {
  return async (paths: readonly string[]): Promise<string[]> => {
    const scripts = paths.filter((p) => SCRIPT.test(p));
    if (!scripts.length) return [];
    const stems = [...new Set(scripts.map((p) => escape(path.posix.basename(p).replace(SCRIPT, ''))))];
    const names = [
      ...stems,
      ...(scripts.some((p) => /\/index\.[a-z]+$/.test(p)) ? scripts.map((p) => escape(path.posix.basename(path.posix.dirname(p)))) : []),
    ];
    const query = `(from|import|require\\()\\s*\\(?\\s*['"][^'"]*\\b(${[...new Set(names)].join('|')})(\\.[a-z]+)?['"]`;
    const found = await search(query, { isRegex: true, limit: MAX_HITS, context: 0 });
    const targets = new Set(scripts.map((p) => p.replace(SCRIPT, '')));
    const out: string[] = [];
    for (const hit of found.hits) {
      if (hit.context || out.includes(hit.path) || paths.includes(hit.path)) continue;
      const specifier = /['"]([^'"]+)['"]/.exec(hit.text.slice(hit.text.search(/from|import|require/)))?.[1];
      if (!specifier?.startsWith('.')) continue;
      const named = path.posix.normalize(path.posix.join(path.posix.dirname(hit.path), specifier)).replace(SCRIPT, '');
      if (targets.has(named) || targets.has(`${named}/index`)) out.push(hit.path);
    }
    return out;
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
