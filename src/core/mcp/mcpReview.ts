/**
 * What the person sees before trusting an MCP server a repository ships, and what their consent
 * binds to (review 2026-12b findings 2 and 6). Everything that decides what runs is shown: the
 * command, each argument, the working folder, every `env` entry (variables that change which
 * program or library loads, such as PATH, NODE_OPTIONS, LD_PRELOAD, DYLD_* or PYTHONPATH, are
 * flagged), and each workspace file the command line or a loader variable names, that the
 * definition's own PATH resolves the command to, or that its launcher runs (an installed
 * package's bin, a package.json script, a Python module: `launcherFiles.ts`), with a hash of its
 * content. The
 * consent hash is taken over exactly that, so a pull that rewrites `tools/server.cjs` asks again,
 * and a Trust click binds to the review that was on screen, not to the file at the click.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { showInvisible } from '../../shared/visibleText';
import { launcherConfigFiles, launcherFiles, setsRiskyConfig } from './launcherFiles';
import { definitionHash } from './mcpConfig';
import type { McpServerDefinition } from './mcpConfig';

/** What the Trust dialog shows for one server, and the hash consent binds to. */
export interface McpServerReview {
  /** The text of the dialog: one fact per line. */
  text: string;
  /** Environment variables that change what loads (shown flagged in `text` too). */
  loaderVariables: string[];
  /** Workspace files the command line runs (relative paths), hashed into `hash`. */
  localFiles: string[];
  /** sha256 over what is shown: the definition and the content of each workspace file it names. */
  hash: string;
}

/** Variables that decide which program, interpreter module or library is loaded. */
const LOADER_VARIABLE =
  /^(PATH|PATHEXT|HOME|NODE_OPTIONS|NODE_PATH|NODE_EXTRA_CA_CERTS|ELECTRON_RUN_AS_NODE|LD_\w*|DYLD_\w*|PYTHON\w*|RUBYOPT|RUBYLIB|GEM_\w+|BUNDLE_GEMFILE|PERL5\w*|PERLLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH|BASH_ENV|ENV|ZDOTDIR|SHELLOPTS|NPM_CONFIG_\w+|GIT_\w+|DENO_\w+|GOFLAGS|CARGO_\w+|RUSTC_WRAPPER|COMSPEC)$/i;

/** Arguments looked at for workspace files (a longer command line is hashed, not opened further). */
const MAX_FILE_CANDIDATES = 32;
/** Bytes of a workspace file hashed; a longer one is hashed up to here plus its size. */
const MAX_HASHED_BYTES = 16 * 1024 * 1024;

/** Whether a variable changes which program or library loads. */
export function isLoaderVariable(name: string): boolean {
  return LOADER_VARIABLE.test(name);
}

/**
 * Reviews a definition. `workspace` is the workspace folder (a stdio server's default working
 * folder); `contentHash` hashes a file (cached by the caller); undefined means it is not a file.
 */
export function reviewMcpServer(
  def: McpServerDefinition,
  workspace: string,
  contentHash: (absolutePath: string) => string | undefined = fileContentHash,
): McpServerReview {
  if (def.transport === 'http') {
    const headers = Object.keys(def.headers).sort();
    const text = [
      `URL: ${showInvisible(def.url)}`,
      ...(headers.length ? [`Headers sent: ${headers.map((h) => showInvisible(h)).join(', ')} (values not shown)`] : []),
      ...(def.oauth
        ? [
            `Signs in as the OAuth client ${showInvisible(def.oauth.clientId)}${def.oauth.clientSecretEnv ? ` with the secret in $${def.oauth.clientSecretEnv} (value not shown)` : ''}`,
          ]
        : []),
    ].join('\n');
    return { text, loaderVariables: [], localFiles: [], hash: definitionHash({ definition: def.hash }) };
  }
  const cwd = path.resolve(workspace, def.cwd ?? '.');
  const files: Array<{ path: string; sha256: string }> = [];
  /** Hashes `absolute` into the review when it is a file inside the workspace; its relative path, if so. */
  const addFile = (absolute: string): string | undefined => {
    const relative = path.relative(workspace, absolute);
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    const sha256 = contentHash(absolute);
    if (!sha256) return undefined;
    const shown = relative.split(path.sep).join('/');
    if (!files.some((f) => f.path === shown)) files.push({ path: shown, sha256 });
    return shown;
  };
  const outside = (absolute: string) => {
    const relative = path.relative(workspace, absolute);
    return relative.startsWith('..') || path.isAbsolute(relative);
  };
  const envNames = Object.keys(def.env).sort();
  const loaderVariables = envNames.filter(isLoaderVariable);
  // The program that starts: a bare command is looked up in the PATH the definition gives the
  // process (relative entries from its working folder), so a repository's `.bin/npx` runs instead
  // of npx. A program found inside the workspace is shown and its content hashed like a script.
  const resolved = def.env.PATH !== undefined && !/[\\/]/.test(def.command) ? resolveOnPath(def.command, def.env.PATH, cwd) : undefined;
  const resolvedInWorkspace = resolved ? addFile(resolved) : undefined;
  // What a launcher runs from the workspace without naming it: an installed package's bin, a
  // package.json script, a Python module in the working folder.
  const launcher = launcherFiles(def.command, def.args, cwd, workspace);
  const launched = launcher?.files.flatMap((file) => addFile(file) ?? []) ?? [];
  // What the launcher reads from the workspace to decide what runs (.npmrc, pip.conf, …): shown and
  // hashed, so adding `node-options=--require ./x.cjs` to a trusted npx server asks again.
  const configs = launcherConfigFiles(def.command, cwd, workspace).flatMap((file) => {
    const shown = addFile(file);
    return shown ? [{ shown, risky: setsRiskyConfig(file) }] : [];
  });
  const candidates = [
    def.command,
    ...def.args,
    // Files a loader variable names (`--require ./preload.cjs`, `LD_PRELOAD=./x.so`) run too.
    ...loaderVariables.filter((name) => name !== 'PATH').flatMap((name) => (def.env[name] ?? '').split(/[\s:;,=]+/)),
  ];
  for (const candidate of candidates.slice(0, MAX_FILE_CANDIDATES + 1)) {
    const value = candidate.startsWith('-') ? candidate.slice(candidate.indexOf('=') + 1 || candidate.length) : candidate;
    if (value) addFile(path.resolve(cwd, value));
  }
  const shaOf = (shown: string) => files.find((f) => f.path === shown)?.sha256.slice(0, 16) ?? '';
  // A config file is listed once, as configuration; its hash is in `files` with the rest.
  const run = files.filter((f) => !configs.some((c) => c.shown === f.path));
  const lines = [
    `Command: ${showInvisible(def.command)}`,
    ...(resolved
      ? [
          resolvedInWorkspace
            ? `  ⚠ its PATH makes this the workspace file ${showInvisible(resolvedInWorkspace)}, not the ${showInvisible(def.command)} you may expect`
            : `  (its PATH makes this ${showInvisible(resolved)})`,
        ]
      : []),
    ...(launcher && launched.length ? [`  ⚠ it ${showInvisible(launcher.note)}: ${launched.map((f) => showInvisible(f)).join(', ')}`] : []),
    `Arguments: ${def.args.length ? def.args.map((a) => showInvisible(JSON.stringify(a))).join(' ') : '(none)'}`,
    `Working folder: ${def.cwd ? showInvisible(def.cwd) : 'the workspace folder'}${def.cwd && outside(cwd) ? `   ⚠ outside the workspace folder (${showInvisible(cwd)})` : ''}`,
    envNames.length ? 'Environment it sets (on top of a minimal one without your keys):' : 'Environment: a minimal one without your keys (it sets none)',
    ...envNames.map(
      (name) => `  ${showInvisible(name)}=${showInvisible(def.env[name] ?? '')}${isLoaderVariable(name) ? '   ⚠ changes which program or library loads' : ''}`,
    ),
    ...(configs.length
      ? [
          'Configuration its launcher reads from the workspace (part of what you trust):',
          ...configs.map(
            (c) =>
              `  ${showInvisible(c.shown)} (sha256 ${shaOf(c.shown)}…)${c.risky ? '   ⚠ sets what loads or where packages come from (node-options, a registry, a wrapper…)' : ''}`,
          ),
        ]
      : []),
    ...(run.length
      ? [
          'Workspace files it runs (their content is part of what you trust):',
          ...run.map((f) => `  ${showInvisible(f.path)} (sha256 ${f.sha256.slice(0, 16)}…)`),
        ]
      : []),
    ...(loaderVariables.length
      ? [
          '',
          `⚠ Warning: it sets ${loaderVariables.join(', ')}, which decide what program or library actually runs: the command above may not be the one that starts.`,
        ]
      : []),
  ];
  return {
    text: lines.join('\n'),
    loaderVariables,
    localFiles: files.map((f) => f.path),
    hash: definitionHash({ definition: def.hash, files }),
  };
}

/** The first file named `command` in the `PATH` entries (relative ones from `cwd`), as the process would run it. */
function resolveOnPath(command: string, pathValue: string, cwd: string): string | undefined {
  for (const dir of pathValue.split(path.delimiter).slice(0, MAX_FILE_CANDIDATES)) {
    if (!dir) continue;
    const candidate = path.resolve(cwd, dir, command);
    try {
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this entry
    }
  }
  return undefined;
}

/** sha256 of a regular file's content (up to MAX_HASHED_BYTES, then its size); undefined if it is not one. */
export function fileContentHash(absolutePath: string): string | undefined {
  let fd: number | undefined;
  try {
    const stat = fs.statSync(absolutePath);
    if (!stat.isFile()) return undefined;
    fd = fs.openSync(absolutePath, 'r');
    const hash = createHash('sha256');
    const buffer = Buffer.alloc(Math.min(stat.size, MAX_HASHED_BYTES));
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
    hash.update(buffer.subarray(0, read));
    if (stat.size > MAX_HASHED_BYTES) hash.update(`size:${stat.size}`);
    return hash.digest('hex');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Reviews with file hashes cached by path, size and modification time, so the frequent "may this
 * server run?" checks do not re-read its files; an edited file is hashed again.
 */
export class McpReviewer {
  private readonly cache = new Map<string, { key: string; sha256: string | undefined }>();

  constructor(private readonly workspace: string) {}

  review(def: McpServerDefinition): McpServerReview {
    return reviewMcpServer(def, this.workspace, (absolute) => this.hashOf(absolute));
  }

  private hashOf(absolute: string): string | undefined {
    let key: string;
    try {
      const stat = fs.statSync(absolute);
      if (!stat.isFile()) return undefined;
      key = `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
    } catch {
      return undefined;
    }
    const hit = this.cache.get(absolute);
    if (hit?.key === key) return hit.sha256;
    const sha256 = fileContentHash(absolute);
    this.cache.set(absolute, { key, sha256 });
    return sha256;
  }
}
