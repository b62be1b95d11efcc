/**
 * search_text over one root: ripgrep where it runs, else the fallback walk and RE2 in process;
 * both over the same files (the ignore rules) and both saying when they stopped early.
 *
 * The pattern is compiled with RE2 first, in every case: what RE2 refuses (lookaround,
 * backreferences) is refused with RE2's message, and what it accepts goes to ripgrep, whose
 * default engine (Rust's regex) has the same syntax and the same linear-time guarantee. Where the
 * two still differ, RE2's answer is kept: a pattern ripgrep cannot parse (RE2's `\C`, a `\pN` it
 * spells differently) is searched in process instead. Ripgrep's Unicode classes are wider (`\d`
 * also matches non-ASCII digits); a search that finds a little more is harmless, so that is left.
 *
 * Unsaved editor text: ripgrep reads the disk, so its lines from a file open with unsaved changes
 * are dropped and that file is searched in its editor text here, if the ignore rules keep it.
 */
import type { SearchHit, SearchOptions, SearchResult, StopReason, WorkspaceReader } from '../../ports';
import { readBounded } from '../../ports';
import { compileSearchPattern } from '../changes/textMatch';
import { globFilter } from './globFilter';
import type { LineMatcher } from '../changes/textMatch';
import { RipgrepError, ripgrepSearch } from './ripgrep';
import type { RipgrepRun } from './ripgrep';

/** A hit's line is cut to this many characters. */
export const MAX_HIT_CHARS = 300;
/** Most context lines asked for around a match. */
export const MAX_CONTEXT_LINES = 5;
/** Larger files are not searched in process (read them with read_file and a line range). */
const MAX_FILE_BYTES = 1_000_000;
/**
 * Larger files are not searched by ripgrep, which reads a file in a streaming pass and cuts long
 * lines (`--max-columns`), so a bundled 9 MB `typescript.js` costs it little and is worth finding.
 */
const MAX_RIPGREP_FILE_BYTES = 64 * 1024 * 1024;
/** Most files the in-process search reads before it stops and says so. */
const MAX_FILES_READ = 100_000;

/** What one search runs with. */
export interface SearchEnv {
  /** The ripgrep program, or undefined where none runs. */
  program?: string;
  root: string;
  /** The text of each file (unsaved editor text first). */
  text: WorkspaceReader;
  excludes: readonly string[];
  timeoutMs: number;
  caseInsensitive: boolean;
  /** The fallback walk: every file the ignore rules keep. */
  walk: () => AsyncGenerator<string>;
  /** Whether the ignore rules keep `path` (for unsaved documents ripgrep did not read). */
  kept: (path: string) => Promise<boolean>;
}

/** Matches collected per file, at most `limit` of them, context lines beside. */
class Collected {
  private readonly byFile = new Map<string, SearchHit[]>();
  private matches = 0;
  full = false;

  constructor(private readonly limit: number) {}

  /** Adds one line; false once a match beyond the limit arrived (the search should stop). */
  add(hit: SearchHit): boolean {
    if (!hit.context) {
      if (this.matches >= this.limit) {
        this.full = true;
        return false;
      }
      this.matches += 1;
    }
    const text = hit.text.length > MAX_HIT_CHARS ? hit.text.slice(0, MAX_HIT_CHARS) : hit.text;
    const list = this.byFile.get(hit.path) ?? [];
    if (!list.length) this.byFile.set(hit.path, list);
    if (!list.some((h) => h.line === hit.line)) list.push({ path: hit.path, line: hit.line, text, ...(hit.context ? { context: true } : {}) });
    return true;
  }

  /** Searches one text in process, line by line. False when the limit stopped it. */
  addText(path: string, text: string, matches: LineMatcher, context: number): boolean {
    const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop(); // the final newline ends a line, it starts none
    let shownTo = -1;
    for (let i = 0; i < lines.length; i += 1) {
      if (!matches(lines[i])) continue;
      for (let j = Math.max(shownTo + 1, i - context); j < i; j += 1) this.add({ path, line: j + 1, text: lines[j], context: true });
      if (!this.add({ path, line: i + 1, text: lines[i] })) return false;
      const end = Math.min(lines.length - 1, i + context);
      for (let j = i + 1; j <= end; j += 1) if (!matches(lines[j])) this.add({ path, line: j + 1, text: lines[j], context: true });
      shownTo = end;
    }
    return true;
  }

  result(run: RipgrepRun): SearchResult {
    const hits = [...this.byFile.keys()].sort().flatMap((path) => (this.byFile.get(path) ?? []).sort((a, b) => a.line - b.line));
    if (this.full) return { hits, complete: false, stoppedBy: 'limit' };
    return { hits, complete: run.complete, ...(run.stoppedBy ? { stoppedBy: run.stoppedBy } : {}) };
  }
}

/** Searches the root for `query` (see the file comment). Throws an error written for the model for a bad pattern. */
export async function searchWorkspace(query: string, options: SearchOptions, env: SearchEnv): Promise<SearchResult> {
  const isRegex = options.isRegex ?? false;
  const matches = compileSearchPattern(query, isRegex);
  // The include glob is matched here, not by ripgrep's `-g`, which would override the ignore files;
  // verdicts are kept per file, since ripgrep prints each file's lines together.
  const includeMatch = options.include ? globFilter(options.include, { caseInsensitive: env.caseInsensitive }) : undefined;
  const verdicts = new Map<string, boolean>();
  const included = (path: string): boolean => {
    if (!includeMatch) return true;
    let verdict = verdicts.get(path);
    if (verdict === undefined) verdicts.set(path, (verdict = includeMatch(path)));
    return verdict;
  };
  const context = Math.max(0, Math.min(MAX_CONTEXT_LINES, Math.floor(options.context ?? 0)));
  const found = new Collected(options.limit ?? 100);
  const unsaved = new Set(env.text.unsavedPaths?.() ?? []);
  let run: RipgrepRun | undefined;
  if (env.program) {
    try {
      const walk = { cwd: env.root, excludes: env.excludes, timeoutMs: env.timeoutMs };
      const rgQuery = {
        pattern: query,
        isRegex,
        context,
        maxFileBytes: MAX_RIPGREP_FILE_BYTES,
        maxColumns: MAX_HIT_CHARS,
      };
      run = await ripgrepSearch(env.program, rgQuery, walk, (line) => (unsaved.has(line.path) || !included(line.path) ? true : found.add(line)));
    } catch (error) {
      if (!(error instanceof RipgrepError)) throw error;
      // ripgrep could not take the pattern or the glob (RE2 could): search in process.
    }
  }
  if (run) {
    for (const path of [...unsaved].sort()) {
      if (found.full) break;
      if (!included(path) || !(await env.kept(path))) continue;
      const read = await readBounded(env.text, path, MAX_FILE_BYTES).catch(() => null);
      if (read && !read.truncated && !read.text.includes('\0')) found.addText(path, read.text, matches, context);
    }
    return found.result(run);
  }
  return found.result(await searchInProcess(env, included, matches, context, found));
}

/** The fallback: every walked file read through the reader (unsaved text included) and matched with RE2. */
async function searchInProcess(env: SearchEnv, included: (p: string) => boolean, matches: LineMatcher, context: number, found: Collected): Promise<RipgrepRun> {
  const deadline = Date.now() + env.timeoutMs;
  const unsaved = new Set(env.text.unsavedPaths?.() ?? []);
  let files = 0;
  const stop = (why: StopReason): RipgrepRun => ({ complete: false, stoppedBy: why });
  for await (const path of env.walk()) {
    if (!included(path)) continue;
    if (++files > MAX_FILES_READ) return stop('files');
    if (Date.now() > deadline) return stop('time');
    let read;
    try {
      read = await readBounded(env.text, path, MAX_FILE_BYTES);
    } catch {
      continue;
    }
    // Too large or binary: skipped, as ripgrep skips them.
    if (!read || read.truncated || read.text.includes('\0')) continue;
    if (!found.addText(path, read.text, matches, context)) return { complete: false, stoppedBy: 'limit' };
    unsaved.delete(path);
  }
  // A file only the reader has (the command line's overlay creates files the disk has not): searched too, where the rules keep it.
  for (const path of [...unsaved].sort()) {
    if (!included(path) || !(await env.kept(path))) continue;
    const read = await readBounded(env.text, path, MAX_FILE_BYTES).catch(() => null);
    if (read && !read.truncated && !read.text.includes('\0') && !found.addText(path, read.text, matches, context))
      return { complete: false, stoppedBy: 'limit' };
  }
  return { complete: true };
}
