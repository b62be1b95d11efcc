/**
 * The workspace as the headless runner sees it: the folder on disk, with every approved edit kept
 * in memory on top of it. Nothing is ever written to the working tree; the edits leave as one
 * patch (see patch.ts). The same object is the read port of the agent, the edit flow's view of
 * current text, and the applier of approved change sets, so a later read sees an earlier edit.
 */
import { promises as fsp } from 'node:fs';
import type { Dirent } from 'node:fs';
import * as path from 'node:path';
import { RE2JS } from 're2js';
import type { FileChange } from '../core/approval/changes/changeSet';
import { compileGlob } from '../core/approval/changes/textMatch';
import type { EditApplier } from '../core/approval/changes/editPorts';
import type { WorkspacePort, WorkspaceReader } from '../core/ports';

/** Folders a listing or search never walks into: generated, vendored or the VCS itself. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);
const DEFAULT_LIST_LIMIT = 500;
const DEFAULT_SEARCH_LIMIT = 200;
/** Files one find_files looks at, at most. */
const FIND_SCAN_LIMIT = 50_000;
/** Files larger than this are not searched (minified bundles, data). */
const MAX_SEARCHED_BYTES = 1_000_000;

/** One file the run changed: its text on disk (null: did not exist) and its text now (null: deleted). */
export interface OverlayChange {
  path: string;
  before: string | null;
  after: string | null;
}

export class OverlayWorkspace implements WorkspacePort, WorkspaceReader, EditApplier {
  /** Workspace-relative path → text after the run's edits (null: deleted). */
  private readonly overlay = new Map<string, string | null>();
  /** The disk text of each file `materialize` wrote, from before the run (null: did not exist). */
  private readonly originals = new Map<string, string | null>();
  /** What `materialize` last wrote per file: a command after no new edit writes nothing. */
  private readonly written = new Map<string, string | null>();

  constructor(readonly root: string) {}

  async read(relativePath: string): Promise<string | null> {
    const key = normalise(relativePath);
    if (this.overlay.has(key)) return this.overlay.get(key) ?? null;
    return this.readDisk(key);
  }

  async readFile(relativePath: string): Promise<string> {
    const text = await this.read(relativePath);
    if (text === null) throw new Error(`${relativePath} does not exist in the workspace; list the folder to see what is there.`);
    return text;
  }

  async listFiles(relativeDir: string, options: { recursive?: boolean; limit?: number } = {}): Promise<string[]> {
    const limit = options.limit ?? DEFAULT_LIST_LIMIT;
    const base = normalise(relativeDir);
    const found = new Set<string>();
    await this.walk(base, options.recursive ?? false, found, limit);
    for (const [file, text] of this.overlay) {
      if (!isInside(file, base)) continue;
      if (text === null) {
        found.delete(file);
        continue;
      }
      const rest = base ? file.slice(base.length + 1) : file;
      found.add(options.recursive || !rest.includes('/') ? file : `${base ? `${base}/` : ''}${rest.split('/')[0]}/`);
    }
    return [...found].sort().slice(0, limit);
  }

  async searchText(
    query: string,
    options: { isRegex?: boolean; include?: string; limit?: number } = {},
  ): Promise<Array<{ path: string; line: number; text: string }>> {
    const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
    // RE2: a model-chosen pattern runs in linear time, so no pattern can hang the run.
    const pattern = options.isRegex ? RE2JS.compile(query) : undefined;
    const include = options.include ? globMatcher(options.include) : undefined;
    const hits: Array<{ path: string; line: number; text: string }> = [];
    for (const file of await this.listFiles('', { recursive: true, limit: 20_000 })) {
      if (file.endsWith('/') || (include && !include(file))) continue;
      const text = await this.read(file).catch(() => null);
      if (text === null || text.length > MAX_SEARCHED_BYTES || text.includes('\u0000')) continue;
      const lines = text.split(/\r?\n/);
      for (let i = 0; i < lines.length && hits.length < limit; i++) {
        const line = lines[i] ?? '';
        if (pattern ? pattern.matcher(line).find() : line.includes(query)) hits.push({ path: file, line: i + 1, text: line.slice(0, 300) });
      }
      if (hits.length >= limit) break;
    }
    return hits;
  }

  async findFiles(glob: string, options: { limit?: number } = {}): Promise<{ paths: string[]; complete: boolean }> {
    const limit = options.limit ?? 100;
    const matches = globMatcher(glob);
    const listed = await this.listFiles('', { recursive: true, limit: FIND_SCAN_LIMIT });
    const paths = listed.filter((file) => !file.endsWith('/') && matches(file));
    return { paths: paths.slice(0, limit), complete: paths.length <= limit && listed.length < FIND_SCAN_LIMIT };
  }

  /** EditApplier: approved changes land in the overlay, all of them or none. */
  async apply(changes: readonly FileChange[]): Promise<void> {
    const next = new Map(this.overlay);
    for (const change of changes) {
      const from = normalise(change.path);
      if (change.kind === 'rename' && change.newPath) {
        next.set(from, null);
        next.set(normalise(change.newPath), change.after ?? (await this.read(from)) ?? '');
      } else {
        next.set(from, change.kind === 'delete' ? null : (change.after ?? ''));
      }
    }
    this.overlay.clear();
    for (const [file, text] of next) this.overlay.set(file, text);
  }

  /** What the run changed against the disk, by path; files edited back to their original are left out. */
  async changes(): Promise<OverlayChange[]> {
    const out: OverlayChange[] = [];
    for (const [file, after] of [...this.overlay].sort(([a], [b]) => a.localeCompare(b))) {
      const before = await this.readDisk(file);
      if (before !== after) out.push({ path: file, before, after });
    }
    return out;
  }

  /**
   * Writes the run's edits into the folder, so a declared command (a build, the tests) sees them;
   * `restore` puts every file back as it was. The patch is still computed against the originals.
   * Changes a command itself makes on disk are not part of the patch.
   */
  async materialize(): Promise<void> {
    for (const [file, text] of this.overlay) {
      if (this.written.has(file) && this.written.get(file) === text) continue;
      const target = path.join(this.root, file);
      if (!this.originals.has(file)) this.originals.set(file, await this.readDisk(file));
      this.written.set(file, text);
      if (text === null) await fsp.rm(target, { force: true });
      else {
        await fsp.mkdir(path.dirname(target), { recursive: true });
        await fsp.writeFile(target, text);
      }
    }
  }

  /** Puts back every file `materialize` wrote (the folder ends as the run found it). */
  async restore(): Promise<void> {
    for (const [file, text] of this.originals) {
      const target = path.join(this.root, file);
      if (text === null) await fsp.rm(target, { force: true });
      else await fsp.writeFile(target, text);
    }
    this.originals.clear();
    this.written.clear();
  }

  private async readDisk(relativePath: string): Promise<string | null> {
    const key = normalise(relativePath);
    if (this.originals.has(key)) return this.originals.get(key) ?? null;
    try {
      return await fsp.readFile(path.join(this.root, relativePath), 'utf8');
    } catch (error) {
      if (['ENOENT', 'ENOTDIR', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return null;
      throw error;
    }
  }

  private async walk(dir: string, recursive: boolean, found: Set<string>, limit: number): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await fsp.readdir(path.join(this.root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (found.size >= limit) return;
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      // Links are not followed: a link out of the workspace must not widen what the run can see.
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) {
        if (SKIPPED_DIRS.has(entry.name)) continue;
        if (recursive) await this.walk(rel, true, found, limit);
        else found.add(`${rel}/`);
      } else if (entry.isFile()) {
        found.add(rel);
      }
    }
  }
}

function normalise(relativePath: string): string {
  return relativePath
    .replace(/\\/g, '/')
    .replace(/^\.\/+/, '')
    .replace(/\/+$/, '')
    .replace(/^\.$/, '');
}

function isInside(file: string, dir: string): boolean {
  return dir === '' || file.startsWith(`${dir}/`);
}

/**
 * `*` within a segment, `**` across segments, `?` one character; a pattern without `/` matches the
 * base name. The model chooses it, so it runs on RE2 like the host's include globs (a backtracking
 * RegExp of `**\/` repeated spins for seconds on a deep path and the run's timer never fires).
 */
export function globMatcher(glob: string): (file: string) => boolean {
  return compileGlob(glob);
}
