import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import { hostRoots } from '../workspaceFolders';
import { ATTACHMENT_MAX_CHARS } from '../../shared/contextProtocol';
import type { AttachmentView } from '../../shared/contextProtocol';
import type { McpContext } from '../../core/mcp/mcpContext';
import { pickMcpContext } from './mcpContextPick';
import { toListing } from '../../core/ports';
import type { WorkspacePort } from '../../core/ports';

/** Files offered at most: a quick pick filters them as the person types, and 200,000 stay responsive. */
const MAX_PICKED_FILES = 200_000;

/** The MCP part of the picker, once the store is open: whether a server may run, and its context. */
export interface McpContextSource {
  context: McpContext;
  /** True when at least one trusted server may run (else the MCP entry is not offered). */
  available(): boolean;
}

/**
 * What `@` in the sidebar's input (and `Tasklane: Add to Tasklane`) attaches. The picker is VS
 * Code's own quick pick: fuzzy, keyboard-first and themed like the rest of the workbench, which a
 * list drawn inside the webview would only imitate. The last terminal command's output is not
 * offered: shell integration only streams a command's output to a listener attached while it
 * runs, so "the last one" is not readable afterwards without recording every terminal.
 */
export class ContextPicker {
  /**
   * @param files the workspace's files as the read actions list them (ripgrep, .gitignore and the
   *   excludes; no cap at 5,000), once the store is open; before that, VS Code's file search.
   */
  constructor(
    private readonly trusted: () => boolean,
    private readonly mcp: () => McpContextSource | undefined = () => undefined,
    private readonly files: () => WorkspacePort | undefined = () => undefined,
  ) {}

  async pick(): Promise<AttachmentView | undefined> {
    const mcp = this.mcp();
    const offerMcp = mcp?.available() === true;
    const choice = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('$(file) File…'), source: 'file' as const, detail: vscode.l10n.t('A workspace file (type to search)') },
        {
          label: vscode.l10n.t('$(selection) Current selection'),
          source: 'selection' as const,
          detail: vscode.l10n.t('What is selected in the active editor'),
        },
        { label: vscode.l10n.t('$(warning) Problems'), source: 'problems' as const, detail: vscode.l10n.t('Errors and warnings of the workspace') },
        { label: vscode.l10n.t('$(git-compare) Working-tree changes'), source: 'diff' as const, detail: vscode.l10n.t('git diff of the files you changed') },
        ...(offerMcp
          ? [
              {
                label: vscode.l10n.t('$(plug) MCP resource or prompt…'),
                source: 'mcp' as const,
                detail: vscode.l10n.t('From a trusted MCP server (it starts if needed)'),
              },
            ]
          : []),
      ],
      { title: vscode.l10n.t('Tasklane: attach to the message'), placeHolder: vscode.l10n.t('What should Tasklane see with this message?') },
    );
    switch (choice?.source) {
      case 'file':
        return this.file();
      case 'selection':
        return selectionAttachment();
      case 'problems':
        return problemsAttachment();
      case 'diff':
        return this.diff();
      case 'mcp':
        return mcp ? pickMcpContext(mcp.context) : undefined;
      default:
        return undefined;
    }
  }

  private async file(): Promise<AttachmentView | undefined> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const workspace = this.files();
    // The listing's paths are workspace paths (`<folder>/<path>` with several folders): mapped back the one way.
    const roots = hostRoots(folders);
    const items =
      folders.length > 0 && workspace
        ? toListing(await workspace.listFiles('.', { recursive: true, limit: MAX_PICKED_FILES }), MAX_PICKED_FILES).paths.map((label) => ({
            label,
            uri: roots.uri(label),
          }))
        : (await vscode.workspace.findFiles('**/*', '{**/node_modules/**,**/.git/**}', MAX_PICKED_FILES)).map((uri) => ({
            label: vscode.workspace.asRelativePath(uri, false),
            uri,
          }));
    const pick = await vscode.window.showQuickPick(
      items.sort((a, b) => a.label.localeCompare(b.label)),
      { title: vscode.l10n.t('Tasklane: attach a file'), placeHolder: vscode.l10n.t('Type to search the workspace'), matchOnDescription: true },
    );
    if (!pick) return undefined;
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(pick.uri));
    return { kind: 'file', label: pick.label, text: clip(text) };
  }

  private async diff(): Promise<AttachmentView | undefined> {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!root || root.scheme !== 'file') throw new Error('the working-tree diff needs a local folder');
    // Git runs hooks and drivers a repository configures (fsmonitor, external diff, textconv):
    // never in an untrusted folder, and with those switched off in a trusted one.
    if (!this.trusted()) throw new Error('Restricted Mode: trust this folder before attaching its git diff');
    const text = await new Promise<string>((resolve, reject) =>
      execFile(
        'git',
        ['-c', 'core.fsmonitor=false', 'diff', '--no-ext-diff', '--no-textconv', '--no-color', 'HEAD'],
        { cwd: root.fsPath, maxBuffer: 8 * ATTACHMENT_MAX_CHARS },
        (error, stdout) => (error ? reject(new Error(`git diff failed: ${error.message}`)) : resolve(stdout)),
      ),
    );
    if (!text.trim()) throw new Error('there are no working-tree changes (git diff HEAD is empty)');
    return { kind: 'diff', label: 'Working-tree diff', text: clip(text) };
  }
}

/** The active editor's selection (the current line when nothing is selected). */
export function selectionAttachment(editor = vscode.window.activeTextEditor): AttachmentView {
  if (!editor) throw new Error('open a file and select some code first');
  const selection = editor.selection;
  const range = selection.isEmpty ? editor.document.lineAt(selection.active.line).range : selection;
  const path = vscode.workspace.asRelativePath(editor.document.uri, false);
  const lines = range.start.line === range.end.line ? `${range.start.line + 1}` : `${range.start.line + 1}-${range.end.line + 1}`;
  return { kind: 'selection', label: `${path}:${lines}`, text: clip(editor.document.getText(range)) };
}

function problemsAttachment(): AttachmentView {
  const severity = ['error', 'warning', 'info', 'hint'];
  const lines: string[] = [];
  for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
    for (const d of diagnostics) {
      if (d.severity > vscode.DiagnosticSeverity.Warning) continue;
      lines.push(
        `${vscode.workspace.asRelativePath(uri, false)}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${severity[d.severity]}: ${d.message}`,
      );
    }
  }
  return { kind: 'problems', label: `Problems (${lines.length})`, text: clip(lines.join('\n') || 'No errors or warnings.') };
}

function clip(text: string): string {
  return text.length > ATTACHMENT_MAX_CHARS ? `${text.slice(0, ATTACHMENT_MAX_CHARS - 40)}\n… (clipped at ${ATTACHMENT_MAX_CHARS} characters)` : text;
}
