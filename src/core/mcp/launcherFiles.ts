/**
 * Workspace files a server's launcher runs without naming them on the command line: `npx pkg`
 * (and `npm exec`, `pnpm dlx`, `yarn dlx`, `bunx`) runs a package the workspace has installed
 * before it downloads one, `npm run name` (and `pnpm`/`yarn`/`bun run`) runs a script written in the
 * workspace's package.json, and `python -m name` runs `name.py` (or `name/__main__.py`) from the
 * working folder first. The Trust review hashes them like a script named directly, so a pull that
 * rewrites one asks again (`mcpReview.ts`).
 *
 * Each is where the launcher looks first; this does not follow what those files go on to load.
 *
 * Launchers and runtimes also read configuration from the workspace that decides what they run
 * (review 2026-12c finding 5): npm's `.npmrc` `node-options=--require ./x.cjs` loads repository
 * code into any server `npx` starts, and `registry=` fetches "pinned" versions from elsewhere.
 * `LAUNCHER_CONFIG` is the one table of those files per launcher; `launcherConfigFiles` finds them
 * from the working folder up to the workspace folder, and the review shows and hashes each, so a
 * pull that adds or rewrites one asks again.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** What a launcher runs from the workspace: the files to hash, and a line that says why. */
export interface LauncherFiles {
  files: string[];
  /** Shown in the review under the command, e.g. "runs the package.json script start". */
  note: string;
}

const PACKAGE_RUNNERS = new Set(['npx', 'pnpx', 'bunx']);
const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const PYTHON = /^python(\d+(\.\d+)?)?$/;
/** npm's verbs that run a package.json script of the same name. */
const NPM_SCRIPT_VERBS = new Set(['start', 'test', 'stop', 'restart']);

/**
 * The workspace files each family of launchers reads to decide what runs, looked for in the working
 * folder and every folder above it up to the workspace folder. A launcher not listed reads none
 * that we know of (its own command line and files named on it are reviewed as for any command).
 */
export const LAUNCHER_CONFIG: ReadonlyArray<{ programs: readonly string[]; files: readonly string[] }> = [
  {
    // npm, pnpm, yarn and bun read their rc files (node-options, registry, script-shell, hooks).
    programs: ['npx', 'npm', 'pnpx', 'pnpm', 'yarn', 'bun', 'bunx'],
    files: ['.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', 'pnpm-workspace.yaml', 'bunfig.toml', 'package.json'],
  },
  // pip.conf sets index-url; pyproject.toml and uv.toml set indexes, scripts and sources for uv.
  {
    programs: ['python', 'pip', 'pip3', 'pipx', 'uv', 'uvx', 'poetry'],
    files: ['pip.conf', 'pyproject.toml', 'setup.cfg', 'uv.toml', 'poetry.toml', '.python-version'],
  },
  { programs: ['deno'], files: ['deno.json', 'deno.jsonc', 'import_map.json'] },
  // Cargo's config can set a rustc wrapper or a runner; a toolchain file picks the compiler.
  { programs: ['cargo'], files: ['.cargo/config.toml', '.cargo/config', 'rust-toolchain.toml', 'rust-toolchain'] },
  // go.mod's toolchain line downloads and runs another Go; go.work replaces modules.
  { programs: ['go'], files: ['go.mod', 'go.work'] },
  { programs: ['bundle', 'ruby'], files: ['Gemfile', '.bundle/config', '.ruby-version'] },
  { programs: ['docker'], files: ['compose.yaml', 'compose.yml', 'docker-compose.yml', 'docker-compose.yaml', '.env'] },
];

/** Settings in a config file that change what loads or where code comes from; flagged in the review. */
const RISKY_SETTING =
  /^\s*(node-options|nodeOptions|registry|@[^=:\s]+:registry|npmRegistryServer|script-shell|scriptShell|userconfig|globalconfig|init-module|onload-script|yarnPath|index-url|extra-index-url|rustc-wrapper|runner|toolchain)\b/im;

/** The launcher config files `command` reads, from `cwd` up to `workspace`, that exist. */
export function launcherConfigFiles(command: string, cwd: string, workspace: string): string[] {
  const program = programName(command);
  const family = LAUNCHER_CONFIG.find((f) => f.programs.includes(program) || (program.startsWith('python') && f.programs.includes('python')));
  if (!family) return [];
  const found: string[] = [];
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    if (path.relative(workspace, dir).startsWith('..')) break;
    for (const name of family.files) {
      const file = path.join(dir, name);
      if (fs.existsSync(file)) found.push(file);
    }
    if (dir === workspace || dir === path.dirname(dir)) break;
  }
  return found;
}

/** Whether a config file sets something that changes what loads (node-options, a registry, a wrapper…). */
export function setsRiskyConfig(file: string): boolean {
  try {
    return RISKY_SETTING.test(fs.readFileSync(file, 'utf8').slice(0, 256 * 1024));
  } catch {
    return false;
  }
}

/** The launcher's own name: `/usr/bin/npx.cmd` → `npx`. */
function programName(command: string): string {
  return command
    .replace(/^.*[\\/]/, '')
    .replace(/\.(exe|cmd|bat)$/i, '')
    .toLowerCase();
}

/** The first argument that is not a flag. */
const firstOperand = (args: readonly string[]) => args.find((a) => !a.startsWith('-'));

/** `@scope/name@1.2.3` → `@scope/name`; `name@^1` → `name`. */
function packageName(spec: string): string {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at > 0 ? spec.slice(0, at) : spec;
}

/** The nearest `node_modules/<name>` from `cwd` up to `workspace`, as npm resolves an installed package. */
function installedPackage(name: string, cwd: string, workspace: string): string | undefined {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === workspace || path.relative(workspace, dir).startsWith('..') || dir === path.dirname(dir)) return undefined;
  }
}

/** The files of an installed package that decide what its bin runs: package.json and each bin entry. */
function packageBinFiles(dir: string): string[] {
  const manifest = path.join(dir, 'package.json');
  try {
    const { bin } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { bin?: string | Record<string, string> };
    const entries = typeof bin === 'string' ? [bin] : Object.values(bin ?? {});
    return [manifest, ...entries.filter((e) => typeof e === 'string').map((e) => path.resolve(dir, e))];
  } catch {
    return [manifest];
  }
}

/** The workspace files `command args`, started in `cwd`, runs through its launcher; undefined for any other command. */
export function launcherFiles(command: string, args: readonly string[], cwd: string, workspace: string): LauncherFiles | undefined {
  const program = programName(command);
  let rest = [...args];
  if (PACKAGE_MANAGERS.has(program)) {
    const verb = firstOperand(rest);
    if (verb === undefined) return undefined;
    const after = rest.slice(rest.indexOf(verb) + 1);
    if (!['exec', 'dlx', 'x'].includes(verb)) {
      // `npm run name` and `npm start`; `yarn name`, `pnpm name` and `bun name` run a script too.
      const script = verb === 'run' || verb === 'run-script' ? firstOperand(after) : program !== 'npm' || NPM_SCRIPT_VERBS.has(verb) ? verb : undefined;
      return script ? { files: [path.join(cwd, 'package.json')], note: `runs the package.json script "${script}"` } : undefined;
    }
    rest = after;
  } else if (PYTHON.test(program)) {
    const module = rest[rest.indexOf('-m') + 1];
    if (!rest.includes('-m') || !module) return undefined;
    const base = path.join(cwd, ...module.split('.'));
    return { files: [`${base}.py`, path.join(base, '__main__.py'), path.join(base, '__init__.py')], note: `runs the module ${module} from its working folder` };
  } else if (!PACKAGE_RUNNERS.has(program)) {
    return undefined;
  }
  // `npx -p pkg bin`, `npx --package=pkg bin`, or `npx pkg`: the packages it would run.
  const packages: string[] = [];
  let named = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    if (arg === '-p' || arg === '--package') packages.push(rest[++i] ?? '');
    else if (arg.startsWith('--package=')) packages.push(arg.slice('--package='.length));
    else if (!arg.startsWith('-') && !named) {
      named = true;
      if (!packages.length) packages.push(arg);
    }
  }
  const installed = packages.flatMap((p) => {
    const dir = p ? installedPackage(packageName(p), cwd, workspace) : undefined;
    return dir ? packageBinFiles(dir) : [];
  });
  return installed.length ? { files: installed, note: `runs ${packages.join(', ')} as installed in the workspace's node_modules` } : undefined;
}
