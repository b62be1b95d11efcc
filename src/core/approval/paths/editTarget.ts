/**
 * What the edit policy must know about a resolved path beyond its own spelling: every other
 * name the same file has in the workspace. Two kinds of aliasing are looked for:
 *
 * - symbolic links at any depth whose target contains the file (`packages/app/.vscode` →
 *   `../../shared-vscode` makes `shared-vscode/tasks.json` also `packages/app/.vscode/tasks.json`);
 * - hard links (a regular file with more than one name): the other name cannot be found cheaply,
 *   so a hard-linked file is treated as sensitive and always asks.
 *
 * Git cannot ship hard links, but package-manager stores, `cp -al` or an approved command can
 * make them. The walk does not follow links (so it cannot be led outside) and skips
 * `node_modules` and `.git` contents (both are sensitive as a whole already, and package
 * managers fill node_modules with links to the workspace's own packages). A workspace too large
 * to walk within the bound is not vouched for: its edits ask.
 */
import * as nodePath from 'node:path';
import type { WorkspaceFsPort } from './fsPort';
import { resolveWorkspacePath } from './pathGuard';
import type { ResolvedWorkspacePath } from './pathGuard';
import { joinRootPath, splitRootPath } from './workspaceRoots';
import type { WorkspaceRoot } from './workspaceRoots';

/** Entries visited at most per check (a large monorepo without node_modules stays under it). */
export const MAX_LINK_SCAN_ENTRIES = 50_000;

const SKIPPED_DIRS = new Set(['node_modules', '.git']);

/** The edit-relevant facts about one resolved path. */
export interface EditTarget {
  /** Every workspace-relative spelling of the file: the resolver's aliases plus links found anywhere. */
  aliases: string[];
  /** An existing regular file with more than one hard link: some other name also changes. */
  hardLinked: boolean;
  /** False when the link scan stopped at MAX_LINK_SCAN_ENTRIES: aliases may be missing. */
  complete: boolean;
}

/** Looks for every other name of `resolved` (see the module comment). */
export async function inspectEditTarget(
  root: string,
  resolved: Pick<ResolvedWorkspacePath, 'absolutePath' | 'relativePath' | 'aliases' | 'exists'>,
  fs: WorkspaceFsPort,
  options: { caseInsensitive?: boolean; maxEntries?: number } = {},
): Promise<EditTarget> {
  const ci = options.caseInsensitive ?? false;
  const fold = (s: string) => (ci ? s.toLowerCase() : s);
  const realRoot = await fs.realpath(root);
  const finalSegments = resolved.relativePath === '' ? [] : resolved.relativePath.split('/');
  const aliases = new Set(resolved.aliases);
  const max = options.maxEntries ?? MAX_LINK_SCAN_ENTRIES;
  let visited = 0;
  let complete = true;
  const queue: string[] = [''];
  while (queue.length > 0) {
    const dir = queue.shift() as string;
    let entries: Array<{ name: string; kind: string }>;
    try {
      entries = await fs.readdir(nodePath.join(realRoot, dir));
    } catch {
      continue; // unreadable folders hold nothing an edit could be aliased through
    }
    for (const entry of entries) {
      visited += 1;
      if (visited > max) {
        complete = false;
        queue.length = 0;
        break;
      }
      const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.kind === 'directory') {
        if (!SKIPPED_DIRS.has(fold(entry.name))) queue.push(relative);
        continue;
      }
      if (entry.kind !== 'symlink') continue;
      let target: string;
      try {
        target = await fs.realpath(nodePath.join(realRoot, relative));
      } catch {
        continue; // dangling: the resolver already follows the path the edit takes
      }
      const rel = nodePath.relative(realRoot, target);
      if (rel.startsWith('..') || nodePath.isAbsolute(rel)) continue;
      const targetSegments = rel === '' ? [] : rel.split(nodePath.sep);
      if (targetSegments.length > finalSegments.length) continue;
      if (targetSegments.every((segment, i) => fold(segment) === fold(finalSegments[i]))) {
        aliases.add([relative, ...finalSegments.slice(targetSegments.length)].join('/'));
      }
    }
  }
  let hardLinked = false;
  if (resolved.exists) {
    const stats = await fs.stat(resolved.absolutePath).catch(() => undefined);
    hardLinked = stats !== undefined && stats.kind === 'file' && stats.links > 1;
  }
  return { aliases: [...aliases], hardLinked, complete };
}

/**
 * The guard again, at apply time: a proposal stores resolved paths, but between the proposal and
 * the approval a folder can be swapped for a symbolic link (a pull, an approved command). Returns
 * undefined when `relativePath` still resolves to itself inside the workspace, otherwise why the
 * write must not happen. Wire it as ChangeSetDecider's `recheck`.
 */
export function applyTimeGuard(
  root: string,
  fs: WorkspaceFsPort,
  options: { caseInsensitive?: boolean; roots?: readonly WorkspaceRoot[] } = {},
): (relativePath: string) => Promise<string | undefined> {
  const same = (a: string, b: string) => (options.caseInsensitive ? a.toLowerCase() === b.toLowerCase() : a === b);
  // A multi-root workspace's paths carry their folder (workspaceRoots.ts); each is checked in its own.
  const roots = options.roots && options.roots.length > 0 ? options.roots : [{ name: '', path: root }];
  return async (relativePath) => {
    const split = splitRootPath(roots, relativePath);
    if ('error' in split) return split.error;
    const resolved = await resolveWorkspacePath(split.root.path, split.relative, fs, options);
    if (!resolved.ok) return `${resolved.reason} (it changed since the proposal)`;
    const now = joinRootPath(roots, split.root, resolved.relativePath);
    if (!same(now, relativePath)) {
      return `${relativePath} now resolves to ${now} (a symbolic link changed since the proposal)`;
    }
    return undefined;
  };
}
