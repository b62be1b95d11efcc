import * as nodePath from 'node:path';
import type { FsPort } from './fsPort';

/** How the guard compares paths; set from the host's knowledge of the workspace's file system. */
export interface PathGuardOptions {
  /** True where the file system ignores case (Windows, macOS by default): containment is then decided case-insensitively. */
  caseInsensitive?: boolean;
}

/** A requested path that stays inside the workspace once `..` and symbolic links are resolved. */
export interface ResolvedWorkspacePath {
  ok: true;
  /** Where a read or write really lands: absolute, symlink-free, canonical for the part that exists. */
  absolutePath: string;
  /** `absolutePath` relative to the workspace root, with `/` separators ('' for the root itself). */
  relativePath: string;
  /** The requested path as the user sees it (lexically normalised, `/` separators), before symbolic links were followed. */
  requestedRelativePath: string;
  /** False when the final path does not exist yet (a file about to be created). */
  exists: boolean;
  /**
   * Every workspace-relative spelling of this file met on the way: the request, the path at each
   * symbolic link followed inside the workspace, and the physical path. A policy must check all
   * of them: `cfg/x.json` through `cfg` → `.vscode` → `conf` is also `.vscode/x.json`.
   */
  aliases: string[];
}

/** A refusal; `reason` is written for the model, naming the path and what to do instead. */
export interface RefusedWorkspacePath {
  ok: false;
  reason: string;
}

export type WorkspacePathResolution = ResolvedWorkspacePath | RefusedWorkspacePath;

/** Linux's own limit (ELOOP); beyond it the path is a loop or an attack, not a layout. */
const MAX_SYMLINK_HOPS = 40;

/**
 * Resolves a path asked for by the model (relative to the workspace root, or absolute) to the
 * place it really designates, and refuses it unless that place is inside the workspace.
 *
 * `..` in the request is resolved lexically first, as VS Code URIs do; then each existing
 * component is checked with lstat and symbolic links are followed one hop at a time (so a link
 * whose target does not exist yet, or a parent directory that links out, is still caught).
 * Backslashes in the request are separators on every platform, since models trained on Windows
 * paths send them. Callers must write to `absolutePath`, never to a path rebuilt from the
 * request: that is what makes the check hold.
 */
export async function resolveWorkspacePath(root: string, requested: string, fs: FsPort, options: PathGuardOptions = {}): Promise<WorkspacePathResolution> {
  const ci = options.caseInsensitive ?? false;
  if (typeof requested !== 'string' || requested.trim() === '') {
    return refuse('The path is empty; give a path relative to the workspace root, for example src/index.ts');
  }
  if (requested.includes('\0')) {
    return refuse(`${show(requested)} contains a NUL character; give a plain path relative to the workspace root`);
  }
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch (error) {
    throw new Error(`The workspace root ${root} cannot be resolved (${(error as Error).message}); reopen the folder and retry`, { cause: error });
  }

  const lexical = nodePath.resolve(root, requested.replace(/\\/g, '/'));
  const lexicalSegments = relativeSegments(nodePath.resolve(root), lexical, ci) ?? relativeSegments(realRoot, lexical, ci);
  if (lexicalSegments === undefined) {
    return refuse(`${show(requested)} resolves outside the workspace; use a path relative to the workspace root`);
  }

  const queue = [...lexicalSegments];
  let current = realRoot;
  let lastExisting = realRoot;
  let missingTail: string[] = [];
  let hops = 0;
  let firstLink: string | undefined;
  const hopAliases: string[] = [];
  let exists = true;
  while (queue.length > 0) {
    const segment = queue.shift() as string;
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      current = nodePath.dirname(current);
      if (exists) {
        lastExisting = current;
      } else {
        missingTail.pop();
        exists = missingTail.length === 0;
      }
      continue;
    }
    const candidate = nodePath.join(current, segment);
    if (!exists) {
      current = candidate;
      missingTail.push(segment);
      continue;
    }
    let kind: Awaited<ReturnType<FsPort['lstat']>>;
    try {
      kind = await fs.lstat(candidate);
    } catch (error) {
      return unreadable(requested, error);
    }
    if (kind === undefined) {
      exists = false;
      lastExisting = current;
      missingTail = [segment];
      current = candidate;
      continue;
    }
    if (kind === 'symlink') {
      hops += 1;
      if (hops > MAX_SYMLINK_HOPS) {
        return refuse(`${show(requested)} goes through more than ${MAX_SYMLINK_HOPS} symbolic links (a loop); use a path that does not go through it`);
      }
      firstLink ??= displayRelative(realRoot, candidate, ci);
      const linkSegments = relativeSegments(realRoot, candidate, ci);
      if (linkSegments !== undefined) hopAliases.push([...linkSegments, ...queue].join('/'));
      let target: string;
      try {
        target = await fs.readlink(candidate);
      } catch (error) {
        return unreadable(requested, error);
      }
      if (nodePath.isAbsolute(target)) current = nodePath.parse(target).root;
      queue.unshift(...splitSegments(target));
      continue;
    }
    current = candidate;
    lastExisting = candidate;
  }

  // Canonicalise what exists (case, Windows short names); the missing tail is appended as asked.
  let canonical: string;
  try {
    canonical = nodePath.join(await fs.realpath(exists ? current : lastExisting), ...(exists ? [] : missingTail));
  } catch {
    canonical = current;
  }
  const finalSegments = relativeSegments(realRoot, canonical, ci);
  if (finalSegments === undefined) {
    const via = firstLink !== undefined ? ` through the symbolic link ${firstLink}` : '';
    return refuse(`${show(requested)} resolves outside the workspace${via}; use a path inside the workspace that does not go through a link out of it`);
  }
  const relativePath = finalSegments.join('/');
  const requestedRelativePath = lexicalSegments.join('/');
  const linkedAliases = await sensitiveLinkAliases(realRoot, finalSegments, fs, ci);
  return {
    ok: true,
    absolutePath: canonical,
    relativePath,
    requestedRelativePath,
    exists,
    aliases: [...new Set([requestedRelativePath, ...hopAliases, relativePath, ...linkedAliases])],
  };
}

/**
 * Root entries whose spelling makes a path sensitive and that can be symbolic links. When one
 * is (`.vscode` → `conf`), a file reached directly through the link's target (`conf/settings.json`)
 * is still that entry's file (`.vscode/settings.json`), and must be classified as such.
 */
const SENSITIVE_ROOT_ENTRIES = ['.vscode', '.git', '.github', '.github/workflows', '.tasklane', 'package.json'];

async function sensitiveLinkAliases(realRoot: string, finalSegments: string[], fs: FsPort, ci: boolean): Promise<string[]> {
  const aliases: string[] = [];
  for (const entry of SENSITIVE_ROOT_ENTRIES) {
    const link = nodePath.join(realRoot, entry);
    let target: string;
    try {
      if ((await fs.lstat(link)) !== 'symlink') continue;
      target = await fs.realpath(link);
    } catch {
      continue; // a dangling or unreadable link leads nowhere an edit could land
    }
    const targetSegments = relativeSegments(realRoot, target, ci);
    if (targetSegments === undefined || targetSegments.length > finalSegments.length) continue;
    const same = (a: string, b: string) => (ci ? a.toLowerCase() === b.toLowerCase() : a === b);
    if (targetSegments.every((segment, i) => same(segment, finalSegments[i]))) {
      aliases.push([entry, ...finalSegments.slice(targetSegments.length)].join('/'));
    }
  }
  return aliases;
}

function refuse(reason: string): RefusedWorkspacePath {
  return { ok: false, reason };
}

/** Fails closed: a path the guard cannot inspect is not one it can vouch for. */
function unreadable(requested: string, error: unknown): RefusedWorkspacePath {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  return refuse(`${show(requested)} cannot be checked (${code}); use another path, or ask the user to fix its permissions`);
}

/** Quotes nothing and trims nothing: the model should recognise its own input. */
function show(requested: string): string {
  return requested.length > 300 ? `${requested.slice(0, 300)}…` : requested;
}

function splitSegments(path: string): string[] {
  const separators = nodePath.sep === '\\' ? /[\\/]+/ : /\/+/;
  return path.split(separators).filter((s) => s !== '');
}

/**
 * The segments of `target` below `base`, or undefined when it is not inside. Compared segment by
 * segment (not by string prefix) so `/ws-other` is not inside `/ws`, and case folding cannot
 * shift offsets.
 */
function relativeSegments(base: string, target: string, caseInsensitive: boolean): string[] | undefined {
  const baseParts = splitSegments(nodePath.resolve(base));
  const targetParts = splitSegments(nodePath.resolve(target));
  const baseRoot = nodePath.parse(nodePath.resolve(base)).root;
  const targetRoot = nodePath.parse(nodePath.resolve(target)).root;
  const fold = (s: string): string => (caseInsensitive ? s.normalize('NFC').toLowerCase() : s);
  if (fold(baseRoot) !== fold(targetRoot)) return undefined;
  if (targetParts.length < baseParts.length) return undefined;
  for (let i = 0; i < baseParts.length; i += 1) {
    if (fold(baseParts[i]) !== fold(targetParts[i])) return undefined;
  }
  return targetParts.slice(baseParts.length);
}

function displayRelative(realRoot: string, path: string, caseInsensitive: boolean): string {
  return relativeSegments(realRoot, path, caseInsensitive)?.join('/') ?? path;
}
