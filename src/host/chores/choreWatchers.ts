import * as path from 'node:path';
import * as vscode from 'vscode';
import { choresFilePath, costNoteDiagnostic, parseChoresFile } from '../../core/chores/choreFile';
import type { ChoresFileResult } from '../../core/chores/choreFile';
import type { FileProblems } from '../../core/chores/eventTriggers';
import type { FileChangeKind } from '../../core/chores/fireContext';
import type { ChoreDefinition, ChoreDiagnostic } from '../../core/chores/types';
import type { Logger } from '../../core/ports';

/**
 * The VS Code event sources behind chore triggers (diagnostics, git HEAD, file globs) and
 * chores.yaml itself (watched, read, its problems shown on the file), kept out of ChoreHost so it
 * only composes them. Each turns VS Code events into plain values for the core's debouncers and
 * parser; none decides whether a chore runs.
 */

/** A file's current error and warning counts, for the diagnostics trigger; none outside `root`. */
export function problemsOf(root: vscode.Uri | undefined, uri: vscode.Uri): FileProblems[] {
  if (!root || uri.scheme !== root.scheme || !uri.path.startsWith(`${root.path}/`)) return [];
  const diagnostics = vscode.languages.getDiagnostics(uri);
  const errors = diagnostics.filter((d) => d.severity === vscode.DiagnosticSeverity.Error);
  const warnings = diagnostics.filter((d) => d.severity === vscode.DiagnosticSeverity.Warning);
  const first = errors[0] ?? warnings[0];
  return [
    {
      path: vscode.workspace.asRelativePath(uri, false),
      errors: errors.length,
      warnings: warnings.length,
      ...(first ? { first: `line ${first.range.start.line + 1}: ${first.message}` } : {}),
    },
  ];
}

/** What a HEAD move looked like, for the git trigger. */
export interface HeadObservation {
  head: { commit: string | undefined; branch: string | undefined };
  /** The upstream's "behind" count dropped to 0 with this move: read as a pull. */
  pulled: boolean;
}

/**
 * Follows HEAD of the repository at `root` through the built-in git extension, which is activated
 * only once a git chore exists (`start` is idempotent).
 */
export class GitHeadWatcher implements vscode.Disposable {
  private watched = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly root: vscode.Uri | undefined,
    private readonly logger: Logger,
    private readonly onHead: (observation: HeadObservation) => void,
  ) {}

  async start(): Promise<void> {
    if (this.watched) return;
    const extension = vscode.extensions.getExtension<GitExtensionExports>('vscode.git');
    if (!extension) {
      this.logger.warn('CHORE', 'a chore has a git trigger but the built-in git extension is not available; it will not fire');
      return;
    }
    this.watched = true;
    const api = (extension.isActive ? extension.exports : await extension.activate()).getAPI(1);
    const follow = (repo: GitRepository) => {
      if (!this.root || repo.rootUri.toString() !== this.root.toString()) return;
      let behind = repo.state.HEAD?.behind ?? 0;
      const observe = () => {
        const head = repo.state.HEAD;
        const pulled = behind > 0 && (head?.behind ?? 0) === 0;
        behind = head?.behind ?? 0;
        this.onHead({ head: { commit: head?.commit, branch: head?.name }, pulled });
      };
      observe();
      this.disposables.push(repo.state.onDidChange(observe));
    };
    for (const repo of api.repositories) follow(repo);
    this.disposables.push(api.onDidOpenRepository(follow));
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
  }
}

/**
 * One FileSystemWatcher per glob of each files chore under `root`; `push` gets the relative path
 * and the kind of change. Returns the watchers and their listeners, to dispose on the next call.
 */
export function watchChoreGlobs(
  root: vscode.Uri | undefined,
  chores: readonly ChoreDefinition[],
  push: (choreId: string, path: string, change: FileChangeKind) => void,
): vscode.Disposable[] {
  const disposables: vscode.Disposable[] = [];
  if (!root) return disposables;
  for (const chore of chores) {
    if (chore.trigger.kind !== 'files') continue;
    for (const glob of chore.trigger.globs) {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(root, glob));
      const on = (change: FileChangeKind) => (uri: vscode.Uri) => push(chore.id, vscode.workspace.asRelativePath(uri, false), change);
      disposables.push(watcher, watcher.onDidChange(on('changed')), watcher.onDidCreate(on('created')), watcher.onDidDelete(on('deleted')));
    }
  }
  return disposables;
}

/** `.tasklane/chores.yaml` of the workspace folder `root`: watched, read and parsed, its problems shown on the file. */
export class ChoresFileSource implements vscode.Disposable {
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('tasklane-chores');

  constructor(
    private readonly root: vscode.Uri | undefined,
    private readonly logger: Logger,
  ) {}

  /** Where the file is; undefined when no folder is open. */
  uri(): vscode.Uri | undefined {
    return this.root ? vscode.Uri.joinPath(this.root, choresFilePath) : undefined;
  }

  /** Calls `onChange` when the file is created, changed or deleted; dispose what it returns. */
  watch(onChange: () => void): vscode.Disposable[] {
    if (!this.root) return [];
    // A glob, not the plain path: VS Code watches a plain relative path on its own, and that watch
    // dies with its folder, so a pull that removes or brings `.tasklane/` was never seen. A glob
    // rides the workspace's recursive watcher, and matching the folder too sees it go and come
    // back. Any match just re-reads the one file.
    const watcher = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(this.root, `**/${path.posix.dirname(choresFilePath)}{,/${path.posix.basename(choresFilePath)}}`),
    );
    return [watcher, watcher.onDidChange(onChange), watcher.onDidCreate(onChange), watcher.onDidDelete(onChange)];
  }

  /** The file's text; empty when there is none (no chores.yaml: no chores). */
  async read(): Promise<string> {
    const uri = this.uri();
    if (!uri) return '';
    try {
      return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch {
      return ''; // No chores.yaml: no chores.
    }
  }

  /**
   * Parses `text` as the file, shows its problems on it and logs what loaded. `costNote`: the
   * chores' model has no known price (chorePreview.ts `costEstimateNote`), shown on `chores:`.
   */
  parse(text: string, costNote?: string): ChoresFileResult {
    const loaded = parseChoresFile(text);
    const uri = this.uri();
    const cost = costNoteDiagnostic(text, loaded, costNote);
    if (uri) this.diagnostics.set(uri, [...loaded.diagnostics, ...(cost ? [cost] : [])].map(toDiagnostic));
    const errors = loaded.diagnostics.filter((d) => d.severity === 'error').length;
    this.logger.info(
      'CHORE',
      `chores.yaml: ${loaded.chores.length} chore(s) loaded${loaded.disabled.length ? `, disabled: ${loaded.disabled.join(', ')}` : ''}${errors ? ` (${errors} error(s))` : ''}`,
    );
    return loaded;
  }

  dispose(): void {
    this.diagnostics.dispose();
  }
}

/** A chores.yaml problem (1-based lines and columns) as a VS Code diagnostic. */
export function toDiagnostic(d: ChoreDiagnostic): vscode.Diagnostic {
  const range = new vscode.Range(d.line - 1, d.column - 1, d.endLine - 1, d.endColumn - 1);
  const diagnostic = new vscode.Diagnostic(range, d.message, d.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
  diagnostic.source = 'Tasklane chores';
  return diagnostic;
}

/** The part of the built-in git extension's API (`vscode.git`, API version 1) chores use. */
interface GitRepository {
  rootUri: vscode.Uri;
  state: { HEAD: { name?: string; commit?: string; behind?: number } | undefined; onDidChange: vscode.Event<void> };
}
interface GitExtensionExports {
  getAPI(version: 1): { repositories: GitRepository[]; onDidOpenRepository: vscode.Event<GitRepository> };
}
