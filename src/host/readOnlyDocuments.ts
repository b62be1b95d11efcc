import * as vscode from 'vscode';

/** How many shown documents each scheme keeps; an older tab reopened shows empty, which is honest enough. */
const KEPT = 20;

/**
 * Reports opened as views, not drafts: Markdown documents under a scheme of Tasklane's own, whose
 * text this provider holds. VS Code shows them read-only, and closing one never asks to save it
 * (an Untitled document made with `openTextDocument({ content })` would). Each open gets a new
 * URI, since VS Code caches a document per URI and a report moves on between opens.
 */
export class ReadOnlyDocuments implements vscode.Disposable {
  private readonly shown = new Map<string, string>();
  private readonly registration: vscode.Disposable;
  private opened = 0;

  constructor(private readonly scheme: string) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(scheme, {
      provideTextDocumentContent: (uri) => this.shown.get(uri.toString()) ?? '',
    });
  }

  /** Opens `markdown` as `<name>.md` (the tab's title) and returns the document shown. */
  async show(name: string, markdown: string, options: vscode.TextDocumentShowOptions = { preview: true }): Promise<vscode.TextDocument> {
    const uri = vscode.Uri.from({ scheme: this.scheme, path: `/${name.replace(/[^\w .-]+/g, '-')}.md`, query: `${Date.now()}-${++this.opened}` });
    this.shown.set(uri.toString(), markdown);
    for (const key of [...this.shown.keys()].slice(0, Math.max(0, this.shown.size - KEPT))) this.shown.delete(key);
    const document = await vscode.languages.setTextDocumentLanguage(await vscode.workspace.openTextDocument(uri), 'markdown');
    await vscode.window.showTextDocument(document, options);
    return document;
  }

  dispose(): void {
    this.registration.dispose();
  }
}
