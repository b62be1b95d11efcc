import * as vscode from 'vscode';

import { cutDetail, SHOW_ALL } from './dialogText';
import { forModalDetail, forNotification } from '../core/security/surfaceText';

const REVIEW_SCHEME = 'tasklane-review';

/**
 * The modal every decision of the person goes through (Trust, Enable, Approve, Create): it shows
 * what is decided in full, or its first MAX_DIALOG_DETAIL (dialogText.ts) characters with a line saying
 * how much is left and a "Show All" button that opens the whole text as a read-only document and
 * asks again. No dialog cuts text without saying so (review 2026-12b finding 16). Commands called
 * with arguments by another extension or an agent tool ask through here too (finding 14).
 */
export class ConsentDialogs implements vscode.Disposable {
  private readonly shown = new Map<string, string>();
  private readonly registration: vscode.Disposable;

  constructor() {
    // Read-only documents, never untitled ones that ask to be saved.
    this.registration = vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, {
      provideTextDocumentContent: (uri) => this.shown.get(uri.toString()) ?? '',
    });
  }

  /** Asks `question` with `detail` in a modal; true only when the person pressed `action`. */
  async confirm(question: string, detail: string, action: string, documentName: string): Promise<boolean> {
    const { shown, cut } = cutDetail(detail);
    for (;;) {
      const answer = await vscode.window.showWarningMessage(
        forNotification(question),
        { modal: true, detail: forModalDetail(shown) },
        action,
        ...(cut ? [SHOW_ALL] : []),
      );
      if (answer === action) return true;
      if (answer !== SHOW_ALL) return false;
      await this.open(documentName, `${question}\n\n${detail}\n`);
    }
  }

  private async open(name: string, text: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: REVIEW_SCHEME, path: `/${name.replace(/[^\w.-]+/g, '-')}.txt`, query: String(Date.now()) });
    this.shown.set(uri.toString(), text);
    for (const key of [...this.shown.keys()].slice(0, Math.max(0, this.shown.size - 10))) this.shown.delete(key);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
  }

  dispose(): void {
    this.registration.dispose();
  }
}
