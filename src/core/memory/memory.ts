/**
 * MEMORY.md: durable facts distilled from recent events, offered to every new task in its
 * prompt prefix. The memory trigger asks the model for the whole new file (a zod-validated tool
 * call) and writes it atomically; `remember` appends one note between distillations.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import type { ModelClient, ModelResponse } from '../model/types';
import { MEMORY_SYSTEM } from '../prompts/prompts';

/** MEMORY.md beyond this is cut (it goes into every task prefix). */
export const MEMORY_MAX_CHARS = 6_000;
/** How much of the EVENT.md tail the distillation reads. */
const RECENT_EVENTS_CHARS = 16_000;

export async function readMemory(file: string): Promise<string | undefined> {
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  return text?.trim() ? text.slice(0, MEMORY_MAX_CHARS) : undefined;
}

async function writeAtomic(file: string, text: string): Promise<void> {
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
  return text.split('\n').filter((line) => line.startsWith('- ')).map((line) => line.slice(2).trim()).filter(Boolean);
}

/** The person's review: `accepted` notes go into MEMORY.md, every proposal is cleared. */
export async function settleMemoryProposals(memoryFile: string, accepted: readonly string[]): Promise<void> {
  const pending = await readMemoryProposals(memoryFile);
  for (const note of accepted) if (pending.includes(note)) await appendMemoryNote(memoryFile, note);
  await writeAtomic(proposalFileOf(memoryFile), '');
}

const saveMemorySchema = z.object({ content: z.string().min(1).max(MEMORY_MAX_CHARS * 2) });

/** Reads the tail of a text file (the recent part of EVENT.md). */
export async function readTail(file: string, chars: number): Promise<string> {
  const handle = await fs.open(file, 'r').catch(() => undefined);
  if (!handle) return '';
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - chars);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const text = buffer.toString('utf8');
    return start > 0 ? text.slice(text.indexOf('\n') + 1) : text;
  } finally {
    await handle.close();
  }
}

/**
 * Distils recent events into MEMORY.md. Returns the response (for usage accounting), or
 * undefined when there was nothing new to read.
 */
export async function distillMemory(client: ModelClient, memoryFile: string, eventsFile: string, signal?: AbortSignal): Promise<ModelResponse | undefined> {
  const recent = await readTail(eventsFile, RECENT_EVENTS_CHARS);
  if (!recent.trim()) return undefined;
  const current = (await readMemory(memoryFile)) ?? '(empty)';
  const response = await client.complete({
    system: MEMORY_SYSTEM,
    tools: [
      {
        name: 'save_memory',
        description: 'Save the full new MEMORY.md.',
        inputSchema: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'], additionalProperties: false },
      },
    ],
    messages: [{ role: 'user', content: `# Current MEMORY.md\n${current}\n\n# Recent events\n${recent}` }],
    toolChoice: 'required',
    signal,
  });
  const call = response.toolCalls.find((c) => c.name === 'save_memory');
  const parsed = saveMemorySchema.safeParse(call?.arguments);
  if (!parsed.success) throw new Error('The memory distillation gave no valid save_memory call; MEMORY.md was left as it was.');
  await writeAtomic(memoryFile, `${parsed.data.content.trim().slice(0, MEMORY_MAX_CHARS)}\n`);
  return response;
}
