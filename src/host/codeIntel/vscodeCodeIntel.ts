/**
 * The CodeIntelPort through VS Code's language features: the `vscode.execute*Provider` commands
 * (whatever language servers the person has) and `languages.getDiagnostics` (the Problems view).
 * Only files under the workspace folder are asked about or answered with: a location elsewhere
 * (a library's .d.ts, another folder, an untitled buffer) is left out here, and the core's
 * actions re-check what remains through the guarded reads.
 */
import * as vscode from 'vscode';
import type { HostRoots } from '../workspaceFolders';
import { ChangeWatch } from './changeWatch';
import type {
  CodeDiagnostic,
  CodeIntelPort,
  CodeLocation,
  CodeSymbol,
  DiagnosticSeverity,
  DiagnosticsWatch,
  FileRename,
  OutlineSymbol,
} from '../../core/codeIntel/codeIntelPort';

/** Files importing a changed one that are checked with it, at most (each costs the TypeScript server a check). */
const MAX_IMPORTERS = 20;

/** Most entries taken from one provider answer (the actions show fewer). */
const MAX_ENTRIES = 500;

const SEVERITY: Record<vscode.DiagnosticSeverity, DiagnosticSeverity> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

function kindName(kind: vscode.SymbolKind): string {
  return (vscode.SymbolKind[kind] ?? 'symbol').toLowerCase();
}

function hoverText(content: vscode.MarkdownString | vscode.MarkedString): string {
  if (typeof content === 'string') return content;
  if (content instanceof vscode.MarkdownString) return content.value;
  return `\`\`\`${content.language}\n${content.value}\n\`\`\``;
}

export class VsCodeCodeIntel implements CodeIntelPort {
  /**
   * @param importers the workspace files that import any of these (VS Code offers no "who imports
   *   this file" request to extensions; `importers.ts` finds them by a search); none by default.
   */
  constructor(
    /** The workspace's folders: locations say their folder when several are open (src/host/workspaceFolders.ts). */
    private readonly root: Pick<HostRoots, 'uri' | 'relative'>,
    private readonly importers: (paths: readonly string[]) => Promise<string[]> = async () => [],
  ) {}

  async workspaceSymbols(query: string): Promise<CodeSymbol[]> {
    const found = (await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>('vscode.executeWorkspaceSymbolProvider', query)) ?? [];
    const out: CodeSymbol[] = [];
    for (const s of found.slice(0, MAX_ENTRIES)) {
      const location = this.location(s.location.uri, s.location.range);
      if (location) out.push({ name: s.name, kind: kindName(s.kind), ...(s.containerName ? { container: s.containerName } : {}), location });
    }
    return out;
  }

  async definition(at: CodeLocation): Promise<CodeLocation[]> {
    return this.locations(await vscode.commands.executeCommand('vscode.executeDefinitionProvider', this.uri(at.path), this.position(at)));
  }

  async references(at: CodeLocation): Promise<CodeLocation[]> {
    return this.locations(await vscode.commands.executeCommand('vscode.executeReferenceProvider', this.uri(at.path), this.position(at)));
  }

  async hover(at: CodeLocation): Promise<string[]> {
    const hovers =
      (await vscode.commands.executeCommand<vscode.Hover[] | undefined>('vscode.executeHoverProvider', this.uri(at.path), this.position(at))) ?? [];
    return hovers.flatMap((h) => h.contents.map(hoverText));
  }

  async outline(relativePath: string): Promise<OutlineSymbol[]> {
    const found =
      (await vscode.commands.executeCommand<Array<vscode.DocumentSymbol | vscode.SymbolInformation> | undefined>(
        'vscode.executeDocumentSymbolProvider',
        this.uri(relativePath),
      )) ?? [];
    const convert = (s: vscode.DocumentSymbol | vscode.SymbolInformation): OutlineSymbol => {
      const range = 'range' in s ? s.range : s.location.range;
      return {
        name: s.name,
        kind: kindName(s.kind),
        ...('detail' in s && s.detail ? { detail: s.detail } : {}),
        line: range.start.line + 1,
        endLine: range.end.line + 1,
        children: 'children' in s ? s.children.map(convert) : [],
      };
    };
    return found.slice(0, MAX_ENTRIES).map(convert);
  }

  async diagnostics(paths?: readonly string[]): Promise<CodeDiagnostic[]> {
    const entries: Array<[vscode.Uri, readonly vscode.Diagnostic[]]> = paths
      ? paths.map((p) => [this.uri(p), vscode.languages.getDiagnostics(this.uri(p))])
      : vscode.languages.getDiagnostics();
    const out: CodeDiagnostic[] = [];
    for (const [uri, diagnostics] of entries) {
      for (const d of diagnostics) {
        if (out.length >= MAX_ENTRIES) return out;
        const location = this.location(uri, d.range);
        if (!location) continue;
        const code = typeof d.code === 'object' ? d.code.value : d.code;
        out.push({
          ...location,
          severity: SEVERITY[d.severity],
          message: d.message,
          ...(d.source ? { source: d.source } : {}),
          ...(code !== undefined ? { code: String(code) } : {}),
        });
      }
    }
    return out;
  }

  async watchDiagnostics(paths: readonly string[]): Promise<DiagnosticsWatch> {
    // The callers an edit may break: loaded and checked with the changed files (changeWatch.ts says how, without a tab).
    const importers = (await this.importers(paths).catch(() => [])).filter((p) => !paths.includes(p)).slice(0, MAX_IMPORTERS);
    return ChangeWatch.start({ uri: (p) => this.uri(p), diagnostics: (p) => this.diagnostics(p) }, paths, importers);
  }

  async rename(at: CodeLocation, newName: string): Promise<FileRename[]> {
    let edit: vscode.WorkspaceEdit | undefined;
    try {
      // Loaded first (no editor is shown): for a file with no document yet, the workbench hands the
      // rename command its new name wrapped in an array and refuses it ("Unexpected type").
      await vscode.workspace.openTextDocument(this.uri(at.path));
      edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit | undefined>(
        'vscode.executeDocumentRenameProvider',
        this.uri(at.path),
        this.position(at),
        newName,
      );
    } catch (error) {
      // The provider's own reason ("You cannot rename this element."), for the model.
      throw new Error(`The language server cannot rename the symbol at ${at.path}:${at.line}:${at.column}: ${(error as Error).message}`, { cause: error });
    }
    if (!edit || edit.size === 0)
      throw new Error(`No language server renames the symbol at ${at.path}:${at.line}:${at.column}; check the position with inspect_symbol.`);
    const out: FileRename[] = [];
    // `entries()` lists the text edits only: a file a provider would also move (rare for a
    // symbol) is not part of the proposal. A file outside the folder refuses the whole rename.
    for (const [uri, edits] of edit.entries()) {
      const where = this.location(uri, new vscode.Range(0, 0, 0, 0));
      if (!where) throw new Error(`Renaming there would change ${uri.fsPath || uri.toString()}, outside the workspace; nothing was proposed.`);
      out.push({
        path: where.path,
        edits: edits.map((e) => ({
          path: where.path,
          line: e.range.start.line + 1,
          column: e.range.start.character + 1,
          endLine: e.range.end.line + 1,
          endColumn: e.range.end.character + 1,
          newText: e.newText,
        })),
      });
    }
    return out;
  }

  private uri(relativePath: string): vscode.Uri {
    return this.root.uri(relativePath);
  }

  private position(at: CodeLocation): vscode.Position {
    return new vscode.Position(at.line - 1, at.column - 1);
  }

  private locations(found: unknown): CodeLocation[] {
    const list = Array.isArray(found) ? (found as Array<vscode.Location | vscode.LocationLink>) : [];
    const out: CodeLocation[] = [];
    for (const l of list.slice(0, MAX_ENTRIES)) {
      const location = 'targetUri' in l ? this.location(l.targetUri, l.targetSelectionRange ?? l.targetRange) : this.location(l.uri, l.range);
      if (location) out.push(location);
    }
    return out;
  }

  /** Workspace-relative, or undefined for anything not a file under the folder. */
  private location(uri: vscode.Uri, range: vscode.Range): CodeLocation | undefined {
    const relative = this.root.relative(uri);
    if (relative === undefined) return undefined;
    return { path: relative, line: range.start.line + 1, column: range.start.character + 1 };
  }
}
