import * as vscode from 'vscode';
import type { WorkspacePort } from '../core/ports';

const DEFAULT_EXCLUDE = '{**/node_modules/**,**/.git/**,**/dist/**,**/out/**}';

/**
 * Read-only workspace access through the VS Code API, so it works for remote and virtual file
 * systems too. Path policy (refusing anything outside the workspace) is applied by the core before
 * these are called; this adapter only resolves against the first workspace folder.
 */
export class VsCodeWorkspace implements WorkspacePort {
  constructor(private readonly root: vscode.Uri) {}

  async readFile(relativePath: string): Promise<string> {
    const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(this.root, relativePath));
    return new TextDecoder().decode(bytes);
  }

  async listFiles(relativeDir: string, options: { recursive?: boolean; limit?: number } = {}): Promise<string[]> {
    const limit = options.limit ?? 500;
    if (options.recursive) {
      const base = relativeDir && relativeDir !== '.' ? `${relativeDir.replace(/\/$/, '')}/` : '';
      const found = await vscode.workspace.findFiles(new vscode.RelativePattern(this.root, `${base}**/*`), DEFAULT_EXCLUDE, limit);
      return found.map((uri) => vscode.workspace.asRelativePath(uri, false)).sort();
    }
    const entries = await vscode.workspace.fs.readDirectory(vscode.Uri.joinPath(this.root, relativeDir));
    const base = relativeDir.replace(/^\.\/?/, '').replace(/\/+$/, '');
    return entries
      .map(([name, type]) => `${base ? `${base}/` : ''}${name}${type === vscode.FileType.Directory ? '/' : ''}`)
      .sort()
      .slice(0, limit);
  }

  async searchText(query: string, options: { isRegex?: boolean; include?: string; limit?: number } = {}): Promise<Array<{ path: string; line: number; text: string }>> {
    // vscode.workspace.findTextInFiles is still a proposed API; scan the candidate files instead.
    const limit = options.limit ?? 100;
    const pattern = options.isRegex ? new RegExp(query) : undefined;
    const files = await vscode.workspace.findFiles(new vscode.RelativePattern(this.root, options.include ?? '**/*'), DEFAULT_EXCLUDE, 5000);
    const results: Array<{ path: string; line: number; text: string }> = [];
    for (const uri of files) {
      let text: string;
      try {
        const bytes = await vscode.workspace.fs.readFile(uri);
        if (bytes.byteLength > 1_000_000 || bytes.includes(0)) continue;
        text = new TextDecoder().decode(bytes);
      } catch {
        continue;
      }
      const lines = text.split('\n');
      for (let i = 0; i < lines.length; i++) {
        if (pattern ? pattern.test(lines[i]) : lines[i].includes(query)) {
          results.push({ path: vscode.workspace.asRelativePath(uri, false), line: i + 1, text: lines[i].slice(0, 300) });
          if (results.length >= limit) return results;
        }
      }
    }
    return results;
  }
}
