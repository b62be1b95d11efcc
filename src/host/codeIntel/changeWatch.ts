/**
 * Getting the language servers to check the files an edit changes, and the files importing them,
 * though no tab shows them; what `VsCodeCodeIntel.watchDiagnostics` returns.
 *
 * VS Code's TypeScript features sync every loaded document to the TypeScript server but ask it for
 * problems only about the files shown in a tab (unless the person turned on its project-wide
 * diagnostics), so the Problems view knows nothing about a file the agent edited or created in the
 * background. Opening tabs for them was tried and reverted: a tab opened while the person works
 * can take their focus and keystrokes, and a document made dirty no longer reads as what was
 * applied (a later revert refuses). So no editor is ever shown here:
 * - every file is loaded with `workspace.openTextDocument` (no tab, never dirty: what a revert
 *   compares against is untouched), which is what makes most language servers check a file;
 * - for JavaScript and TypeScript the TypeScript server is asked directly, through the command the
 *   TypeScript features offer for it (`typescript.tsserverRequest`, syntactic and semantic
 *   diagnostics), before the change and after it; an answer with no problem counts as checked;
 * - other servers are heard through `languages.onDidChangeDiagnostics`, and a file none reported
 *   on within the bound is named (VS Code says nothing about a clean file that stays clean).
 * A person who switched `typescript.validate.enable` (or `javascript.…`) off is not overridden.
 */
import * as vscode from 'vscode';
import type { CodeDiagnostic, DiagnosticsWatch, DiagnosticSeverity } from '../../core/codeIntel/codeIntelPort';

/** Quiet time after a language server's report before the problems are read (a server reports syntax, then types). */
const QUIET_MS = 300;
/**
 * How long the TypeScript server may take to check the files before the change. A file it did not
 * answer for in time is compared through the Problems view alone, before and after, so an old
 * problem is never blamed on the edit.
 */
const PRE_CHECK_MS = 2000;
const TS_EXTENSION = 'vscode.typescript-language-features';
const TS_LANGUAGES: Record<string, 'typescript' | 'javascript'> = {
  typescript: 'typescript',
  typescriptreact: 'typescript',
  javascript: 'javascript',
  javascriptreact: 'javascript',
};

/** One diagnostic as the TypeScript server's protocol gives it (lines and offsets from 1). */
interface TsDiagnostic {
  start: { line: number; offset: number };
  text: string;
  code?: number;
  category: string;
  source?: string;
}

const TS_SEVERITY: Record<string, DiagnosticSeverity> = { error: 'error', warning: 'warning', suggestion: 'hint', message: 'info' };

/** How the watch reaches the workspace (`VsCodeCodeIntel`'s own mapping, so paths mean one thing). */
export interface WatchedFiles {
  uri(path: string): vscode.Uri;
  /** The Problems view's entries for these files, workspace-relative. */
  diagnostics(paths: readonly string[]): Promise<CodeDiagnostic[]>;
}

export class ChangeWatch implements DiagnosticsWatch {
  private readonly heard = new Set<string>();
  private readonly waiters = new Set<() => void>();
  private readonly listener: vscode.Disposable;
  /** The TypeScript server's latest answer per file. */
  private readonly tsAnswers = new Map<string, CodeDiagnostic[]>();
  /** Files the TypeScript server is asked about after the change (it answered before, or they did not exist). */
  private readonly tsChecked = new Set<string>();
  private last = 0;
  private closed = false;

  private constructor(
    private readonly files: WatchedFiles,
    private readonly changed: readonly string[],
    readonly importers: readonly string[],
  ) {
    const watched = new Set([...changed, ...importers].map((p) => files.uri(p).toString()));
    this.listener = vscode.languages.onDidChangeDiagnostics((event) => {
      const hits = event.uris.map(String).filter((u) => watched.has(u));
      if (!hits.length) return;
      for (const u of hits) this.heard.add(u);
      this.last = Date.now();
      for (const wake of [...this.waiters]) wake();
    });
  }

  /** Loads the files and has the TypeScript server check those it checks, before the change. */
  static async start(files: WatchedFiles, changed: readonly string[], importers: readonly string[]): Promise<ChangeWatch> {
    const watch = new ChangeWatch(files, changed, importers);
    const deadline = Date.now() + PRE_CHECK_MS;
    await Promise.all(
      [...changed, ...importers].map(async (p) => {
        const document = await load(files.uri(p));
        // Absent (a file the change creates): nothing before, so whatever is reported after is new.
        if (!document) return watch.tsChecked.add(p);
        if (await watch.askTs(p, document, deadline)) watch.tsChecked.add(p);
      }),
    );
    return watch;
  }

  async problems(): Promise<CodeDiagnostic[]> {
    const paths = [...this.changed, ...this.importers];
    const out: CodeDiagnostic[] = [];
    const seen = new Set<string>();
    // The Problems view first (other servers, and TypeScript's own for a file in a tab), then the
    // server's direct answer; a problem both give is listed once.
    for (const d of [...(await this.files.diagnostics(paths)), ...paths.flatMap((p) => (this.tsChecked.has(p) ? (this.tsAnswers.get(p) ?? []) : []))]) {
      const id = `${d.path}:${d.line}:${d.column}:${d.severity}:${d.code ?? ''}:${d.message}`;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(d);
    }
    return out;
  }

  async settled(timeoutMs: number): Promise<{ unreported: readonly string[] }> {
    const deadline = Date.now() + timeoutMs;
    // What the servers say from now on is their answer to the change.
    this.heard.clear();
    this.last = 0;
    const all = [...this.changed, ...this.importers];
    await Promise.all(
      all.map(async (p) => {
        const document = await load(this.files.uri(p));
        if (document && this.tsChecked.has(p)) await this.askTs(p, document, deadline);
      }),
    );
    await this.quiet(deadline);
    return { unreported: this.changed.filter((p) => !this.heard.has(this.files.uri(p).toString())) };
  }

  dispose(): void {
    this.closed = true;
    this.listener.dispose();
    for (const wake of [...this.waiters]) wake();
  }

  /** The TypeScript server's syntactic and semantic problems of one file, by `deadline`; false when it gave none. */
  private async askTs(path: string, document: vscode.TextDocument, deadline: number): Promise<boolean> {
    const language = TS_LANGUAGES[document.languageId];
    if (!language || !vscode.workspace.getConfiguration(language, document.uri).get<boolean>('validate.enable', true)) return false;
    const ask = async (): Promise<CodeDiagnostic[] | undefined> => {
      const extension = vscode.extensions.getExtension(TS_EXTENSION);
      if (!extension) return undefined;
      await extension.activate();
      const found: CodeDiagnostic[] = [];
      for (const command of ['syntacticDiagnosticsSync', 'semanticDiagnosticsSync']) {
        const answer = await vscode.commands.executeCommand<{ success?: boolean; body?: TsDiagnostic[] } | undefined>('typescript.tsserverRequest', command, {
          file: document.uri,
        });
        if (!answer?.success || !Array.isArray(answer.body)) return undefined;
        for (const d of answer.body)
          found.push({
            path,
            line: d.start.line,
            column: d.start.offset,
            severity: TS_SEVERITY[d.category] ?? 'info',
            message: d.text,
            source: d.source ?? 'ts',
            ...(d.code !== undefined ? { code: String(d.code) } : {}),
          });
      }
      return found;
    };
    const answer = await within(
      ask().catch(() => undefined),
      deadline - Date.now(),
    );
    if (!answer) return false;
    this.tsAnswers.set(path, answer);
    this.heard.add(this.files.uri(path).toString());
    return true;
  }

  /** Resolves once every changed file was heard from and the reports went quiet, or at `deadline`. */
  private quiet(deadline: number): Promise<void> {
    const uris = this.changed.map((p) => this.files.uri(p).toString());
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        if (timer) clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const check = () => {
        if (timer) clearTimeout(timer);
        const now = Date.now();
        if (now >= deadline || this.closed) return finish();
        // Everything heard: done after a quiet spell (another server may still be speaking). Else wait for more.
        const wait = uris.every((u) => this.heard.has(u)) ? Math.max(0, this.last + QUIET_MS - now) : deadline - now;
        if (wait === 0) return finish();
        timer = setTimeout(check, Math.min(wait, deadline - now));
      };
      this.waiters.add(check);
      check();
    });
  }
}

/** The file as a loaded document (no editor), or undefined when it does not exist or is not text. */
async function load(uri: vscode.Uri): Promise<vscode.TextDocument | undefined> {
  try {
    return await vscode.workspace.openTextDocument(uri);
  } catch {
    return undefined;
  }
}

/** `work`'s value, or undefined once `ms` passed first. */
async function within<T>(work: Promise<T | undefined>, ms: number): Promise<T | undefined> {
  if (ms <= 0) return undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
