/**
 * The read actions' workspace on a local disk (WorkspaceFsPort): listing, search and bounded
 * reads. Listing and search go through ripgrep where one can run (ripgrep.ts: the ignore files,
 * no links followed, parallel), else through the same rules walked here (ignoreWalk.ts). VS Code's
 * own file search follows links by default (`search.followSymlinks`), so a repository shipping
 * `docs/assets -> ../../..` would let a search walk the user's home; neither walk here follows
 * one, and guardReads drops every result that resolves outside the workspace on top of that.
 * Model-chosen patterns are RE2 (textMatch.ts): checked with RE2 first, then handed to ripgrep,
 * whose default engine has RE2's syntax and linear time (searchTextFs.ts says where they differ).
 */
import * as nodePath from 'node:path';
import { readBounded } from '../../ports';
import type { FileListing, FoundFiles, SearchOptions, SearchResult, StopReason, WorkspacePort, WorkspaceReader } from '../../ports';
import type { BoundedText, WorkspaceFsPort } from './fsPort';
import { globFilter } from './globFilter';
import { ignoreWalk, isKept } from './ignoreWalk';
import type { IgnoreWalkOptions } from './ignoreWalk';
import { findRipgrepOnPath, ripgrepFiles } from './ripgrep';
import { searchWorkspace } from './searchTextFs';

/**
 * What is left out besides the ignore files when no setting says otherwise (headless): installed
 * packages, as VS Code's default search.exclude does. Build outputs (dist, out, target) are left
 * to the repository's .gitignore, which names them where they are generated.
 */
export const DEFAULT_EXCLUDES: readonly string[] = ['**/node_modules'];
/** Most files the fallback walk (no ripgrep) looks at before it stops and says so. */
export const MAX_WALK_FILES = 200_000;
/** A listing or a search stops after this long and says so. */
export const WALK_TIMEOUT_MS = 20_000;
/** Longest file read_file / readFile loads; a larger one is read up to this bound. */
export const MAX_READ_BYTES = 4 * 1024 * 1024;

/** How FsWorkspace lists and reads. */
export interface FsWorkspaceOptions {
  caseInsensitive?: boolean;
  /** The text of each file (unsaved editor text in VS Code); default the saved files. */
  text?: WorkspaceReader;
  /**
   * The ripgrep program. Undefined: the first `rg` on the PATH, looked up once; null: none, the
   * fallback walk (ignoreWalk.ts).
   */
  ripgrep?: string | null;
  /** Globs left out besides the ignore files, read at each call (settings change). Default DEFAULT_EXCLUDES. */
  excludes?: () => readonly string[];
  /** Time bound of one listing or search (default WALK_TIMEOUT_MS). */
  timeoutMs?: number;
}

/** Every file one walk saw, or as many as it saw before a bound stopped it. */
export interface WalkedFiles {
  paths: string[];
  complete: boolean;
  stoppedBy?: StopReason;
}

/** The saved files of one root on a local disk, as a WorkspaceReader (no editor: what a headless run reads). */
export class DiskReader implements WorkspaceReader {
  constructor(
    private readonly root: string,
    private readonly fs: WorkspaceFsPort,
  ) {}

  async read(relativePath: string): Promise<string | null> {
    return (await this.readBounded(relativePath, Number.MAX_SAFE_INTEGER))?.text ?? null;
  }

  async readBounded(relativePath: string, maxBytes: number): Promise<BoundedText | null> {
    try {
      return await this.fs.readText(nodePath.join(this.root, ...relativePath.split('/')), maxBytes);
    } catch (error) {
      if (MISSING.has((error as { code?: string }).code ?? '')) return null;
      throw error;
    }
  }
}

const MISSING = new Set(['ENOENT', 'ENOTDIR']);

/**
 * Reads inside one root on a local disk. Paths are workspace-relative, `/` separators. Listing
 * and the walk are the disk's; every file's TEXT (readFile, readText, each file search looks in)
 * comes from `options.text`, the one WorkspaceReader (src/core/ports.ts): in VS Code the
 * editor's text with unsaved changes, so read_file and search_text see what edits are matched
 * against. Without one, the saved files (DiskReader).
 */
export class FsWorkspace implements WorkspacePort {
  private readonly text: WorkspaceReader;
  private ripgrep: Promise<string | undefined> | undefined;

  constructor(
    private readonly root: string,
    private readonly fs: WorkspaceFsPort,
    private readonly options: FsWorkspaceOptions = {},
  ) {
    this.text = options.text ?? new DiskReader(root, fs);
  }

  private abs(relativePath: string): string {
    return nodePath.join(this.root, ...relativePath.split('/'));
  }

  /** The ripgrep program, or undefined where none can run. */
  private program(): Promise<string | undefined> {
    if (this.options.ripgrep !== undefined) return Promise.resolve(this.options.ripgrep ?? undefined);
    this.ripgrep ??= findRipgrepOnPath();
    return this.ripgrep;
  }

  private excludes(): readonly string[] {
    return this.options.excludes?.() ?? DEFAULT_EXCLUDES;
  }

  async readFile(relativePath: string): Promise<string> {
    const read = await this.readText(relativePath, MAX_READ_BYTES);
    if (read.truncated) throw new Error(`${relativePath} is ${read.size} bytes, more than the ${MAX_READ_BYTES} that can be read at once`);
    return read.text;
  }

  async readText(relativePath: string, maxBytes: number): Promise<BoundedText> {
    const read = await readBounded(this.text, relativePath, Math.min(maxBytes, MAX_READ_BYTES));
    if (!read) throw new Error(`${relativePath} does not exist`);
    return read;
  }

  async readLines(relativePath: string, startLine: number, endLine: number): Promise<string[]> {
    // The disk is streamed only when the reader says which files differ from it (an open document
    // with unsaved changes is read as the editor has it, already in memory) or when it is the disk.
    const unsaved = this.text.unsavedPaths?.();
    const disk = this.fs.readLines && (this.text instanceof DiskReader || (unsaved !== undefined && !unsaved.includes(relativePath)));
    if (!disk || !this.fs.readLines) return (await this.readText(relativePath, MAX_READ_BYTES)).text.split('\n').slice(startLine - 1, endLine);
    if (!(await this.fs.stat(this.abs(relativePath)))) throw new Error(`${relativePath} does not exist`);
    return this.fs.readLines(this.abs(relativePath), startLine, endLine);
  }

  async listFiles(relativeDir: string, options: { recursive?: boolean; limit?: number } = {}): Promise<FileListing> {
    const limit = options.limit ?? 500;
    const base = clean(relativeDir);
    if (options.recursive) {
      const walked = await this.files(base);
      const paths = walked.paths.sort();
      if (paths.length > limit)
        return { paths: paths.slice(0, limit), complete: false, stoppedBy: 'limit', ...(walked.complete ? { total: paths.length } : {}) };
      return {
        paths,
        complete: walked.complete,
        ...(walked.stoppedBy ? { stoppedBy: walked.stoppedBy } : {}),
        ...(walked.complete ? { total: paths.length } : {}),
      };
    }
    const entries = await this.fs.readdir(this.abs(base || '.'));
    const out: string[] = [];
    for (const entry of entries) {
      const path = base ? `${base}/${entry.name}` : entry.name;
      // A link is shown as what it points to; guardReads drops those that point outside.
      const kind = entry.kind === 'symlink' ? (await this.fs.stat(this.abs(path)).catch(() => undefined))?.kind : entry.kind;
      out.push(kind === 'directory' ? `${path}/` : path);
    }
    const sorted = out.sort();
    return sorted.length > limit
      ? { paths: sorted.slice(0, limit), complete: false, stoppedBy: 'limit', total: sorted.length }
      : { paths: sorted, complete: true, total: sorted.length };
  }

  async searchText(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    return searchWorkspace(query, options, {
      program: await this.program(),
      root: this.root,
      text: this.text,
      excludes: this.excludes(),
      timeoutMs: this.options.timeoutMs ?? WALK_TIMEOUT_MS,
      caseInsensitive: this.options.caseInsensitive ?? false,
      walk: () => this.walk(''),
      kept: (path) => this.kept(path),
    });
  }

  async findFiles(glob: string, options: { limit?: number } = {}): Promise<FoundFiles> {
    const matches = globFilter(glob, this.options);
    const limit = options.limit ?? 100;
    const walked = await this.files('');
    const paths = walked.paths.filter(matches).sort();
    if (paths.length > limit) return { paths: paths.slice(0, limit), complete: false, stoppedBy: 'limit' };
    return { paths, complete: walked.complete, ...(walked.stoppedBy ? { stoppedBy: walked.stoppedBy } : {}) };
  }

  /** Every file below `start` the ignore rules keep, through ripgrep or the fallback walk. */
  async files(start: string): Promise<WalkedFiles> {
    const program = await this.program();
    const paths: string[] = [];
    if (program) {
      const run = await ripgrepFiles(
        program,
        start,
        { cwd: this.root, excludes: this.excludes(), timeoutMs: this.options.timeoutMs ?? WALK_TIMEOUT_MS },
        (path) => {
          paths.push(path);
          return true;
        },
      );
      return { paths, ...run };
    }
    const deadline = Date.now() + (this.options.timeoutMs ?? WALK_TIMEOUT_MS);
    for await (const path of this.walk(start)) {
      if (paths.length >= MAX_WALK_FILES) return { paths, complete: false, stoppedBy: 'files' };
      if (Date.now() > deadline) return { paths, complete: false, stoppedBy: 'time' };
      paths.push(path);
    }
    return { paths, complete: true };
  }

  /** Whether the ignore rules keep `path` (a file not on disk yet, as an overlay of edits has). */
  kept(path: string): Promise<boolean> {
    return isKept(path, this.walkOptions());
  }

  /** The fallback walk: what ripgrep would list, without ripgrep. */
  private walk(start: string): AsyncGenerator<string> {
    return ignoreWalk(start, this.walkOptions());
  }

  private walkOptions(): IgnoreWalkOptions {
    return { root: this.root, fs: this.fs, excludes: this.excludes(), caseInsensitive: this.options.caseInsensitive };
  }
}

function clean(relativeDir: string): string {
  return relativeDir
    .replace(/\\/g, '/')
    .replace(/^(\.\/?)+/, '')
    .replace(/\/+$/, '');
}
