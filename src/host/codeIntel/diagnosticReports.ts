/**
 * Listening to the language servers' reports (`languages.onDidChangeDiagnostics`) on a few files,
 * and giving files a tab so the servers check them. VS Code fires the event when a file's problems
 * change, not when a clean file stays clean, so a file with no report is either unchecked or clean.
 */
import * as vscode from 'vscode';

/** Quiet time after a language server's report before the problems are read (a server reports syntax, then types). */
const QUIET_MS = 300;

export class DiagnosticReports {
  private readonly watched: Set<string>;
  private readonly seen = new Set<string>();
  private readonly waiters = new Set<() => void>();
  private readonly listener: vscode.Disposable;
  private last = 0;
  private closed = false;

  constructor(uris: readonly vscode.Uri[]) {
    this.watched = new Set(uris.map((u) => u.toString()));
    this.listener = vscode.languages.onDidChangeDiagnostics((event) => {
      const hits = event.uris.map((u) => u.toString()).filter((u) => this.watched.has(u));
      if (!hits.length) return;
      for (const u of hits) this.seen.add(u);
      this.last = Date.now();
      for (const wake of this.waiters) wake();
    });
  }

  /** Forgets the reports so far (what follows is the servers' answer to the change). */
  reset(): void {
    this.seen.clear();
    this.last = 0;
  }

  heard(uri: vscode.Uri): boolean {
    return this.seen.has(uri.toString());
  }

  /** Resolves once every one of `uris` was reported on and the reports went quiet, or at `timeoutMs`. */
  quiet(uris: readonly vscode.Uri[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const check = () => {
        if (timer) clearTimeout(timer);
        const now = Date.now();
        if (now >= deadline || this.closed) return finish();
        const all = uris.every((u) => this.heard(u));
        // Everything reported: done after a quiet spell. Else wait for more, until the deadline.
        const wait = all ? Math.max(0, this.last + QUIET_MS - now) : deadline - now;
        if (all && wait === 0) return finish();
        timer = setTimeout(check, Math.min(wait, deadline - now));
      };
      const finish = () => {
        if (timer) clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
      check();
    });
  }

  dispose(): void {
    this.closed = true;
    this.listener.dispose();
    for (const wake of [...this.waiters]) wake();
    this.waiters.clear();
  }
}

/** The URIs shown in a tab of any editor group. */
function inTabs(): Set<string> {
  const out = new Set<string>();
  for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) if (tab.input instanceof vscode.TabInputText) out.add(tab.input.uri.toString());
  return out;
}

/**
 * Gives these files (those that exist and no tab shows) a tab in the background, which is what
 * VS Code's TypeScript features check (they ask the server about files open in a tab, not about
 * every loaded document): each is opened without taking focus, and the editor the person was on
 * is brought back to the front at once, so the new tabs sit behind it. Returns what it opened,
 * for `closeTabs` once the problems are read.
 */
export async function openInBackground(uris: readonly vscode.Uri[]): Promise<vscode.Uri[]> {
  const shown = inTabs();
  const front = vscode.window.activeTextEditor;
  const out: vscode.Uri[] = [];
  for (const uri of uris) {
    if (shown.has(uri.toString())) continue;
    try {
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(document, { preview: false, preserveFocus: true });
      out.push(uri);
    } catch {
      // Missing (a file the change creates, opened after it) or not text: nothing to check.
    }
  }
  if (out.length && front)
    await vscode.window
      .showTextDocument(front.document, { viewColumn: front.viewColumn, preserveFocus: true, preview: false })
      .then(undefined, () => undefined);
  return out;
}

/** Closes the tabs `openInBackground` opened (not one the person opened since, or changed). */
export async function closeTabs(uris: readonly vscode.Uri[]): Promise<void> {
  const wanted = new Set(uris.map((u) => u.toString()));
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputText && wanted.has(t.input.uri.toString()) && !t.isDirty && !t.isActive);
  if (tabs.length) await vscode.window.tabGroups.close(tabs, true).then(undefined, () => undefined);
}
