/** Read-only workspace actions, through the WorkspacePort (reads inside the workspace are automatic). */
import * as z from 'zod/v4';
import { toListing, toSearchResult } from '../ports';
import type { WorkspacePort } from '../ports';
import { ACTION_SETS } from './actionSets';
import { formatFound, formatSearch, listingStop } from './readResults';
import { defineAction } from './types';
import type { ActionDef } from './types';

/** Bounds what one tool result can add to the prompt. */
const MAX_READ_CHARS = 20_000;
/** Lines a range with no end reads. */
const MAX_RANGE_LINES = 2000;
/**
 * Bytes loaded at most for one read_file: a line range far into a huge file needs more than the
 * 20,000 characters shown, but a multi-GB file in the repository must not be loaded whole.
 */
export const MAX_READ_FILE_BYTES = 4 * 1024 * 1024;

export const readFile = defineAction({
  name: 'read_file',
  description: 'Read a workspace file (path relative to the workspace root). Optional 1-based line range.',
  input: z.object({
    path: z.string().min(1),
    startLine: z.coerce.number().int().min(1).optional(),
    endLine: z.coerce.number().int().min(1).optional(),
  }),
  actionSets: [ACTION_SETS.read],
  parallelizable: true,
  irreversible: false,
  approval: 'never',
  async run(input, ctx) {
    if (ctx.workspace.readLines && input.startLine) return readRange(input, ctx.workspace.readLines.bind(ctx.workspace), input.startLine);
    let text: string;
    let cut: { size: number } | undefined;
    try {
      const ws = ctx.workspace;
      if (ws.readText) {
        const read = await ws.readText(input.path, MAX_READ_FILE_BYTES);
        text = read.text;
        if (read.truncated) cut = { size: read.size };
      } else {
        text = await ws.readFile(input.path);
      }
    } catch (error) {
      throw new Error(`Could not read ${input.path}: ${(error as Error).message}. Check the path with list_files.`, { cause: error });
    }
    if (text.includes('\0')) return binaryNote(input.path);
    const note = cut
      ? `\n[the file is ${cut.size} bytes; only its first ${MAX_READ_FILE_BYTES} bytes are read at once: read a line range (startLine, endLine) for the rest]`
      : '';
    if (input.startLine || input.endLine) {
      const lines = text.split('\n');
      text = lines.slice((input.startLine ?? 1) - 1, input.endLine ?? lines.length).join('\n');
    }
    if (text.length > MAX_READ_CHARS) {
      return `${text.slice(0, MAX_READ_CHARS)}\n[truncated at ${MAX_READ_CHARS} chars; read a line range for more]${note}`;
    }
    return `${text}${note}`;
  },
});

/** What read_file says for a file with NUL bytes: its bytes would be noise (and tokens) for the model. */
const binaryNote = (path: string) => `${path} is a binary file (it holds NUL bytes); its content is not shown.`;

/**
 * A line range read through the port's `readLines` (streamed, any file size). Without one, or
 * without a start line, read_file reads a bounded start of the file and slices it.
 */
async function readRange(input: { path: string; endLine?: number }, readLines: NonNullable<WorkspacePort['readLines']>, start: number): Promise<string> {
  const end = Math.max(start, input.endLine ?? start + MAX_RANGE_LINES - 1);
  let lines: string[];
  try {
    lines = await readLines(input.path, start, end);
  } catch (error) {
    throw new Error(`Could not read ${input.path}: ${(error as Error).message}. Check the path with list_files.`, { cause: error });
  }
  if (lines.some((l) => l.includes('\0'))) return binaryNote(input.path);
  if (!lines.length) return `[${input.path} has fewer than ${start} lines]`;
  const text = lines.join('\n');
  if (text.length > MAX_READ_CHARS) return `${text.slice(0, MAX_READ_CHARS)}\n[truncated at ${MAX_READ_CHARS} chars; read a shorter line range]`;
  return text;
}

export const listFiles = defineAction({
  name: 'list_files',
  description: 'List files in a workspace folder ("." for the root).',
  input: z.object({ dir: z.string().default('.'), recursive: z.boolean().default(false), limit: z.coerce.number().int().min(1).max(1000).default(200) }),
  actionSets: [ACTION_SETS.read],
  parallelizable: true,
  irreversible: false,
  approval: 'never',
  async run(input, ctx) {
    const listing = toListing(await ctx.workspace.listFiles(input.dir, { recursive: input.recursive, limit: input.limit }), input.limit);
    const narrow = input.recursive ? 'list a subfolder' : 'use find_files with a glob';
    if (!listing.paths.length) return listing.complete ? `(no files in ${input.dir})` : `(no files listed in ${input.dir} yet) ${listingStop(listing, narrow)}`;
    // Like `ls`: the folder once, then names relative to it (fewer tokens than full paths per line).
    const base = input.dir.replace(/^\.\/?/, '').replace(/\/+$/, '');
    const prefix = base ? `${base}/` : '';
    const lines = [`${prefix || './'}:`, ...listing.paths.map((f) => (prefix && f.startsWith(prefix) ? f.slice(prefix.length) : f))];
    if (!listing.complete) lines.push(listingStop(listing, narrow));
    return lines.join('\n');
  },
});

export const searchText = defineAction({
  name: 'search_text',
  description:
    "Search workspace files (those .gitignore and the editor's excludes keep) for text or a regex (RE2 syntax: no lookaround or backreferences). Matches are grouped per file as `line: text`, with `line- text` context lines around them. include is a glob; one without / matches file names at any depth.",
  input: z.object({
    query: z.string().min(1),
    isRegex: z.boolean().default(false),
    include: z.string().optional().describe('glob, e.g. src/**/*.ts'),
    limit: z.coerce.number().int().min(1).max(500).default(20),
    context: z.coerce.number().int().min(0).max(5).default(1).describe('lines shown before and after each match'),
  }),
  actionSets: [ACTION_SETS.read],
  parallelizable: true,
  irreversible: false,
  approval: 'never',
  async run(input, ctx) {
    const options = { isRegex: input.isRegex, include: input.include, limit: input.limit, context: input.context };
    const result = toSearchResult(await ctx.workspace.searchText(input.query, options), input.limit);
    return formatSearch(result, input.limit, input.include);
  },
});

export const findFiles = defineAction({
  name: 'find_files',
  description: 'Find workspace files by path glob, e.g. src/**/*.test.ts (a glob without / matches file names at any depth).',
  input: z.object({ glob: z.string().min(1), limit: z.coerce.number().int().min(1).max(1000).default(100) }),
  actionSets: [ACTION_SETS.read],
  parallelizable: true,
  irreversible: false,
  approval: 'never',
  async run(input, ctx) {
    return formatFound(input.glob, await ctx.workspace.findFiles(input.glob, { limit: input.limit }));
  },
});

export const readActions: ActionDef[] = [readFile, listFiles, searchText, findFiles];
