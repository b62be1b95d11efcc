import * as vscode from 'vscode';
import { forMarkdownPreview } from '../core/security/surfaceText';

/** VS Code's built-in Markdown support, whose preview renders a report. */
const MARKDOWN_EXTENSION = 'vscode.markdown-language-features';

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

  /**
   * Opens `markdown` as `<name>.md` rendered: the Markdown preview of the read-only document, as
   * VS Code opens a README (the ux review found history pages and chore previews shown as
   * Markdown source). Where the built-in Markdown extension is not there to render it, the
   * read-only document itself opens. Returns the document either way.
   */
  async show(name: string, markdown: string, options: vscode.TextDocumentShowOptions = { preview: true }): Promise<vscode.TextDocument> {
    const uri = vscode.Uri.from({ scheme: this.scheme, path: `/${name.replace(/[^\w .-]+/g, '-')}.md`, query: `${Date.now()}-${++this.opened}` });
    // Rendered by the preview: nothing in it may load or run (surfaceText.ts `forMarkdownPreview`).
    this.shown.set(uri.toString(), forMarkdownPreview(markdown));
    for (const key of [...this.shown.keys()].slice(0, Math.max(0, this.shown.size - KEPT))) this.shown.delete(key);
    const document = await vscode.languages.setTextDocumentLanguage(await vscode.workspace.openTextDocument(uri), 'markdown');
    const command = options.viewColumn === vscode.ViewColumn.Beside ? 'markdown.showPreviewToSide' : 'markdown.showPreview';
    // The built-in Markdown extension activates on a Markdown document, a few seconds after it
    // opens: its preview command is asked for only once it is active.
    const renderer = vscode.extensions.getExtension(MARKDOWN_EXTENSION);
    const active =
      renderer !== undefined &&
      (renderer.isActive ||
        (await Promise.resolve(renderer.activate()).then(
          () => true,
          () => false,
        )));
    const rendered =
      active &&
      (await vscode.commands.executeCommand(command, uri).then(
        () => true,
        () => false,
      ));
    if (!rendered) await vscode.window.showTextDocument(document, options);
    return document;
  }

  dispose(): void {
    this.registration.dispose();
  }
}
