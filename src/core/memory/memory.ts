/**
 * MEMORY.md: durable facts distilled from events, offered to every new task in its prompt prefix.
 * The memory trigger (distiller.ts: durable cursor, interval, outage handling) asks the model for
 * the whole new file (a zod-validated tool call); `remember` appends one note between
 * distillations. The file is kept within its size limit by whole entries, never cut mid-line.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as z from 'zod/v4';
import type { ModelClient, ModelResponse } from '../model/types';
import { MEMORY_SYSTEM } from '../prompts/prompts';

/** Default size limit of MEMORY.md (it goes into every task prefix); `tasklane.memory.maxChars`. */
export const MEMORY_MAX_CHARS = 6_000;

export async function readMemory(file: string, maxChars = MEMORY_MAX_CHARS): Promise<string | undefined> {
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  return text?.trim() ? fitEntries(text, maxChars) : undefined;
}

/**
 * Keeps whole entries (a heading, or a bullet with its indented continuation lines) in order while
 * they fit in `maxChars`; an entry that does not fit is dropped, never cut.
 */
export function fitEntries(text: string, maxChars: number): string {
  const trimmed = text.trim();
  if (trimmed.length + 1 <= maxChars) return `${trimmed}\n`;
  const entries: string[] = [];
  for (const line of trimmed.split('\n')) {
    const continues = entries.length > 0 && (/^\s+\S/.test(line) || line.trim() === '');
    if (continues) entries[entries.length - 1] += `\n${line}`;
    else entries.push(line);
  }
  let out = '';
  for (const entry of entries) {
    const piece = `${entry.trimEnd()}\n`;
    if (out.length + piece.length <= maxChars) out += piece;
  }
  return out;
}

export async function writeAtomic(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  const handle = await fs.open(temp, 'w');
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temp, file);
}

/** Appends one note under "## Notes" (the remember action). Serialised by the caller's queue. */
export async function appendMemoryNote(file: string, note: string): Promise<void> {
  const current = (await fs.readFile(file, 'utf8').catch(() => '')) || '# Memory\n';
  const withHeading = current.includes('\n## Notes\n') ? current : `${current.trimEnd()}\n\n## Notes\n`;
  await writeAtomic(file, `${withHeading.trimEnd()}\n- ${note.replace(/\s+/g, ' ').trim()}\n`);
}

/**
 * Notes the model proposed with `remember`, waiting for the person's review. They are NOT in any
 * prompt until accepted: a note enters every later task's prefix with the authority of memory,
 * so an instruction injected through a file the model read must not get there by itself.
 * One note per line (`- note`), next to MEMORY.md.
 */
export function proposalFileOf(memoryFile: string): string {
  return path.join(path.dirname(memoryFile), 'MEMORY.proposed.md');
}

/** Adds a proposed note (deduplicated). Serialised by the caller's queue. */
export async function proposeMemoryNote(memoryFile: string, note: string): Promise<void> {
  const clean = note.replace(/\s+/g, ' ').trim();
  const pending = await readMemoryProposals(memoryFile);
  if (pending.includes(clean)) return;
  await writeAtomic(proposalFileOf(memoryFile), [...pending, clean].map((n) => `- ${n}\n`).join(''));
}

/** The proposed notes, oldest first. */
export async function readMemoryProposals(memoryFile: string): Promise<string[]> {
  const text = await fs.readFile(proposalFileOf(memoryFile), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2).trim())
    .filter(Boolean);
}

/** The person's review: `accepted` notes go into MEMORY.md, every proposal is cleared. */
export async function settleMemoryProposals(memoryFile: string, accepted: readonly string[]): Promise<void> {
  const pending = await readMemoryProposals(memoryFile);
  for (const note of accepted) if (pending.includes(note)) await appendMemoryNote(memoryFile, note);
  await writeAtomic(proposalFileOf(memoryFile), '');
}

/**
 * EVENT.md lines of chore runs carry this mark after their kind (engineState.ts `mirror`), and
 * distillation leaves them out: a chore's prompt and what its task says come from a file the
 * repository ships, and must not become memory that steers every later task.
 */
export function choreMark(choreId: string): string {
  return `(chore ${choreId.replace(/[()\s]/g, '_')})`;
}
const CHORE_LINE = /^- \S+ `[^`]*` \*\*[^*]*\*\* \(chore [^)\s]*\)/;

/** The event lines distillation may learn from: every line but those of chore runs. */
export function withoutChoreLines(text: string): { text: string; dropped: number } {
  const lines = text.split('\n');
  const kept = lines.filter((line) => !CHORE_LINE.test(line));
  return { text: kept.join('\n'), dropped: lines.length - kept.length };
}

const saveMemorySchema = z.object({ content: z.string().min(1).max(200_000) });

/**
 * Distils one chunk of events (whole EVENT.md lines) into a new MEMORY.md text; does not write it
 * (the distiller commits its cursor first). Throws when the model is unavailable or gives no valid
 * save_memory call.
 */
export async function distillChunk(
  client: ModelClient,
  memoryFile: string,
  events: string,
  maxChars: number,
  signal?: AbortSignal,
): Promise<{ response: ModelResponse; content: string }> {
  const current = (await readMemory(memoryFile, maxChars)) ?? '(empty)';
  const response = await client.complete({
    system: MEMORY_SYSTEM,
    tools: [
      {
        name: 'save_memory',
        description: `Save the full new MEMORY.md (at most ${maxChars} characters).`,
        inputSchema: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'], additionalProperties: false },
      },
    ],
    messages: [{ role: 'user', content: `# Current MEMORY.md\n${current}\n\n# New events\n${events}` }],
    toolChoice: 'required',
    ...(signal ? { signal } : {}),
  });
  const call = response.toolCalls.find((c) => c.name === 'save_memory');
  const parsed = saveMemorySchema.safeParse(call?.arguments);
  if (!parsed.success) throw new Error('The memory distillation gave no valid save_memory call; MEMORY.md was left as it was.');
  return { response, content: parsed.data.content };
}
