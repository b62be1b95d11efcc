/**
 * The walk used where no ripgrep can run: the same files ripgrep would list (ripgrep.ts), with the
 * same ignore rules, matched by the `ignore` library (git's own rules, negation included) rather
 * than by hand. Rules, as git and ripgrep read them:
 * - the excludes (`.git`, VS Code's files.exclude and search.exclude) apply everywhere;
 * - `.git/info/exclude` applies from the root;
 * - each folder's `.gitignore`, then its `.ignore` (which wins over it), apply below that folder,
 *   and a deeper folder's rule wins over a shallower one's;
 * - an ignored folder is not entered, so a negation cannot bring back a file inside it (git's rule).
 * Links are neither followed nor listed, as ripgrep without `--follow` does.
 */
import ignore from 'ignore';
import type { Ignore } from 'ignore';
import * as nodePath from 'node:path';
import type { WorkspaceFsPort } from './fsPort';

/** Bytes read at most from one ignore file (a bigger one is not an ignore file anyone wrote). */
const MAX_IGNORE_FILE_BYTES = 256 * 1024;

interface Rules {
  /** The folder the rules are relative to ('' for the root). */
  base: string;
  rules: Ignore;
}

/** Options of one walk. */
export interface IgnoreWalkOptions {
  root: string;
  fs: WorkspaceFsPort;
  /** Globs left out everywhere (gitignore syntax: `**\/node_modules`, `*.log`). */
  excludes: readonly string[];
  caseInsensitive?: boolean;
}

/** Files below `start` (relative to the root, `/` separators), breadth first, folders in name order. */
export async function* ignoreWalk(start: string, options: IgnoreWalkOptions): AsyncGenerator<string> {
  const { fs } = options;
  const read = ruleReader(options);
  const stack = await rulesAbove(start, options);
  const queue: Array<{ dir: string; rules: Rules[] }> = [{ dir: start, rules: stack }];
  while (queue.length > 0) {
    const { dir, rules: above } = queue.shift() as { dir: string; rules: Rules[] };
    let entries: Array<{ name: string; kind: string }>;
    try {
      entries = await fs.readdir(absolute(options.root, dir));
    } catch {
      continue;
    }
    const own = await folderRules(dir, read, options);
    const rules = own ? [...above, own] : above;
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.kind !== 'file' && entry.kind !== 'directory') continue;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (ignored(path, entry.kind === 'directory', rules)) continue;
      if (entry.kind === 'directory') queue.push({ dir: path, rules });
      else yield path;
    }
  }
}

/** Whether the walk would reach the file `path` (no folder above it, nor it, ignored). */
export async function isKept(path: string, options: IgnoreWalkOptions): Promise<boolean> {
  const parts = path.split('/').filter(Boolean);
  const read = ruleReader(options);
  const rules = await rulesAbove('', options);
  for (let i = 0; i < parts.length; i += 1) {
    const dir = parts.slice(0, i).join('/');
    if (i > 0 && ignored(dir, true, rules)) return false;
    const own = await folderRules(dir, read, options);
    if (own) rules.push(own);
  }
  return !ignored(parts.join('/'), false, rules);
}

function absolute(root: string, relative: string): string {
  return nodePath.join(root, ...relative.split('/').filter(Boolean));
}

function newRules(options: IgnoreWalkOptions): Ignore {
  return ignore({ ignorecase: options.caseInsensitive ?? false, allowRelativePaths: true });
}

/** Reads an ignore file's text, or undefined when there is none (or it cannot be read). */
function ruleReader(options: IgnoreWalkOptions): (relative: string) => Promise<string | undefined> {
  return async (relative) => {
    try {
      const path = absolute(options.root, relative);
      const stats = await options.fs.stat(path);
      if (stats?.kind !== 'file') return undefined;
      return (await options.fs.readText(path, MAX_IGNORE_FILE_BYTES)).text;
    } catch {
      return undefined;
    }
  };
}

/** The rules that apply to what is below `start`: the excludes, .git/info/exclude, and every folder's files from the root down to `start`'s parent. */
async function rulesAbove(start: string, options: IgnoreWalkOptions): Promise<Rules[]> {
  const read = ruleReader(options);
  const top = newRules(options).add(['.git', ...options.excludes]);
  const exclude = await read('.git/info/exclude');
  if (exclude) top.add(exclude);
  const stack: Rules[] = [{ base: '', rules: top }];
  const chain = start ? start.split('/') : [];
  for (let i = 0; i < chain.length; i += 1) {
    const own = await folderRules(chain.slice(0, i).join('/'), read, options);
    if (own) stack.push(own);
  }
  return stack;
}

async function folderRules(dir: string, read: (relative: string) => Promise<string | undefined>, options: IgnoreWalkOptions): Promise<Rules | undefined> {
  const prefix = dir ? `${dir}/` : '';
  const gitignore = await read(`${prefix}.gitignore`);
  const dotIgnore = await read(`${prefix}.ignore`);
  if (gitignore === undefined && dotIgnore === undefined) return undefined;
  // One list, .ignore after .gitignore: within a list the last matching rule decides.
  return {
    base: dir,
    rules: newRules(options)
      .add(gitignore ?? '')
      .add(dotIgnore ?? ''),
  };
}

/** The deepest folder's rules that say anything about `path` decide. */
function ignored(path: string, isDir: boolean, stack: readonly Rules[]): boolean {
  for (let i = stack.length - 1; i >= 0; i -= 1) {
    const { base, rules } = stack[i];
    const relative = base ? path.slice(base.length + 1) : path;
    const verdict = rules.test(isDir ? `${relative}/` : relative);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}
