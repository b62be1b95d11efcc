/**
 * Read-only code intelligence in the `read` set: symbols by name, definition, references, hover,
 * a file's outline and the Problems view, from the host's language servers (CodeIntelPort).
 * Registered only when the host has them (not on the command line). Every path the model names
 * goes through the guarded workspace reads first, and every location an answer names is shown
 * only if that same guard lets it be read, so nothing outside the folder is shown.
 */
import { problemLine } from '../codeIntel/problemsAfterApply';
import * as z from 'zod/v4';
import type { CodeIntelPort, CodeLocation, DiagnosticSeverity, OutlineSymbol } from '../codeIntel/codeIntelPort';
import type { WorkspacePort } from '../ports';
import { ACTION_SETS } from './actionSets';
import { defineAction } from './types';
import type { ActionDef } from './types';

/** What one answer may add to the prompt. */
const MAX_CHARS = 8_000;
/** Bytes read of a file to find a symbol on a line or to preview a location. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const SEVERITIES: DiagnosticSeverity[] = ['error', 'warning', 'info', 'hint'];

/** Reads workspace files through the guard, once each per call: their lines, or undefined if refused. */
function fileLines(workspace: WorkspacePort): (path: string) => Promise<string[] | undefined> {
  const cache = new Map<string, Promise<string[] | undefined>>();
  return (path) => {
    let lines = cache.get(path);
    if (!lines) {
      const read = workspace.readText ? workspace.readText(path, MAX_FILE_BYTES).then((r) => r.text) : workspace.readFile(path);
      lines = read.then((text) => text.split('\n')).catch(() => undefined);
      cache.set(path, lines);
    }
    return lines;
  };
}

function bounded(text: string): string {
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}\n[truncated at ${MAX_CHARS} chars]` : text;
}

/** Locations the guard lets be read, as `path:line:column: text`, and how many were left out. */
async function shown(locations: readonly CodeLocation[], lines: (path: string) => Promise<string[] | undefined>, limit: number): Promise<string> {
  const out: string[] = [];
  let hidden = 0;
  for (const at of locations) {
    if (out.length >= limit) break;
    const text = await lines(at.path);
    if (!text) {
      hidden++;
      continue;
    }
    out.push(`${at.path}:${at.line}:${at.column}: ${(text[at.line - 1] ?? '').trim().slice(0, 200)}`);
  }
  const more = locations.length - out.length - hidden;
  return [
    ...(out.length ? out : ['none found']),
    ...(more > 0 ? [`[${more} more; raise limit to see them]`] : []),
    ...(hidden ? [`[${hidden} outside the workspace or unreadable, left out]`] : []),
  ].join('\n');
}

const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_$]/u.test(c);

/** The 1-based column of `symbol` as a whole word on `line`. */
export function columnOf(lineText: string, symbol: string): number | undefined {
  for (let i = lineText.indexOf(symbol); i >= 0; i = lineText.indexOf(symbol, i + 1)) {
    if (!isWordChar(lineText[i - 1]) && !isWordChar(lineText[i + symbol.length])) return i + 1;
  }
  return undefined;
}

const position = {
  path: z.string().min(1),
  line: z.coerce.number().int().min(1),
  symbol: z.string().min(1).optional().describe('the name on that line (or give column)'),
  column: z.coerce.number().int().min(1).optional(),
};

function outlineText(symbols: readonly OutlineSymbol[], depth = 0, out: string[] = []): string[] {
  for (const s of symbols) {
    out.push(`${'  '.repeat(depth)}${s.kind} ${s.name}${s.detail ? ` ${s.detail}` : ''} (${s.line}-${s.endLine})`);
    outlineText(s.children, depth + 1, out);
  }
  return out;
}

/** What every code action is: a read, run in parallel, never approved, never undone. */
const readOnly: Pick<ActionDef, 'actionSets' | 'parallelizable' | 'irreversible' | 'approval'> = {
  actionSets: [ACTION_SETS.read],
  parallelizable: true,
  irreversible: false,
  approval: 'never',
};

/** The code actions over a host's language features. */
export function codeActions(port: CodeIntelPort): ActionDef[] {
  const findSymbols = defineAction({
    name: 'find_symbols',
    description: 'Find where functions, classes, types… are declared, by name, via the language servers.',
    input: z.object({ query: z.string().min(1), limit: z.coerce.number().int().min(1).max(100).default(30) }),
    ...readOnly,
    async run(input, ctx) {
      const lines = fileLines(ctx.workspace);
      const symbols = await port.workspaceSymbols(input.query);
      const out: string[] = [];
      let hidden = 0;
      for (const s of symbols) {
        if (out.length >= input.limit) break;
        if (!(await lines(s.location.path))) hidden++;
        else out.push(`${s.location.path}:${s.location.line}:${s.location.column}: ${s.kind} ${s.name}${s.container ? ` in ${s.container}` : ''}`);
      }
      if (hidden) out.push(`[${hidden} outside the workspace or unreadable, left out]`);
      return bounded(out.length ? out.join('\n') : `no symbol matches ${input.query}`);
    },
  });

  const inspectSymbol = defineAction({
    name: 'inspect_symbol',
    description: 'Ask the language server about the symbol at a file position: its definition, all references, or its hover (type, signature, docs).',
    input: z.object({ ...position, what: z.enum(['definition', 'references', 'hover']), limit: z.coerce.number().int().min(1).max(200).default(50) }),
    ...readOnly,
    async run(input, ctx) {
      const lines = fileLines(ctx.workspace);
      // The guard first: a path outside the workspace is refused before any language server is asked.
      const text = await lines(input.path);
      if (!text) await ctx.workspace.readFile(input.path);
      const lineText = text?.[input.line - 1];
      if (lineText === undefined) throw new Error(`${input.path} has no line ${input.line}; read the file and retry with a line that exists.`);
      const column = input.column ?? (input.symbol ? columnOf(lineText, input.symbol) : lineText.search(/\S/) + 1 || 1);
      if (column === undefined)
        throw new Error(`${input.symbol} is not on line ${input.line} of ${input.path} (it reads: ${lineText.trim().slice(0, 120)}); read the file and retry.`);
      const at = { path: input.path, line: input.line, column };
      if (input.what === 'hover') {
        const hovers = await port.hover(at);
        return bounded(hovers.filter((h) => h.trim()).join('\n---\n') || 'no hover information here');
      }
      const found = input.what === 'definition' ? await port.definition(at) : await port.references(at);
      return bounded(await shown(found, lines, input.limit));
    },
  });

  const getOutline = defineAction({
    name: 'get_outline',
    description: "A file's symbols (classes, functions, members) with their line ranges, via the language server.",
    input: z.object({ path: z.string().min(1) }),
    ...readOnly,
    async run(input, ctx) {
      await ctx.workspace.readFile(input.path);
      const symbols = await port.outline(input.path);
      return bounded(symbols.length ? outlineText(symbols).join('\n') : `no symbols in ${input.path}`);
    },
  });

  const getDiagnostics = defineAction({
    name: 'get_diagnostics',
    description: 'Problems (type errors, lint) the editor reports, for some files or the whole workspace.',
    input: z.object({
      paths: z.array(z.string().min(1)).optional().describe('omitted: every file'),
      severity: z.enum(['error', 'warning', 'info', 'hint']).default('warning').describe('the least severe to include'),
      limit: z.coerce.number().int().min(1).max(200).default(50),
    }),
    ...readOnly,
    async run(input, ctx) {
      for (const path of input.paths ?? []) await ctx.workspace.readFile(path);
      const lines = fileLines(ctx.workspace);
      const rank = SEVERITIES.indexOf(input.severity);
      const found = (await port.diagnostics(input.paths)).filter((d) => SEVERITIES.indexOf(d.severity) <= rank);
      found.sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) || a.path.localeCompare(b.path) || a.line - b.line);
      const out: string[] = [];
      let hidden = 0;
      for (const d of found) {
        if (out.length >= input.limit) break;
        if (!(await lines(d.path))) hidden++;
        else out.push(problemLine(d));
      }
      const more = found.length - out.length - hidden;
      if (more > 0) out.push(`[${more} more; raise limit or narrow paths]`);
      if (hidden) out.push(`[${hidden} outside the workspace or unreadable, left out]`);
      return bounded(out.length ? out.join('\n') : `no problems at ${input.severity} or above`);
    },
  });

  return [findSymbols, inspectSymbol, getOutline, getDiagnostics];
}
