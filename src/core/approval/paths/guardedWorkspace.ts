import * as nodePath from 'node:path';
import { toListing, toSearchResult } from '../../ports';
import type { FileListing, FoundFiles, SearchOptions, SearchResult, WorkspacePort } from '../../ports';
import type { WorkspaceFsPort } from './fsPort';
import type { PathGuardOptions } from './pathGuard';
import { resolveWorkspacePath } from './pathGuard';

/** Paths checked at once (the checks wait on the disk, not the CPU). */
const GUARD_BATCH = 256;

/** The guarded workspace: its listings and searches always say whether they are complete. */
export interface GuardedWorkspace extends WorkspacePort {
  resolvePath(relativePath: string): Promise<string>;
  listFiles(relativeDir: string, options?: { recursive?: boolean; limit?: number }): Promise<FileListing>;
  searchText(query: string, options?: SearchOptions): Promise<SearchResult>;
  findFiles(glob: string, options?: { limit?: number }): Promise<FoundFiles>;
}

/**
 * The read actions' workspace, behind the same path guard as edits: reads inside the workspace
 * are automatic, anything that resolves outside it (`..`, absolute paths, symbolic links out at
 * any level) is refused with a message the model can act on. Listing and search results are
 * checked one by one too, so an inner port that follows links (VS Code's file search does by
 * default) cannot hand the model a file outside the workspace, in Restricted Mode or not.
 *
 * Hard links: a regular file with more than one name may be the other name of a file outside
 * the workspace, and nothing can tell which. Reading one is refused (search skips it), except
 * under node_modules, where package managers (pnpm) hard-link every file to their store.
 */
export function guardReads(inner: WorkspacePort, root: string, fs: WorkspaceFsPort, options: PathGuardOptions = {}): GuardedWorkspace {
  const fold = (s: string) => (options.caseInsensitive ? s.toLowerCase() : s);
  /** Why `requested` may not be read, or its physical workspace-relative path. */
  const check = async (requested: string): Promise<{ ok: true; path: string } | { ok: false; reason: string }> => {
    const resolved = await resolveWorkspacePath(root, requested, fs, options);
    if (!resolved.ok) return resolved;
    if (resolved.exists && !resolved.relativePath.split('/').some((s) => fold(s) === 'node_modules')) {
      const stats = await fs.stat(resolved.absolutePath).catch(() => undefined);
      if (stats?.kind === 'file' && stats.links > 1) {
        return {
          ok: false,
          reason: `${requested} is a hard link (${stats.links} names for one file), which may be the other name of a file outside the workspace; it is not read. Ask the user to copy it if it is needed.`,
        };
      }
    }
    return { ok: true, path: resolved.relativePath || '.' };
  };
  const inside = async (requested: string): Promise<string> => {
    const result = await check(requested);
    if (!result.ok) throw new Error(result.reason);
    return result.path;
  };
  const keep = async (path: string): Promise<boolean> => (await check(path.replace(/\/$/, '')).catch(() => ({ ok: false }))).ok;
  /**
   * `paths` that pass the guard, in their order. A listing names thousands of files in a few
   * hundred folders, and the full check costs a file-system call per path segment, so each folder
   * is read once instead: a folder whose every ancestor up to the root is a real folder (no link
   * on the way, as the parent's listing says) holds its entries where their names say, and for an
   * entry its parent lists as a regular file only the hard-link check remains. Anything else (a
   * link, a name the listing does not have, an odd path) takes the full check.
   */
  const keptOnly = async (paths: readonly string[]): Promise<string[]> => {
    const listings = new Map<string, Promise<Map<string, string> | undefined>>();
    const kinds = (dir: string) => {
      let known = listings.get(dir);
      if (!known) {
        known = fs.readdir(nodePath.join(root, ...dir.split('/').filter(Boolean))).then(
          (entries) => new Map(entries.map((e) => [e.name, e.kind])),
          () => undefined,
        );
        listings.set(dir, known);
      }
      return known;
    };
    const folders = new Map<string, Promise<boolean>>();
    const plainFolder = (dir: string): Promise<boolean> => {
      if (!dir) return Promise.resolve(true);
      let known = folders.get(dir);
      if (!known) {
        const cut = dir.lastIndexOf('/');
        const parent = cut < 0 ? '' : dir.slice(0, cut);
        known = plainFolder(parent).then(async (plain) => plain && (await kinds(parent))?.get(dir.slice(cut + 1)) === 'directory');
        folders.set(dir, known);
      }
      return known;
    };
    const entryKept = async (entry: string): Promise<boolean> => {
      const path = entry.replace(/\/$/, '');
      const segments = path.split('/');
      if (!path || /[\\\0:]/.test(path) || segments.some((s) => s === '' || s === '.' || s === '..')) return keep(entry);
      const parent = segments.slice(0, -1).join('/');
      if (!(await plainFolder(parent))) return keep(entry);
      const kind = (await kinds(parent))?.get(segments[segments.length - 1]);
      if (kind === 'directory') return true;
      if (kind !== 'file') return keep(entry);
      if (segments.some((s) => fold(s) === 'node_modules')) return true;
      const stats = await fs.stat(nodePath.join(root, ...segments)).catch(() => undefined);
      return stats?.kind === 'file' && stats.links <= 1;
    };
    const kept: string[] = [];
    for (let i = 0; i < paths.length; i += GUARD_BATCH) {
      const batch = paths.slice(i, i + GUARD_BATCH);
      const verdicts = await Promise.all(batch.map(entryKept));
      batch.forEach((path, j) => verdicts[j] && kept.push(path));
    }
    return kept;
  };
  return {
    resolvePath: inside,
    readFile: async (relativePath) => inner.readFile(await inside(relativePath)),
    ...(inner.readLines
      ? { readLines: async (relativePath: string, startLine: number, endLine: number) => inner.readLines!(await inside(relativePath), startLine, endLine) }
      : {}),
    readText: async (relativePath, maxBytes) => {
      const path = await inside(relativePath);
      if (inner.readText) return inner.readText(path, maxBytes);
      const text = await inner.readFile(path);
      const size = Buffer.byteLength(text);
      return { text: size > maxBytes ? Buffer.from(text).subarray(0, maxBytes).toString('utf8') : text, truncated: size > maxBytes, size };
    },
    listFiles: async (relativeDir, listOptions) => {
      const listing = toListing(await inner.listFiles(await inside(relativeDir || '.'), listOptions), listOptions?.limit ?? 500);
      return { ...listing, paths: await keptOnly(listing.paths) };
    },
    searchText: async (query, searchOptions) => {
      if (searchOptions?.include) refuseOutsideGlob(searchOptions.include, 'include glob');
      const found = toSearchResult(await inner.searchText(query, searchOptions), searchOptions?.limit ?? 100);
      const files = new Set(await keptOnly([...new Set(found.hits.map((h) => h.path))]));
      return { ...found, hits: found.hits.filter((h) => files.has(h.path)) };
    },
    findFiles: async (glob, findOptions) => {
      refuseOutsideGlob(glob, 'glob');
      const found = await inner.findFiles(glob, findOptions);
      return { ...found, paths: await keptOnly(found.paths) };
    },
  };
}

/** A glob is matched under the root; a `..` or an absolute glob would reach past it. */
function refuseOutsideGlob(glob: string, what: string): void {
  if (glob.split(/[\\/]/).includes('..') || /^([a-zA-Z]:)?[\\/]/.test(glob) || nodePath.isAbsolute(glob)) {
    throw new Error(`The ${what} ${glob} reaches outside the workspace; use a glob relative to the workspace root, such as src/**/*.ts.`);
  }
}

/** For a workspace root not on the local disk: every read is refused, since the guard cannot resolve its links. */
export function refusingWorkspace(root: string): WorkspacePort {
  const refuse = (): Promise<never> =>
    Promise.reject(
      new Error(`Reading files is not available for ${root}: Tasklane reads only folders on a local disk, where its path guard can check every link.`),
    );
  return { readFile: refuse, listFiles: refuse, searchText: refuse, findFiles: refuse };
}
