/**
 * THE path scheme of a workspace with several folders (VS Code's multi-root workspaces). With one
 * folder a workspace path is relative to it, as always (`src/a.ts`). With more than one, a path
 * is `<folder name>/<path in that folder>` (`api/src/a.ts`): every read, search hit, listing,
 * edit, code location and command cwd says which folder it is in, and this module is the one
 * place that splits and joins that prefix. Everything below it (the path guard, the sensitive
 * path policy, ripgrep) keeps working on one folder with folder-relative paths.
 *
 * Folder names are not unique in VS Code (two folders may both be called `app`); a later
 * duplicate gets `-2`, `-3`… appended, so every prefix names exactly one folder. The order is
 * the workspace's: the first folder is the default where a root is optional (a command's cwd).
 */

/** One folder of the workspace. */
export interface WorkspaceRoot {
  /** The prefix its paths carry when there are several folders (unique within the workspace). */
  name: string;
  /** Its absolute path (or URI string: this module never touches the disk). */
  path: string;
}

/** A workspace path split into its folder and the path inside it. */
export interface RootedPath {
  root: WorkspaceRoot;
  /** Relative to `root`, `/` separators ('' for the folder itself). */
  relative: string;
}

/** The roots for folders named `names` (in order), made unique as the module comment says. */
export function workspaceRoots(folders: ReadonlyArray<{ name: string; path: string }>): WorkspaceRoot[] {
  const taken = new Set<string>();
  return folders.map((folder) => {
    const base = folder.name.replace(/[\\/]/g, '_') || 'folder';
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base}-${n}`;
    taken.add(name);
    return { name, path: folder.path };
  });
}

/** True when paths carry a root prefix (more than one folder). */
export function isMultiRoot(roots: readonly WorkspaceRoot[]): boolean {
  return roots.length > 1;
}

/** The roots as the model is told them, for refusals and the prompt. */
export function describeRoots(roots: readonly WorkspaceRoot[]): string {
  return roots.map((r) => `${r.name}/`).join(', ');
}

/**
 * The folder `requested` is in and the path inside it. With one folder that is the folder and the
 * request unchanged (absolute paths and `..` are left to the path guard). With several, the first
 * segment must name a root; a path naming none is refused with the list of roots, so the model
 * can correct itself. An absolute path is accepted when it lies under one root (models copy
 * absolute paths from compiler output); the guard still checks it against that root.
 */
export function splitRootPath(roots: readonly WorkspaceRoot[], requested: string): RootedPath | { error: string } {
  if (roots.length === 0) return { error: 'No folder is open in this workspace; ask the user to open one.' };
  if (!isMultiRoot(roots)) return { root: roots[0], relative: requested };
  const normal = requested.replace(/\\/g, '/');
  for (const root of roots) {
    const base = root.path.replace(/\\/g, '/').replace(/\/$/, '');
    if (normal === base || normal.startsWith(`${base}/`)) return { root, relative: normal.slice(base.length + 1) };
  }
  const trimmed = normal.replace(/^\.\//, '');
  const cut = trimmed.indexOf('/');
  const head = cut < 0 ? trimmed : trimmed.slice(0, cut);
  const root = roots.find((r) => r.name === head);
  if (!root) {
    return {
      error: `${JSON.stringify(requested)} names no folder of this workspace. It has ${roots.length} folders, and every path starts with one of them: ${describeRoots(roots)} (for example ${roots[0].name}/src/index.ts).`,
    };
  }
  return { root, relative: cut < 0 ? '' : trimmed.slice(cut + 1) };
}

/** `relative` (inside `root`) as a workspace path: prefixed when there are several folders. */
export function joinRootPath(roots: readonly WorkspaceRoot[], root: WorkspaceRoot, relative: string): string {
  if (!isMultiRoot(roots)) return relative;
  return relative === '' || relative === '.' ? root.name : `${root.name}/${relative}`;
}

/**
 * What the model is told about the folders (the prompt's "Workspace folders"), or undefined with
 * one folder (its paths are plain, as always). Commands run in the first folder.
 */
export function rootsPromptText(roots: readonly WorkspaceRoot[]): string | undefined {
  if (!isMultiRoot(roots)) return undefined;
  return [
    `This workspace has ${roots.length} folders. Every path you read, search, list or edit starts with its folder's name: ${describeRoots(roots)}`,
    `For example ${roots[1].name}/src/index.ts is src/index.ts in the folder ${roots[1].name}. A path without a folder name is refused.`,
    // Commands take an absolute directory, so the model is told where each folder is.
    `Commands run in the first folder (${roots[0].name}); to run one elsewhere, cd into its folder first: ${roots.map((r) => `${r.name} is ${r.path}`).join('; ')}.`,
  ].join('\n');
}

/** `splitRootPath`, throwing its refusal (for ports whose callers show a rejection's message). */
export function rootPathOrThrow(roots: readonly WorkspaceRoot[], requested: string): RootedPath {
  const split = splitRootPath(roots, requested);
  if ('error' in split) throw new Error(split.error);
  return split;
}
