/**
 * The core's ports: small interfaces for everything outside the engine. src/host implements them
 * with the VS Code API; test/fakes implements them in memory; a headless runner could implement
 * them with plain Node.
 */

/** Log tags of docs/DESIGN.md §9; a workflow line names its pipeline step ([WORKFLOW: select]). */
export type LogTag = 'TRIGGER' | 'REACT' | `WORKFLOW: ${WorkflowStep}` | 'ACTION' | 'CHAT' | 'TASK' | 'CHORE' | 'STORE' | 'MODEL' | 'HOST';

/** The steps of the turn pipeline (docs/DESIGN.md §2). */
export type WorkflowStep = 'select' | 'prepare' | 'repair' | 'execute' | 'finalize';

/** One logger for the whole extension; the host writes to the "Tasklane" LogOutputChannel. */
export interface Logger {
  trace(tag: LogTag, message: string): void;
  info(tag: LogTag, message: string): void;
  warn(tag: LogTag, message: string): void;
  error(tag: LogTag, message: string, error?: unknown): void;
}

/** Time, injectable so tests can use a fake clock. */
export interface Clock {
  now(): number;
  /**
   * A callback may return the promise of the work it starts (one that never rejects): real timers
   * ignore it, a test clock awaits it before it fires the next timer, so a test knows that work is done.
   */
  setTimeout(callback: () => void | Promise<unknown>, ms: number): { cancel(): void };
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const handle = setTimeout(() => void callback(), ms);
    return { cancel: () => clearTimeout(handle) };
  },
};

export const silentLogger: Logger = { trace() {}, info() {}, warn() {}, error() {} };

/** One search_text hit, or (with `context`) a line around one, shown as an anchor. */
export interface SearchHit {
  path: string;
  line: number;
  text: string;
  /** True for a context line (not itself a match). */
  context?: boolean;
}

/**
 * Why a search or a listing stopped before it had looked at everything: the caller's result
 * limit, the time bound, or the bound on files walked (the fallback walk only). A tool result
 * says so, so a model never reads "no matches" from a search that did not finish.
 */
export type StopReason = 'limit' | 'time' | 'files';

/** What `searchText` found, and whether it looked at every file. */
export interface SearchResult {
  /** Matches (and context lines around them), grouped per file, files in path order. */
  hits: SearchHit[];
  /** True only when every file was searched and every match is in `hits`. */
  complete: boolean;
  stoppedBy?: StopReason;
}

/** What a recursive `listFiles` found. */
export interface FileListing {
  paths: string[];
  /** False when more files exist than `paths` holds. */
  complete: boolean;
  stoppedBy?: StopReason;
  /** How many files the listing saw in all, when it saw them all (`paths` is the first `limit`). */
  total?: number;
}

/**
 * A port's search answer as a SearchResult. A port that answers with a bare array (in-memory
 * fakes, the command line's overlay) says nothing about completeness; it is taken as complete
 * only when it returned fewer hits than the limit.
 */
export function toSearchResult(answer: SearchHit[] | SearchResult, limit: number): SearchResult {
  if (!Array.isArray(answer)) return answer;
  return answer.length < limit ? { hits: answer, complete: true } : { hits: answer, complete: false, stoppedBy: 'limit' };
}

/** A port's listing answer as a FileListing (a bare array: complete when shorter than the limit). */
export function toListing(answer: string[] | FileListing, limit: number): FileListing {
  if (!Array.isArray(answer)) return answer;
  return answer.length < limit ? { paths: answer, complete: true } : { paths: answer, complete: false, stoppedBy: 'limit' };
}

/** A bounded read: never more than the asked number of bytes is loaded. */
export interface BoundedText {
  /** The text of the first bytes, cut back to a whole UTF-8 character. */
  text: string;
  /** True when the file is longer than what was read. */
  truncated: boolean;
  /** The file's whole size in bytes. */
  size: number;
}

/**
 * THE reading of the workspace: the text VS Code shows. An open document with unsaved changes is
 * read with those changes; any other file as saved on disk. There is one meaning on purpose: the
 * read actions (read_file, search_text, AGENTS.md) show the model this text, and the edit
 * proposal and its stale check at approval match `old_text` against this same text, so what the
 * model copies is what it is matched against. (Before, read_file read the disk while edits read
 * the editor: with an unsaved change open, the model's excerpt came from another text.) The host
 * builds ONE reader (`VsCodeWorkspaceReader`) and hands it to both; the read actions reach it
 * through `FsWorkspace`, behind the path guard. Paths are workspace-relative, `/` separators.
 */
export interface WorkspaceReader {
  /**
   * The file's text, or null when it does not exist. Rejects only on a real failure (a folder, no
   * permission). An unsaved document counts with its changes: applying over them would lose them.
   */
  read(relativePath: string): Promise<string | null>;
  /**
   * At most `maxBytes` from the start of the same text (a huge file on disk is never loaded
   * whole), or null when it does not exist. Optional: a reader without it is read whole, then cut.
   */
  readBounded?(relativePath: string, maxBytes: number): Promise<BoundedText | null>;
  /**
   * Workspace-relative paths whose text here differs from the disk (open documents with unsaved
   * changes). A search that reads the disk (ripgrep) searches these through `read` instead.
   * Optional: a reader without it reads the disk only.
   */
  unsavedPaths?(): string[];
}

/** `reader.readBounded`, or its whole text cut to `maxBytes` when it has none. */
export async function readBounded(reader: WorkspaceReader, relativePath: string, maxBytes: number): Promise<BoundedText | null> {
  if (reader.readBounded) return reader.readBounded(relativePath, maxBytes);
  const text = await reader.read(relativePath);
  return text === null ? null : cutText(text, maxBytes);
}

/** `text` cut to at most `maxBytes` of UTF-8, never inside a character. */
export function cutText(text: string, maxBytes: number): BoundedText {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false, size: bytes.length };
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString('utf8'), truncated: true, size: bytes.length };
}

/**
 * Read-only access to the workspace, for the read actions. Paths are workspace-relative. Every
 * text it returns (readFile, readText, searchText) is the WorkspaceReader's text: unsaved editor
 * changes included.
 */
export interface WorkspacePort {
  readFile(relativePath: string): Promise<string>;
  /**
   * Reads at most `maxBytes` from the start of the file (never the whole file when it is larger).
   * Optional: a port without it is read whole, then cut (in-memory fakes).
   */
  readText?(relativePath: string, maxBytes: number): Promise<BoundedText>;
  /**
   * Lines `startLine`..`endLine` (1-based, inclusive) of the file, read up to the last of them
   * only, so a range deep in a file larger than any bounded read is still reachable. Optional:
   * without it, read_file reads a bounded start of the file and slices it.
   */
  readLines?(relativePath: string, startLine: number, endLine: number): Promise<string[]>;
  /** Workspace-relative paths (folders end with '/'), sorted. A recursive listing says whether it is complete (a bare array: see toListing). */
  listFiles(relativeDir: string, options?: { recursive?: boolean; limit?: number }): Promise<string[] | FileListing>;
  /** `limit` counts matches; `context` asks for that many lines around each (a bare array: see toSearchResult). */
  searchText(query: string, options?: SearchOptions): Promise<SearchHit[] | SearchResult>;
  /**
   * Workspace-relative paths of files matching `glob` (a glob without `/` matches names at any
   * depth), in walk order, at most `limit`; `scanned` says how many files were looked at and
   * `complete` whether the walk reached the end (false: narrow the glob).
   */
  findFiles(glob: string, options?: { limit?: number }): Promise<FoundFiles>;
  /**
   * The workspace-relative path `relativePath` names once links are resolved (`.` for the root),
   * whether or not it exists, or rejects with why it may not be read (the guard's reason). For
   * what names a path without reading the file (git's history of a file deleted since). Optional:
   * a port without it (in-memory fakes) has no links, and a lexical check is enough.
   */
  resolvePath?(relativePath: string): Promise<string>;
}

/** What `findFiles` found. */
export interface FoundFiles {
  paths: string[];
  /** False when the limit or the walk's file cap stopped it before the end. */
  complete: boolean;
  stoppedBy?: StopReason;
}

/** search_text's options, as the port takes them. */
export interface SearchOptions {
  isRegex?: boolean;
  include?: string;
  /** Most matches returned. */
  limit?: number;
  /** Lines shown before and after each match (default 0). */
  context?: number;
}
