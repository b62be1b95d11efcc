/**
 * rename_symbol: the language server's rename (VS Code's rename provider, through
 * `CodeIntelPort.rename`) becomes one proposed change set, a rewrite of each file it touches, on
 * the same review card as any edit. Nothing is written before the person approves it (or the
 * edit policy auto-approves it), and the set is applied, undone and reverted like any other.
 */
import * as z from 'zod/v4';
import { columnOf } from '../../actions/codeActions';
import { defineAction } from '../../actions/types';
import type { ActionContext, ActionDef } from '../../actions/types';
import type { CodeLocation, FileRename, TextReplacement } from '../../codeIntel/codeIntelPort';
import type { WorkspaceReader } from '../../ports';
import type { EditOperation } from './changeSet';
import { EditError } from './proposeChangeSet';

/** What the edit actions lend the rename. */
export interface RenameSymbolDeps {
  rename: (at: CodeLocation, newName: string) => Promise<FileRename[]>;
  files: WorkspaceReader;
  /** The edit path guard: the workspace-relative path, or an EditError. */
  guard: (requested: string) => Promise<{ path: string }>;
  /** Proposes these operations as (part of) the turn's change set. */
  propose: (operations: readonly EditOperation[], ctx: ActionContext) => Promise<string>;
  common: Pick<ActionDef, 'actionSets' | 'parallelizable' | 'irreversible' | 'approval'>;
  /** The sentence every edit action ends with. */
  note: string;
}

/** Most files one rename may rewrite (a rename wider than this is better done in steps). */
const MAX_FILES = 200;

export function renameSymbolAction(deps: RenameSymbolDeps): ActionDef {
  return defineAction({
    name: 'rename_symbol',
    description: `Rename a function, class, variable… and every use of it, via the language server. line: where it appears; symbol: its current name.${deps.note}`,
    input: z.object({
      path: z.string().min(1),
      line: z.coerce.number().int().min(1),
      symbol: z.string().min(1),
      newName: z.string().min(1).max(200),
    }),
    ...deps.common,
    async run(input, ctx) {
      if (/[\r\n]/.test(input.newName)) throw new EditError('newName is one line; give the new name alone.');
      const { path } = await deps.guard(input.path);
      const text = await deps.files.read(path);
      if (text === null) throw new EditError(`${input.path} does not exist; check the path with find_files.`);
      const lineText = text.split('\n')[input.line - 1];
      if (lineText === undefined) throw new EditError(`${input.path} has no line ${input.line}; read the file and retry with a line that exists.`);
      const column = columnOf(lineText, input.symbol);
      if (column === undefined) {
        throw new EditError(
          `${input.symbol} is not on line ${input.line} of ${input.path} (it reads: ${lineText.trim().slice(0, 120)}); read the file and retry.`,
        );
      }
      const renames = await deps.rename({ path, line: input.line, column }, input.newName);
      if (renames.length > MAX_FILES)
        throw new EditError(`This rename would change ${renames.length} files (at most ${MAX_FILES} at once); nothing was proposed.`);
      const operations: EditOperation[] = [];
      for (const file of renames) {
        const before = await deps.files.read(file.path);
        if (before === null) throw new EditError(`The rename changes ${file.path}, which does not exist on disk; save it first or rename by hand.`);
        operations.push({ op: 'write_file', path: file.path, content: applyReplacements(file.path, before, file.edits) });
      }
      if (operations.length === 0) throw new EditError(`Renaming ${input.symbol} changes nothing; check the symbol and the new name.`);
      return deps.propose(operations, ctx);
    },
  });
}

/** `text` with each replacement made (positions in the original text; overlapping ones refused). */
export function applyReplacements(path: string, text: string, edits: readonly TextReplacement[]): string {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const offset = (line: number, column: number): number => {
    const start = lineStarts[line - 1];
    if (start === undefined) throw new EditError(`The rename names line ${line} of ${path}, which has ${lineStarts.length}; the file changed, so retry.`);
    return start + column - 1;
  };
  const spans = edits.map((e) => ({ from: offset(e.line, e.column), to: offset(e.endLine, e.endColumn), text: e.newText })).sort((a, b) => b.from - a.from);
  let out = text;
  let limit = Infinity;
  for (const span of spans) {
    if (span.to > limit || span.to < span.from) throw new EditError(`The rename's edits of ${path} overlap; nothing was proposed.`);
    out = out.slice(0, span.from) + span.text + out.slice(span.to);
    limit = span.from;
  }
  return out;
}
