/**
 * The read actions' workspace on a local disk (WorkspaceFsPort): listing, search and bounded
 * reads that never follow a symbolic link to a folder. VS Code's own file search follows links
 * by default (`search.followSymlinks`), so a repository shipping `docs/assets -> ../../..` would
 * let a search walk the user's home; this walk reports links and leaves them, and guardReads
 * drops every result that resolves outside the workspace on top of that. Model-chosen patterns
 * match with RE2 (textMatch.ts), so a pattern cannot block the host.
 */
import * as nodePath from 'node:path';
import { readBounded } from '../../ports';
import type { FoundFiles, SearchHit, WorkspacePort, WorkspaceReader } from '../../ports';
import type { BoundedText, WorkspaceFsPort } from './fsPort';
import { compileGlob, compileSearchPattern } from '../changes/textMatch';

/** Folders neither listed recursively nor searched: generated or installed, large, rarely what a task wants. */
export const EXCLUDED_DIRS: readonly string[] = ['node_modules', '.git', 'dist', 'out'];
/** Most files a search looks at. */
export const MAX_SEARCH_FILES = 5000;
/** Larger files are skipped by search (read them with read_file and a line range). */
/** Files one find_files walks at most (names only, so more than a text search reads). */
export const MAX_FIND_FILES = 50_000;
export const MAX_SEARCH_FILE_BYTES = 1_000_000;
/** Longest file read_file / readFile loads; a larger one is read up to this bound. */
export const MAX_READ_BYTES = 4 * 1024 * 1024;
/** A hit's line is cut to this many characters. */
const MAX_HIT_CHARS = 300;

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

  constructor(
    private readonly root: string,
    private readonly fs: WorkspaceFsPort,
    private readonly options: { caseInsensitive?: boolean; text?: WorkspaceReader } = {},
  ) {
    this.text = options.text ?? new DiskReader(root, fs);
  }

  private abs(relativePath: string): string {
    return nodePath.join(this.root, ...relativePath.split('/'));
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

  async listFiles(relativeDir: string, options: { recursive?: boolean; limit?: number } = {}): Promise<string[]> {
    const limit = options.limit ?? 500;
    const base = clean(relativeDir);
    if (options.recursive) {
      const out: string[] = [];
      for await (const file of this.walk(base)) {
        out.push(file);
        if (out.length >= limit) break;
      }
      return out.sort();
    }
    const entries = await this.fs.readdir(this.abs(base || '.'));
    const out: string[] = [];
    for (const entry of entries) {
      const path = base ? `${base}/${entry.name}` : entry.name;
      // A link is shown as what it points to; guardReads drops those that point outside.
      const kind = entry.kind === 'symlink' ? (await this.fs.stat(this.abs(path)).catch(() => undefined))?.kind : entry.kind;
      out.push(kind === 'directory' ? `${path}/` : path);
    }
    return out.sort().slice(0, limit);
  }

  async searchText(query: string, options: { isRegex?: boolean; include?: string; limit?: number } = {}): Promise<SearchHit[]> {
    const matches = compileSearchPattern(query, options.isRegex ?? false);
    const included = options.include ? compileGlob(options.include, this.options) : () => true;
    const limit = options.limit ?? 100;
    const hits: SearchHit[] = [];
    let files = 0;
    for await (const path of this.walk('')) {
      if (!included(path)) continue;
      files += 1;
      if (files > MAX_SEARCH_FILES) break;
      const stats = await this.fs.stat(this.abs(path)).catch(() => undefined);
      if (!stats || stats.kind !== 'file' || stats.size > MAX_SEARCH_FILE_BYTES) continue;
      let text: string;
      try {
        // The reader's text: an open document's unsaved changes are searched, not the saved file.
        const read = await readBounded(this.text, path, MAX_SEARCH_FILE_BYTES);
        if (!read || read.truncated) continue;
        text = read.text;
      } catch {
        continue;
      }
      if (text.includes('\0')) continue; // binary
      const lines = text.split('\n');
      for (let i = 0; i < lines.length; i += 1) {
        if (!matches(lines[i])) continue;
        hits.push({ path, line: i + 1, text: lines[i].slice(0, MAX_HIT_CHARS) });
        if (hits.length >= limit) return hits;
      }
    }
    return hits;
  }

  async findFiles(glob: string, options: { limit?: number } = {}): Promise<FoundFiles> {
    const matches = compileGlob(glob, this.options);
    const limit = options.limit ?? 100;
    const paths: string[] = [];
    let files = 0;
    for await (const path of this.walk('')) {
      files += 1;
      if (files > MAX_FIND_FILES) return { paths, complete: false };
      if (!matches(path)) continue;
      paths.push(path);
      if (paths.length >= limit) return { paths, complete: false };
    }
    return { paths, complete: true };
  }

  /** Files below `start` (breadth first), never descending into a linked folder or an excluded one. */
  private async *walk(start: string): AsyncGenerator<string> {
    const fold = (s: string) => (this.options.caseInsensitive ? s.toLowerCase() : s);
    const excluded = new Set(EXCLUDED_DIRS.map(fold));
    const queue = [start];
    while (queue.length > 0) {
      const dir = queue.shift() as string;
      let entries: Array<{ name: string; kind: string }>;
      try {
        entries = await this.fs.readdir(this.abs(dir || '.'));
      } catch {
        continue;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        const path = dir ? `${dir}/${entry.name}` : entry.name;
        if (entry.kind === 'directory') {
          if (!excluded.has(fold(entry.name))) queue.push(path);
        } else if (entry.kind === 'file') {
          yield path;
        } else if (entry.kind === 'symlink') {
          // A linked file is yielded (guardReads checks where it lands); a linked folder is neither
          // descended into nor listed.
          const target = await this.fs.stat(this.abs(path)).catch(() => undefined);
          if (target?.kind === 'file') yield path;
        }
      }
    }
  }
}

function clean(relativeDir: string): string {
  return relativeDir
    .replace(/\\/g, '/')
    .replace(/^(\.\/?)+/, '')
    .replace(/\/+$/, '');
}
