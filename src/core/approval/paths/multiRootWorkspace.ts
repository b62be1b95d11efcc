import { readBounded, toListing, toSearchResult } from '../../ports';
import type { BoundedText, FileListing, FoundFiles, SearchHit, SearchOptions, SearchResult, StopReason, WorkspacePort, WorkspaceReader } from '../../ports';
import type { WorkspaceRoot } from './workspaceRoots';
import { isMultiRoot, joinRootPath, rootPathOrThrow } from './workspaceRoots';

/** One folder's read port (already behind that folder's path guard) and its root. */
export interface RootPort {
  root: WorkspaceRoot;
  port: WorkspacePort;
}

/**
 * The read actions' workspace over several folders, in the path scheme of workspaceRoots.ts:
 * each request is routed to its folder's own guarded port with the folder-relative path, and
 * every path that comes back carries its folder's prefix. A path naming no folder is refused
 * with the list of folders. With one folder the folder's port is returned as it is, so a
 * single-folder workspace sees exactly the paths it always did.
 *
 * Searches and walks without a root in their pattern go through the folders in workspace order
 * and share the one limit: the first folder's hits come first, and a search stopped by the
 * limit in the first folder says it is incomplete rather than silently skipping the others.
 */
export function multiRootWorkspace(ports: readonly RootPort[]): WorkspacePort {
  if (ports.length === 1) return ports[0].port;
  const roots = ports.map((p) => p.root);
  if (!isMultiRoot(roots)) throw new Error('A workspace needs at least one folder; open one and retry.');
  const portOf = (requested: string) => {
    const { root, relative } = rootPathOrThrow(roots, requested);
    return { root, relative: relative || '.', port: (ports.find((p) => p.root === root) as RootPort).port };
  };
  const prefix = (root: WorkspaceRoot, path: string) => joinRootPath(roots, root, path);
  const atTop = (dir: string) => ['', '.', './', '/'].includes(dir.trim());
  /** The folders a pattern (a glob or an include filter) applies to: one when it starts with a root's name. */
  const scoped = (pattern: string | undefined): Array<{ entry: RootPort; pattern: string | undefined }> => {
    const head = pattern?.split('/')[0];
    const named = ports.find((p) => p.root.name === head);
    if (named && pattern !== undefined && pattern.includes('/')) return [{ entry: named, pattern: pattern.slice(head!.length + 1) || '**' }];
    return ports.map((entry) => ({ entry, pattern }));
  };

  const workspace: WorkspacePort = {
    readFile: async (path) => {
      const { port, relative } = portOf(path);
      return port.readFile(relative);
    },
    async listFiles(dir, options = {}) {
      const limit = options.limit ?? Number.POSITIVE_INFINITY;
      if (!atTop(dir)) {
        const { root, port, relative } = portOf(dir);
        const listing = toListing(await port.listFiles(relative, options), limit);
        return { ...listing, paths: listing.paths.map((p) => prefix(root, p)) };
      }
      // The top of a multi-root workspace is its folders; a recursive listing is theirs in order.
      if (!options.recursive) return roots.map((r) => `${r.name}/`);
      const paths: string[] = [];
      let complete = true;
      let stoppedBy: StopReason | undefined;
      for (const { root, port } of ports) {
        const left = limit - paths.length;
        if (left <= 0) {
          complete = false;
          stoppedBy ??= 'limit';
          break;
        }
        const listing = toListing(await port.listFiles('.', { ...options, limit: left }), left);
        paths.push(...listing.paths.map((p) => prefix(root, p)));
        if (!listing.complete) {
          complete = false;
          stoppedBy ??= listing.stoppedBy;
        }
      }
      return { paths, complete, ...(stoppedBy ? { stoppedBy } : {}) } satisfies FileListing;
    },
    async searchText(query, options: SearchOptions = {}) {
      const limit = options.limit ?? Number.POSITIVE_INFINITY;
      const hits: SearchHit[] = [];
      let matches = 0;
      let complete = true;
      let stoppedBy: StopReason | undefined;
      for (const { entry, pattern } of scoped(options.include)) {
        if (matches >= limit) {
          complete = false;
          stoppedBy ??= 'limit';
          break;
        }
        const left = limit - matches;
        const { include: _include, ...rest } = options;
        const found = toSearchResult(
          await entry.port.searchText(query, { ...rest, ...(pattern !== undefined ? { include: pattern } : {}), limit: left }),
          left,
        );
        for (const hit of found.hits) hits.push({ ...hit, path: prefix(entry.root, hit.path) });
        matches += found.hits.filter((h) => !h.context).length;
        if (!found.complete) {
          complete = false;
          stoppedBy ??= found.stoppedBy;
        }
      }
      return { hits, complete, ...(stoppedBy ? { stoppedBy } : {}) } satisfies SearchResult;
    },
    async findFiles(glob, options = {}) {
      const limit = options.limit ?? Number.POSITIVE_INFINITY;
      const paths: string[] = [];
      let complete = true;
      let stoppedBy: StopReason | undefined;
      for (const { entry, pattern } of scoped(glob)) {
        const left = limit - paths.length;
        if (left <= 0) {
          complete = false;
          stoppedBy ??= 'limit';
          break;
        }
        const found: FoundFiles = await entry.port.findFiles(pattern ?? glob, { ...options, limit: left });
        paths.push(...found.paths.map((p) => prefix(entry.root, p)));
        if (!found.complete) {
          complete = false;
          stoppedBy ??= found.stoppedBy;
        }
      }
      return { paths, complete, ...(stoppedBy ? { stoppedBy } : {}) };
    },
    async resolvePath(path) {
      if (atTop(path)) return '.';
      const { root, port, relative } = portOf(path);
      const resolved = port.resolvePath ? await port.resolvePath(relative) : relative;
      return prefix(root, resolved === '.' ? '' : resolved);
    },
  };
  // Optional reads only (async, so a refusal is a rejection like every other read's) where every folder's port has them (in-memory fakes may not).
  if (ports.every((p) => p.port.readText)) {
    workspace.readText = async (path, maxBytes) => {
      const { port, relative } = portOf(path);
      return port.readText!(relative, maxBytes);
    };
  }
  if (ports.every((p) => p.port.readLines)) {
    workspace.readLines = async (path, start, end) => {
      const { port, relative } = portOf(path);
      return port.readLines!(relative, start, end);
    };
  }
  return workspace;
}

/**
 * THE reading of a multi-root workspace for the edit proposals and their stale check: workspace
 * paths (`<folder>/<path>`) routed to each folder's own reader, and the unsaved paths prefixed.
 * With one folder, that folder's reader as it is.
 */
export function multiRootReader<R extends WorkspaceReader>(
  entries: ReadonlyArray<{ root: WorkspaceRoot; reader: R }>,
): WorkspaceReader & { readerOf(path: string): { reader: R; relative: string } } {
  const roots = entries.map((e) => e.root);
  const readerOf = (path: string) => {
    const { root, relative } = rootPathOrThrow(roots, path);
    return { reader: (entries.find((e) => e.root === root) as { reader: R }).reader, relative };
  };
  return {
    readerOf,
    read: async (path) => {
      const { reader, relative } = readerOf(path);
      return reader.read(relative);
    },
    readBounded: async (path, maxBytes): Promise<BoundedText | null> => {
      const { reader, relative } = readerOf(path);
      return readBounded(reader, relative, maxBytes);
    },
    unsavedPaths: () => entries.flatMap(({ root, reader }) => (reader.unsavedPaths?.() ?? []).map((p) => joinRootPath(roots, root, p))),
  };
}
