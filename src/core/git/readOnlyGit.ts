/**
 * `git` run read-only for the git actions, on the local disk (the VS Code host and the command
 * line alike). A repository is untrusted input: its `.git/config` (and the person's global
 * config, which we leave in force otherwise) can name programs that ordinary reads run. Each is
 * switched off on every call:
 *
 * - `core.fsmonitor` (a hook or daemon `status`, `diff` and `blame` start to learn what changed):
 *   `core.fsmonitor=` (empty is false, both for git before 2.36, where it is a hook path, and after);
 * - external diff drivers (`diff.external`, `diff.<driver>.command` via .gitattributes):
 *   `--no-ext-diff`, `diff.external=`, and `GIT_EXTERNAL_DIFF` scrubbed;
 * - `diff.<driver>.textconv` (`show`, `blame` run it by default): `--no-textconv`;
 * - clean/smudge filters (`filter.<driver>.clean|smudge|process`, which `status`, `diff` and
 *   `blame` run on working-tree files): every driver the config names is emptied and made not
 *   required, through `GIT_CONFIG_COUNT` (key and value apart, whatever the driver's name);
 * - the pager (`core.pager`, `pager.<cmd>`, `GIT_PAGER`): `--no-pager`;
 * - hooks (`post-index-change`, which runs when the index is written): `core.hooksPath` set to a
 *   path that cannot be a folder, and `--no-optional-locks` so `status` writes no index (`diff`
 *   still refreshes the index's file stamps when it can, as VS Code's own git does all the time);
 * - signature checks (`log.showSignature` runs `gpg.program`): `--no-show-signature`, `log.showSignature=false`;
 * - lazy fetches of a partial clone's missing objects (a transport, `core.sshCommand`):
 *   `protocol.allow=never`, `GIT_TERMINAL_PROMPT=0`;
 * - submodules (each with a config of its own): `--ignore-submodules=all`, `submodule.recurse=false`.
 *
 * The environment is an allowlist (no `GIT_*` that could redirect the repository, the index, the
 * object store or the config; no keys), argv is fixed (no shell), revisions are resolved to a
 * commit id first (`--end-of-options`), paths follow `--` as literal pathspecs, output is cut at a
 * byte bound and a call is killed after a timeout. The repository's top level must contain the
 * workspace root (a `core.worktree` pointing elsewhere is refused).
 */
import { spawn } from 'node:child_process';
import * as nodePath from 'node:path';

/** What one git call printed. */
export interface GitOutput {
  text: string;
  /** True when the output was longer than the bound and was cut. */
  truncated: boolean;
}

/** Runs read-only git subcommands in the workspace (the port the git actions use). */
export interface GitReader {
  /** `args` are a subcommand and its arguments; the hardening flags are added in front. */
  run(args: readonly string[]): Promise<GitOutput>;
  /** The commit id `revision` names, or an error the model can act on. */
  commit(revision: string): Promise<string>;
}

export interface ReadOnlyGitOptions {
  /** The git program (default `git` on PATH). */
  program?: string;
  /** The environment git inherits, before the allowlist (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Bytes of output kept (default 256 KiB). */
  maxBytes?: number;
  /** A call is killed after this (default 15 s). */
  timeoutMs?: number;
}

/** Variables git may inherit: where it is, who runs it, the locale, temp folders. Nothing named GIT_*. */
const INHERITED =
  /^(PATH|HOME|USER|LOGNAME|LANG|LC_[A-Z]+|TZ|TMPDIR|TEMP|TMP|SYSTEMROOT|SYSTEMDRIVE|WINDIR|COMSPEC|PATHEXT|USERPROFILE|APPDATA|LOCALAPPDATA|HOMEDRIVE|HOMEPATH|XDG_CONFIG_HOME)$/i;

/** `-c` settings every call gets (names without a subsection, so `-c` parses them exactly). */
const FIXED_CONFIG = [
  'core.fsmonitor=',
  `core.hooksPath=${process.platform === 'win32' ? 'NUL' : '/dev/null'}`,
  'core.pager=cat',
  'core.quotePath=false',
  'diff.external=',
  'diff.ignoreSubmodules=all',
  'submodule.recurse=false',
  'status.submoduleSummary=false',
  'status.relativePaths=true',
  'log.showSignature=false',
  'log.mailmap=false',
  'blame.ignoreRevsFile=',
  'protocol.allow=never',
  'gc.auto=0',
  'maintenance.auto=false',
  'color.ui=false',
];

/** GIT_CONFIG_COUNT and GIT_CONFIG_KEY_n/VALUE_n came in git 2.31. */
const MIN_VERSION = [2, 31];

export class ReadOnlyGit implements GitReader {
  private version?: Promise<void>;
  private readonly program: string;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;
  private readonly env: Record<string, string>;

  constructor(
    /** Absolute path of the workspace root (git's working folder). */
    private readonly root: string,
    options: ReadOnlyGitOptions = {},
  ) {
    this.program = options.program ?? 'git';
    this.maxBytes = options.maxBytes ?? 256 * 1024;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(options.env ?? process.env)) if (value !== undefined && INHERITED.test(key)) env[key] = value;
    this.env = { ...env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', GIT_PAGER: 'cat', PAGER: 'cat', GIT_NO_LAZY_FETCH: '1' };
  }

  async run(args: readonly string[]): Promise<GitOutput> {
    await this.checked();
    const drivers = await this.filterDrivers();
    // Every filter driver the config knows, emptied: git runs none of them (convert.c skips an empty command).
    const overrides = [...drivers].flatMap((name): Array<[string, string]> => [
      [`filter.${name}.clean`, ''],
      [`filter.${name}.smudge`, ''],
      [`filter.${name}.process`, ''],
      [`filter.${name}.required`, 'false'],
    ]);
    const result = await this.spawn(args, overrides);
    if (result.code !== 0) throw new Error(gitError(result.stderr, args[0]));
    return { text: result.stdout, truncated: result.truncated };
  }

  async commit(revision: string): Promise<string> {
    if (!/^[\w./~^@{}:-]{1,200}$/.test(revision) || revision.startsWith('-')) {
      throw new Error(`${revision} is not a revision git can read (use a commit id, a branch name, or HEAD~1).`);
    }
    try {
      const { text } = await this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`]);
      return text.trim();
    } catch {
      throw new Error(`No commit ${revision} in this repository; find one with git_log.`);
    }
  }

  /** Git recent enough for the settings above, and a repository whose top level holds the workspace. */
  private checked(): Promise<void> {
    this.version ??= (async () => {
      const version = await this.spawn(['version'], []);
      const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(version.stdout) ?? []).slice(1).map(Number);
      if (version.code !== 0) throw new Error('git is not installed or could not start here.');
      if (major < MIN_VERSION[0] || (major === MIN_VERSION[0] && minor < MIN_VERSION[1])) {
        throw new Error(`git ${major}.${minor} is too old to be run safely here (${MIN_VERSION.join('.')} or later is needed).`);
      }
    })();
    // A failed check is asked again next time (git may be installed meanwhile).
    this.version.catch(() => (this.version = undefined));
    return this.version.then(async () => {
      const top = await this.spawn(['rev-parse', '--show-toplevel'], []);
      if (top.code !== 0) throw new Error(gitError(top.stderr, 'rev-parse'));
      const relative = nodePath.relative(nodePath.resolve(top.stdout.trim()), nodePath.resolve(this.root));
      if (relative.startsWith('..') || nodePath.isAbsolute(relative)) {
        throw new Error('The repository here keeps its working tree outside the workspace folder; git is not read.');
      }
    });
  }

  /** The filter drivers (`filter.<name>.*`) the repository's and the person's config name. */
  private async filterDrivers(): Promise<Set<string>> {
    const listed = await this.spawn(['config', '--null', '--get-regexp', '^filter\\.'], []);
    const names = new Set<string>();
    // Exit 1: none. Anything else unreadable would leave a filter in force, so it stops the call.
    if (listed.code !== 0 && listed.code !== 1) throw new Error(gitError(listed.stderr, 'config'));
    if (listed.truncated) throw new Error('This repository configures too many filters to read it safely.');
    for (const entry of listed.stdout.split('\0')) {
      const key = entry.split('\n', 1)[0];
      const last = key.lastIndexOf('.');
      if (key.startsWith('filter.') && last > 'filter.'.length) names.add(key.slice('filter.'.length, last));
    }
    return names;
  }

  private spawn(args: readonly string[], overrides: ReadonlyArray<readonly [string, string]>) {
    const env: Record<string, string> = { ...this.env, GIT_CONFIG_COUNT: String(overrides.length) };
    overrides.forEach(([key, value], i) => {
      env[`GIT_CONFIG_KEY_${i}`] = key;
      env[`GIT_CONFIG_VALUE_${i}`] = value;
    });
    const argv = ['--no-pager', '--literal-pathspecs', '--no-optional-locks', ...FIXED_CONFIG.flatMap((setting) => ['-c', setting]), ...args];
    return new Promise<{ code: number | null; stdout: string; stderr: string; truncated: boolean }>((resolve) => {
      const child = spawn(this.program, argv, { cwd: this.root, env, shell: false, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
      const out: Buffer[] = [];
      let size = 0;
      let truncated = false;
      let stderr = '';
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, this.timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = this.maxBytes - size;
        out.push(chunk.subarray(0, room));
        size += Math.min(room, chunk.length);
        if (chunk.length > room) {
          truncated = true;
          child.kill('SIGKILL');
        }
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 4000) stderr += chunk.toString('utf8');
      });
      const done = (code: number | null, failure?: Error) => {
        clearTimeout(timer);
        const text = Buffer.concat(out).toString('utf8');
        const why = timedOut ? `timed out after ${this.timeoutMs / 1000} s` : failure ? failure.message : stderr;
        resolve({ code: truncated ? 0 : timedOut ? -1 : code, stdout: text, stderr: why, truncated });
      };
      child.on('error', (error) => done(-1, error));
      child.on('close', (code) => done(code));
    });
  }
}

/** git's own complaint, first line, for the model. */
function gitError(stderr: string, command: string | undefined): string {
  const line = stderr.split('\n').find((l) => l.trim()) ?? 'no message';
  if (/not a git repository/i.test(line)) return 'The workspace is not a git repository; there is no history to read.';
  return `git ${command ?? ''} failed: ${line.replace(/^(fatal|error): /, '').slice(0, 300)}`;
}
