/**
 * What the person sees before trusting an MCP server a repository ships, and what their consent
 * binds to (review 2026-12b findings 2 and 6). Everything that decides what runs is shown: the
 * command, each argument, the working folder, every `env` entry (variables that change which
 * program or library loads, such as PATH, NODE_OPTIONS, LD_PRELOAD, DYLD_* or PYTHONPATH, are
 * flagged), and each workspace file the command line names, with a hash of its content. The
 * consent hash is taken over exactly that, so a pull that rewrites `tools/server.cjs` asks again,
 * and a Trust click binds to the review that was on screen, not to the file at the click.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { showInvisible } from '../../shared/visibleText';
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
    ].join('\n');
    return { text, loaderVariables: [], localFiles: [], hash: definitionHash({ definition: def.hash }) };
  }
  const cwd = path.resolve(workspace, def.cwd ?? '.');
  const files: Array<{ path: string; sha256: string }> = [];
  for (const candidate of [def.command, ...def.args].slice(0, MAX_FILE_CANDIDATES + 1)) {
    const value = candidate.startsWith('-') ? candidate.slice(candidate.indexOf('=') + 1 || candidate.length) : candidate;
    if (!value) continue;
    const absolute = path.resolve(cwd, value);
    const relative = path.relative(workspace, absolute);
    if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
    const sha256 = contentHash(absolute);
    if (sha256 && !files.some((f) => f.path === relative)) files.push({ path: relative.split(path.sep).join('/'), sha256 });
  }
  const envNames = Object.keys(def.env).sort();
  const loaderVariables = envNames.filter(isLoaderVariable);
  const lines = [
    `Command: ${showInvisible(def.command)}`,
    `Arguments: ${def.args.length ? def.args.map((a) => showInvisible(JSON.stringify(a))).join(' ') : '(none)'}`,
    `Working folder: ${def.cwd ? showInvisible(def.cwd) : 'the workspace folder'}`,
    envNames.length ? 'Environment it sets (on top of a minimal one without your keys):' : 'Environment: a minimal one without your keys (it sets none)',
    ...envNames.map(
      (name) => `  ${showInvisible(name)}=${showInvisible(def.env[name] ?? '')}${isLoaderVariable(name) ? '   ⚠ changes which program or library loads' : ''}`,
    ),
    ...(files.length
      ? [
          'Workspace files it runs (their content is part of what you trust):',
          ...files.map((f) => `  ${showInvisible(f.path)} (sha256 ${f.sha256.slice(0, 16)}…)`),
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
