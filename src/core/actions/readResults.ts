/**
 * How the read actions word what they found, so a result never claims more than the search did:
 * "no matches" only when every file was searched; otherwise what stopped it and how to narrow.
 * Search hits are grouped per file, the way ripgrep prints them (`12: match`, `11- context`), which
 * costs fewer tokens than a path on every line, and the whole result is bounded in characters.
 */
import type { FileListing, FoundFiles, SearchHit, SearchResult, StopReason } from '../ports';

/** Characters one search result may add to the prompt (about 4,000 tokens). */
export const MAX_SEARCH_RESULT_CHARS = 16_000;

const NARROW = 'narrow with include (a glob such as src/**/*.ts) or a more specific query';

/** Why a search stopped, and what to do next, as the model reads it. */
function searchStop(why: StopReason | undefined, limit: number): string {
  if (why === 'limit') return `[stopped at ${limit} matches; more exist: ${NARROW}, or raise limit (at most 500)]`;
  if (why === 'time') return `[the search hit its time bound before every file was searched; files not reached may match: ${NARROW}]`;
  return `[the search stopped at its bound on files read before every file was searched; files not reached may match: ${NARROW}]`;
}

/** search_text's answer for the model. */
export function formatSearch(result: SearchResult, limit: number, include?: string): string {
  const where = include ? ` in files matching ${include}` : '';
  if (!result.hits.length) {
    // The query is not echoed: the model has it, and a result holding it would look like a hit.
    if (result.complete) return `no matches${where} (every file the ignore rules keep was searched)`;
    return `no matches in the files searched so far, but not every file was searched. ${searchStop(result.stoppedBy, limit)}`;
  }
  const out: string[] = [];
  let chars = 0;
  let shown = 0;
  let path = '';
  const matches = result.hits.filter((h) => !h.context).length;
  for (const hit of result.hits) {
    const line = `${hitLine(hit)}`;
    const head = hit.path !== path ? hit.path : undefined;
    const cost = line.length + 1 + (head ? head.length + 1 : 0);
    if (chars + cost > MAX_SEARCH_RESULT_CHARS) {
      out.push(`[output cut after ${shown} of ${matches} matches to stay within about 4,000 tokens: ${NARROW}]`);
      break;
    }
    if (head) {
      out.push(head);
      path = hit.path;
    }
    out.push(line);
    chars += cost;
    if (!hit.context) shown += 1;
  }
  if (!result.complete) out.push(searchStop(result.stoppedBy, limit));
  return out.join('\n');
}

function hitLine(hit: SearchHit): string {
  return `  ${hit.line}${hit.context ? '-' : ':'} ${hit.text}`;
}

/** Why a listing stopped, and what to do next. */
export function listingStop(listing: Pick<FileListing, 'paths' | 'stoppedBy' | 'total'>, narrow: string): string {
  if (listing.stoppedBy === 'limit') {
    const of = listing.total !== undefined ? ` of ${listing.total}` : '';
    return `[showing ${listing.paths.length}${of} files; ${narrow}, or raise limit (at most 1000)]`;
  }
  const bound = listing.stoppedBy === 'time' ? 'its time bound' : 'its bound on files walked';
  return `[the walk stopped at ${bound} before it saw every file; ${narrow}]`;
}

/** find_files's answer for the model. */
export function formatFound(glob: string, found: FoundFiles): string {
  const narrow = 'narrow the glob to a folder (src/**/*.ts)';
  if (!found.paths.length) {
    return found.complete ? `no file matches ${glob}` : `no file matches ${glob} in the files looked at, but not every file was looked at; ${narrow}`;
  }
  return found.complete ? found.paths.join('\n') : `${found.paths.join('\n')}\n${listingStop(found, narrow)}`;
}

/** How many matches a formatted search_text result shows, and whether more exist (for the step row a person sees). */
export function countShownMatches(output: string): { matches: number; more: boolean } {
  let matches = 0;
  for (const line of output.split('\n')) if (/^ {2}\d+: /.test(line)) matches += 1;
  return { matches, more: /^\[(stopped at|output cut|the search)/m.test(output) };
}

/** How many entries a formatted list_files result shows (its header and notices are not entries). */
export function countListed(output: string): number {
  if (output.startsWith('(no files')) return 0;
  return output.split('\n').filter((line, i) => i > 0 && !line.startsWith('[')).length;
}
