/**
 * Listing and text search through ripgrep (`rg`), the program VS Code's own search runs. It walks
 * in parallel, skips binary files, and honours `.gitignore` (nested, with negation), `.ignore` and
 * `.git/info/exclude` the way git does, which a hand-written walk does not. The caller (FsWorkspace)
 * finds the program: in VS Code the copy VS Code ships, headless one on the PATH
 * (`findRipgrepOnPath`); where there is none it walks with ignoreWalk.ts instead.
 *
 * Fixed flags, why:
 * - `--no-config`: a RIPGREP_CONFIG_PATH in the environment could add `--follow` or `--pre` (which
 *   runs a program per file); the workspace or the person's shell must not change what runs.
 * - no `--follow`: links are never followed (a repository can ship `docs -> ../../..`); ripgrep then
 *   lists and searches no link at all, not even one to a file inside. read_file still reads such a
 *   link through the path guard.
 * - `--hidden` with `.git` excluded: dot-folders such as `.github/` are code a task reads (VS Code's
 *   search shows them too); what should stay out is what the ignore files and excludes say.
 * - `--no-require-git`: a `.gitignore` counts outside a git repository too (a fresh folder, a copy).
 * - argv only (no shell), the pattern after `-e`, paths after `--`.
 */
import { spawn } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access } from 'node:fs/promises';
import * as nodePath from 'node:path';
import type { StopReason } from '../../ports';

/** What one ripgrep run reported. */
export interface RipgrepRun {
  /** False when it was stopped (by the caller or the time bound) before the end. */
  complete: boolean;
  stoppedBy?: StopReason;
}

/** Options every run takes. */
export interface RipgrepWalk {
  /** The folder ripgrep runs in; every path it reports is relative to it. */
  cwd: string;
  /** Globs of what to leave out besides the ignore files (`**\/node_modules`, VS Code's files.exclude). */
  excludes: readonly string[];
  /** Stop after this long and report `time`. */
  timeoutMs: number;
}

/** One line ripgrep printed for a search: a match or a context line. */
export interface RipgrepLine {
  path: string;
  line: number;
  text: string;
  context: boolean;
}

function walkFlags(walk: RipgrepWalk): string[] {
  const flags = ['--no-config', '--hidden', '--no-require-git', '--no-messages', '--color', 'never', '-g', '!.git'];
  for (const glob of walk.excludes) flags.push('-g', `!${glob}`);
  return flags;
}

/**
 * Runs `rg` and hands each line of its output to `onLine`, which returns false to stop it early
 * (the run is then incomplete, `limit`). Exit 1 is "nothing found", not an error; exit 2 with
 * output is a partial failure (an unreadable file), reported through `--no-messages` as nothing.
 */
function run(program: string, args: string[], walk: RipgrepWalk, onLine: (line: string) => boolean): Promise<RipgrepRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd: walk.cwd, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let stopped: StopReason | undefined;
    let stderr = '';
    const stop = (why: StopReason) => {
      if (stopped) return;
      stopped = why;
      child.kill();
    };
    const timer = setTimeout(() => stop('time'), walk.timeoutMs);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    // Split by hand: readline costs more than ripgrep's own walk over 25,000 file names.
    let rest = '';
    const take = (line: string) => {
      if (!stopped && !onLine(line.endsWith('\r') ? line.slice(0, -1) : line)) stop('limit');
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) take(line);
    });
    child.stdout.on('end', () => {
      if (rest) take(rest);
      rest = '';
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`ripgrep (${program}) could not run: ${error.message}`, { cause: error }));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (stopped) return resolve({ complete: false, stoppedBy: stopped });
      if (code === 0 || code === 1) return resolve({ complete: true });
      reject(new RipgrepError(stderr.trim() || `ripgrep exited with ${code}`));
    });
  });
}

/** ripgrep refused the run (a pattern it cannot parse, a bad glob): the message is ripgrep's. */
export class RipgrepError extends Error {}

/** Every file below `dir` (relative to walk.cwd, `/` separators) that the ignore rules keep. */
export async function ripgrepFiles(program: string, dir: string, walk: RipgrepWalk, onPath: (path: string) => boolean): Promise<RipgrepRun> {
  const args = ['--files', ...walkFlags(walk), '--', dir || '.'];
  return run(program, args, walk, (line) => onPath(slashed(line.startsWith('./') ? line.slice(2) : line)));
}

/** What ripgrep is asked to search for. */
export interface RipgrepQuery {
  pattern: string;
  isRegex: boolean;
  /** Context lines around each match. */
  context: number;
  /** Longer files are not searched. */
  maxFileBytes: number;
  /** Characters of a line kept. */
  maxColumns: number;
}

/**
 * Searches every file the ignore rules keep; each match and context line goes to `onLine`
 * (which returns false to stop). Output is `path NUL line:text` for a match and `path NUL
 * line-text` for a context line: the NUL keeps a `:` in a file name from being misread.
 */
export async function ripgrepSearch(program: string, query: RipgrepQuery, walk: RipgrepWalk, onLine: (line: RipgrepLine) => boolean): Promise<RipgrepRun> {
  const args = [
    ...walkFlags(walk),
    '--with-filename',
    '--line-number',
    '--no-heading',
    '--null',
    '--max-filesize',
    String(query.maxFileBytes),
    '--max-columns',
    String(query.maxColumns),
    '--max-columns-preview',
    // Lines are searched one by one, as RE2 over a line would: `\n` never matches.
    '--no-multiline',
    '--case-sensitive',
  ];
  if (query.context > 0) args.push('--context', String(query.context));
  if (!query.isRegex) args.push('--fixed-strings');
  args.push('-e', query.pattern, '--', '.');
  return run(program, args, walk, (raw) => {
    const nul = raw.indexOf('\0');
    if (nul < 0) return true; // `--` between context groups
    const path = slashed(raw.slice(0, nul)).replace(/^\.\//, '');
    const rest = raw.slice(nul + 1);
    const m = /^(\d+)([:-])/.exec(rest);
    if (!m) return true;
    return onLine({ path, line: Number(m[1]), text: rest.slice(m[0].length), context: m[2] === '-' });
  });
}

function slashed(path: string): string {
  return nodePath.sep === '\\' ? path.replace(/\\/g, '/') : path;
}

/** The first `rg` (rg.exe on Windows) on `pathVariable` that can be run, or undefined. */
export async function findRipgrepOnPath(pathVariable = process.env.PATH ?? ''): Promise<string | undefined> {
  const name = process.platform === 'win32' ? 'rg.exe' : 'rg';
  for (const dir of pathVariable.split(nodePath.delimiter)) {
    // A relative PATH entry would resolve against the workspace, which could ship its own `rg`.
    if (!dir || !nodePath.isAbsolute(dir)) continue;
    const candidate = nodePath.join(dir, name);
    if (
      await access(candidate, fsConstants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}
