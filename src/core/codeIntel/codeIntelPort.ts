/**
 * What the editor's language servers know about the workspace's code, asked read-only. The VS
 * Code host answers through its language features (`src/host/codeIntel/vscodeCodeIntel.ts`); a
 * host without them (the command line) gives no port and the code actions are not offered.
 *
 * Paths are workspace-relative with `/`; lines and columns are 1-based. An adapter leaves out
 * every location outside the workspace folder; the actions re-check each one through the guarded
 * workspace reads (links out, hard links) before showing it.
 */

/** A place in a workspace file. */
export interface CodeLocation {
  path: string;
  line: number;
  column: number;
}

/** A symbol found by name across the workspace. */
export interface CodeSymbol {
  name: string;
  /** The language server's kind, lower case (function, class, variable, …). */
  kind: string;
  /** The enclosing symbol, when the server says. */
  container?: string;
  location: CodeLocation;
}

/** One entry of a file's outline, with its children. */
export interface OutlineSymbol {
  name: string;
  kind: string;
  detail?: string;
  line: number;
  endLine: number;
  children: OutlineSymbol[];
}

export type DiagnosticSeverity = 'error' | 'warning' | 'info' | 'hint';

/** One problem as the Problems view shows it. */
export interface CodeDiagnostic extends CodeLocation {
  severity: DiagnosticSeverity;
  message: string;
  source?: string;
  code?: string;
}

/** One replacement of a rename: the text from (line, column) to (endLine, endColumn), end exclusive. */
export interface TextReplacement extends CodeLocation {
  endLine: number;
  endColumn: number;
  newText: string;
}

/** What a rename changes in one file. */
export interface FileRename {
  path: string;
  edits: TextReplacement[];
}

/** A watch on the language servers, from before a change to after it (`CodeIntelPort.watchDiagnostics`). */
export interface DiagnosticsWatch {
  /** Files compared before and after besides the changed ones: those importing them (a caller the edit broke). */
  readonly importers?: readonly string[];
  /**
   * The problems of the changed files and the importers now, asked once before the change and
   * once after `settled`. Absent: `CodeIntelPort.diagnostics` of those files (what the Problems view holds).
   */
  problems?(): Promise<CodeDiagnostic[]>;
  /** After the change: waits for the servers' answers (at most `timeoutMs`); names the changed files none answered for. */
  settled(timeoutMs: number): Promise<{ unreported: readonly string[] } | void>;
  dispose(): void;
}

/** The language features of a host, for workspace-relative files. */
export interface CodeIntelPort {
  workspaceSymbols(query: string): Promise<CodeSymbol[]>;
  definition(at: CodeLocation): Promise<CodeLocation[]>;
  references(at: CodeLocation): Promise<CodeLocation[]>;
  /** The hover texts (types, signatures, docs) as Markdown or plain text. */
  hover(at: CodeLocation): Promise<string[]>;
  outline(path: string): Promise<OutlineSymbol[]>;
  /** The problems of these files, or of every file the editor knows problems for. */
  diagnostics(paths?: readonly string[]): Promise<CodeDiagnostic[]>;
  /**
   * Called before a change to these files: makes the language servers check them (and the files
   * that import them) and listens for their reports. `settled`, called after the change, resolves
   * once they answered, or at `timeoutMs` (a file no server checks never reports).
   * Optional: without it, problems are read right after the change.
   */
  watchDiagnostics?(paths: readonly string[]): Promise<DiagnosticsWatch>;
  /**
   * The language server's rename of the symbol at `at` to `newName`, as replacements per file
   * (columns count UTF-16 code units, as editors do). Rejects, with a message for the model, when
   * the server cannot rename there or the rename would touch a file outside the workspace. Text
   * edits only. Writes nothing. Optional: without it, no rename_symbol.
   */
  rename?(at: CodeLocation, newName: string): Promise<FileRename[]>;
}
