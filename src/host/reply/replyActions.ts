import * as vscode from 'vscode';
import { joinRootPath, splitRootPath } from '../../core/approval/paths/workspaceRoots';
import { hostRoots } from '../workspaceFolders';
import { nodeFs } from '../../core/approval/paths/nodeFs';
import { resolveWorkspacePath } from '../../core/approval/paths/pathGuard';
import type { Logger } from '../../core/ports';
import { vscodeLink } from '../../shared/linkPolicy';
import type { ReplyWebviewMessage } from '../../shared/replyProtocol';
import { notice } from '../notice';

/** What Propose as Edit needs from the approvals: one pending change set, shown as a card. */
export interface UserEditProposer {
  /** Proposes `after` as the new content of the workspace-relative `path`; returns the change set id. */
  proposeUserEdit(input: { sessionId: string; path: string; after: string }): Promise<string>;
}

/**
 * Whether a reply's link may be opened outside; the webview checks too, this is the host's own
 * check: http(s), and of `vscode:` links only Tasklane's own (src/shared/linkPolicy.ts).
 */
function mayOpen(url: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what must be stripped
  const href = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  return /^https?:/i.test(href) || vscodeLink(href)?.kind === 'own';
}

/**
 * Carries out what a rendered reply's links and code-block buttons ask for. Nothing here writes
 * a file directly: Insert at Cursor edits the open editor (undoable, unsaved, like typing), and
 * Propose as Edit makes a change set that waits for approval like a task's edit.
 */
export class ReplyActions {
  constructor(
    private readonly logger: Logger,
    private readonly proposer: UserEditProposer | undefined,
  ) {}

  async handle(message: ReplyWebviewMessage): Promise<undefined> {
    try {
      switch (message.type) {
        case 'reply.openLink':
          if (!mayOpen(message.url)) throw new Error(`links like ${message.url.slice(0, 80)} are not opened from replies`);
          await vscode.env.openExternal(vscode.Uri.parse(message.url, true));
          break;
        case 'reply.openFile':
          await this.openFile(message.path, message.line, message.column);
          break;
        case 'reply.copy':
          await vscode.env.clipboard.writeText(message.text);
          break;
        case 'reply.insert':
          await this.insert(message.text);
          break;
        case 'reply.propose':
          await this.propose(message.text, message.path, message.sessionId);
          break;
      }
    } catch (error) {
      void vscode.window.showWarningMessage(notice`Tasklane: ${(error as Error).message}`);
      this.logger.warn('HOST', `${message.type} failed: ${(error as Error).message}`);
    }
    return undefined;
  }

  /** Resolves a path from a reply through the workspace path guard (no `..`, no symlink out). */
  private async resolve(path: string): Promise<{ uri: vscode.Uri; relativePath: string; exists: boolean }> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.length === 0) throw new Error('open a folder first: file links in replies open files of the workspace');
    // A reply's paths are workspace paths: `<folder>/<path>` when several folders are open (workspaceRoots.ts).
    const { roots } = hostRoots(folders);
    const split = splitRootPath(roots, path);
    if ('error' in split) throw new Error(`${path} is not a file in this workspace, so it was not opened`);
    const resolved = await resolveWorkspacePath(split.root.path, split.relative, nodeFs, { caseInsensitive: process.platform !== 'linux' });
    if (!resolved.ok) throw new Error(`${path} is not a file in this workspace, so it was not opened`);
    return { uri: vscode.Uri.file(resolved.absolutePath), relativePath: joinRootPath(roots, split.root, resolved.relativePath), exists: resolved.exists };
  }

  private async openFile(path: string, line?: number, column?: number): Promise<void> {
    const target = await this.resolve(path);
    if (!target.exists) throw new Error(`${path} does not exist in this workspace`);
    const position = new vscode.Position(Math.max(0, (line ?? 1) - 1), Math.max(0, (column ?? 1) - 1));
    await vscode.window.showTextDocument(target.uri, { preview: true, ...(line ? { selection: new vscode.Range(position, position) } : {}) });
  }

  private editor(): vscode.TextEditor {
    // Focus is in the sidebar, so the editor the person was in is the active one (or the first visible).
    const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
    if (!editor) throw new Error('open a file and place the cursor where the code should go, then try again');
    return editor;
  }

  private async insert(text: string): Promise<void> {
    const editor = this.editor();
    const ok = await editor.edit((builder) => {
      for (const selection of editor.selections) builder.replace(selection, text);
    });
    if (!ok) throw new Error(`VS Code refused to insert into ${vscode.workspace.asRelativePath(editor.document.uri)} (is it read-only?)`);
  }

  private async propose(text: string, path: string | undefined, sessionId: string | undefined): Promise<void> {
    if (!this.proposer) throw new Error('proposed edits need an open folder');
    let relativePath: string;
    let after: string;
    if (path) {
      // The block names its file: it is the file's new content.
      relativePath = (await this.resolve(path)).relativePath;
      after = text;
    } else {
      // Otherwise it replaces the selection of the active editor (or goes in at its cursor).
      const editor = this.editor();
      relativePath = (await this.resolve(editor.document.uri.fsPath)).relativePath;
      const document = editor.document;
      const selection = editor.selection;
      const start = document.offsetAt(selection.start);
      const end = document.offsetAt(selection.end);
      const current = document.getText();
      after = current.slice(0, start) + text + current.slice(end);
    }
    const id = await this.proposer.proposeUserEdit({ sessionId: sessionId ?? 'user', path: relativePath, after });
    this.logger.info('HOST', `proposed a reply's code block as an edit of ${relativePath} (change set ${id})`);
  }
}
