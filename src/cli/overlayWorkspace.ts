/**
 * The workspace as the headless runner sees it: the folder on disk, with every approved edit kept
 * in memory on top of it. Nothing is ever written to the working tree; the edits leave as one
 * patch (see patch.ts). The same object is the read port of the agent, the edit flow's view of
 * current text, and the applier of approved change sets, so a later read sees an earlier edit.
 *
 * Listing, search and find are the read actions' own (FsWorkspace: ripgrep where one runs, the
 * ignore files and `node_modules` left out, no link followed, a note when a bound stopped it),
 * with the overlay as the text they read: a file the run changed is searched in its overlay text
 * (the unsaved-text path VS Code's open documents take), a created one is listed where the ignore
 * rules keep it, a deleted one is gone.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { FileChange } from '../core/approval/changes/changeSet';
import type { EditApplier } from '../core/approval/changes/editPorts';
import { FsWorkspace } from '../core/approval/paths/fsWorkspace';
import { globFilter } from '../core/approval/paths/globFilter';
import { nodeFs } from '../core/approval/paths/nodeFs';
import type { FileListing, FoundFiles, SearchOptions, SearchResult, WorkspacePort, WorkspaceReader } from '../core/ports';
import { toListing } from '../core/ports';

const DEFAULT_LIST_LIMIT = 500;

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

  /** The disk's listing and search, reading every file's text through this overlay. */
  private readonly disk: FsWorkspace;

  /** `options.ripgrep`: the program (undefined: `rg` on the PATH; null: none, the fallback walk). */
  constructor(
    readonly root: string,
    options: { ripgrep?: string | null } = {},
  ) {
    this.disk = new FsWorkspace(root, nodeFs, { text: this, caseInsensitive: process.platform !== 'linux', ...options });
  }

  /** WorkspaceReader: the files whose text is not the disk's (searched through `read`, not ripgrep). */
  unsavedPaths(): string[] {
    return [...this.overlay.keys()];
  }

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

  async listFiles(relativeDir: string, options: { recursive?: boolean; limit?: number } = {}): Promise<FileListing> {
    const limit = options.limit ?? DEFAULT_LIST_LIMIT;
    const base = normalise(relativeDir);
    const recursive = options.recursive ?? false;
    // One more than the limit from the disk, so a listing the overlay shortens is still full.
    const listed = await this.disk
      .listFiles(base, { recursive, limit: limit + this.overlay.size })
      .then((answer) => toListing(answer, limit + this.overlay.size))
      .catch((error: NodeJS.ErrnoException) => {
        // A folder only the run's edits created is not on disk.
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return { paths: [], complete: true } as FileListing;
        throw error;
      });
    const found = new Set(listed.paths);
    for (const [file, text] of this.overlay) {
      if (!isInside(file, base)) continue;
      if (text === null) {
        found.delete(file);
        continue;
      }
      const rest = base ? file.slice(base.length + 1) : file;
      if (recursive && !(await this.disk.kept(file))) continue;
      found.add(recursive || !rest.includes('/') ? file : `${base ? `${base}/` : ''}${rest.split('/')[0]}/`);
    }
    const paths = [...found].sort();
    if (paths.length > limit) return { paths: paths.slice(0, limit), complete: false, stoppedBy: 'limit' };
    return { paths, complete: listed.complete, ...(listed.stoppedBy ? { stoppedBy: listed.stoppedBy } : {}) };
  }

  async searchText(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    return this.disk.searchText(query, options);
  }

  async findFiles(glob: string, options: { limit?: number } = {}): Promise<FoundFiles> {
    const limit = options.limit ?? 100;
    const matches = globFilter(glob, { caseInsensitive: process.platform !== 'linux' });
    const walked = await this.disk.files('');
    const found = new Set(walked.paths);
    for (const [file, text] of this.overlay) {
      if (text === null) found.delete(file);
      else if (await this.disk.kept(file)) found.add(file);
    }
    const paths = [...found].filter(matches).sort();
    if (paths.length > limit) return { paths: paths.slice(0, limit), complete: false, stoppedBy: 'limit' };
    return { paths, complete: walked.complete, ...(walked.stoppedBy ? { stoppedBy: walked.stoppedBy } : {}) };
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

  /** A parked run's edits put back as they were (parkedStore.ts), before its task continues. */
  seed(edits: Readonly<Record<string, string | null>>): void {
    for (const [file, text] of Object.entries(edits)) this.overlay.set(normalise(file), text);
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
