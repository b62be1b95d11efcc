/**
 * Memory distillation from a durable cursor over EVENT.md (docs/STORAGE.md, "Memory").
 *
 * - Nothing skipped, nothing read twice: the cursor (a byte offset at a line boundary) lives in the
 *   hot database. A run reads the next chunk of whole lines after it; the new MEMORY.md and the new
 *   cursor are first written together to `MEMORY.md.next`, then the cursor is committed, then the
 *   file is renamed into place. A crash at any point either finishes that rename at the next run
 *   (cursor committed) or throws the pending file away (cursor not committed: the chunk is read
 *   again, once, because its result never landed).
 * - Lines of chore runs are never distilled (memory.ts `withoutChoreLines`): a repository's chore
 *   prompt must not become memory that steers every later task.
 * - At most once per interval, only with enough new events, and never a dead letter: a model
 *   outage (or an unusable answer) is logged, the cursor stays, and one memory trigger is queued for
 *   the next interval.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { ModelClient, ModelResponse } from '../model/types';
import type { Clock, Logger } from '../ports';
import * as z from 'zod/v4';
import { decodeColumn } from '../store/decodeRow';
import type { DurableDb, TriggerStore } from '../store/types';
import type { MemorySettings } from '../engine/types';
import { distillChunk, fitEntries, withoutChoreLines, writeAtomic } from './memory';

export const MEMORY_DEFAULTS = { enabled: true, intervalMinutes: 60, minEvents: 20, maxChars: 6000 } as const;
/** Bytes of EVENT.md one distillation reads (a backlog drains one chunk per interval). */
export const CHUNK_BYTES = 16_000;
const META_KEY = 'memory:cursor';

export interface CursorState {
  /** Byte offset in EVENT.md of the first line not yet distilled. */
  offset: number;
  /** When the last distillation was attempted (ms); 0: never. */
  lastRunAt: number;
}

export interface DistillDeps {
  db: DurableDb;
  triggers: TriggerStore;
  model: () => Promise<ModelClient>;
  memoryFile: string;
  eventsFile: string;
  clock: Clock;
  logger: Logger;
  settings: () => MemorySettings | undefined;
  signal?: AbortSignal;
  /** Reports the call's usage (the engine adds it to the Memory session's totals). */
  onUsage?: (response: ModelResponse, events: number) => Promise<void>;
}

export type DistillOutcome = 'disabled' | 'too_soon' | 'too_few' | 'only_chores' | 'distilled' | 'model_unavailable';

const cursorSchema = z.object({ offset: z.number().finite().nonnegative().default(0), lastRunAt: z.number().finite().default(0) });

/**
 * The distiller's cursor; throws DurableRowError naming the field when the row does not decode (the
 * pass fails with it rather than re-reading the events from a guessed offset).
 */
export function readCursor(db: DurableDb): CursorState {
  const [row] = db.query('SELECT value FROM meta WHERE key = ?', [META_KEY]);
  if (!row) return { offset: 0, lastRunAt: 0 };
  return decodeColumn(cursorSchema, 'memory cursor', META_KEY, 'value', row.value);
}

function writeCursor(db: DurableDb, state: CursorState): void {
  db.mutate('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [META_KEY, JSON.stringify(state)]);
}

/** Finishes or discards a `MEMORY.md.next` left by a crash (see the top of this file). */
async function settlePending(deps: DistillDeps): Promise<void> {
  const pendingFile = `${deps.memoryFile}.next`;
  const text = await fs.readFile(pendingFile, 'utf8').catch(() => undefined);
  if (text === undefined) return;
  try {
    const pending = JSON.parse(text) as { offset: number; content: string };
    if (pending.offset === readCursor(deps.db).offset) await writeAtomic(deps.memoryFile, pending.content);
  } catch {
    // A torn pending file never had its cursor committed: drop it.
  }
  await fs.rm(pendingFile, { force: true });
}

/** Reads whole lines from `offset`, at most about CHUNK_BYTES; counts every new line to the end. */
async function readChunk(file: string, offset: number): Promise<{ text: string; end: number; lines: number; pendingLines: number; size: number }> {
  const handle = await fs.open(file, 'r').catch(() => undefined);
  if (!handle) return { text: '', end: offset, lines: 0, pendingLines: 0, size: 0 };
  try {
    const { size } = await handle.stat();
    const start = Math.min(offset, size);
    const rest = Buffer.alloc(size - start);
    await handle.read(rest, 0, rest.length, start);
    const lastNl = rest.lastIndexOf(0x0a);
    const whole = lastNl < 0 ? Buffer.alloc(0) : rest.subarray(0, lastNl + 1);
    let cut = whole.length;
    if (whole.length > CHUNK_BYTES) {
      const at = whole.lastIndexOf(0x0a, CHUNK_BYTES - 1);
      // One line longer than the chunk is taken whole rather than cut.
      cut = at >= 0 ? at + 1 : whole.indexOf(0x0a) + 1;
    }
    const chunk = whole.subarray(0, cut);
    const count = (b: Buffer): number => {
      let n = 0;
      for (let i = b.indexOf(0x0a); i >= 0; i = b.indexOf(0x0a, i + 1)) n++;
      return n;
    };
    return { text: chunk.toString('utf8'), end: start + cut, lines: count(chunk), pendingLines: count(whole), size };
  } finally {
    await handle.close();
  }
}

/** One memory trigger at `at`, deduplicated by its time so repeated schedules collapse. */
async function scheduleAt(deps: DistillDeps, at: number): Promise<void> {
  await deps.triggers.emit({ source: 'memory', sessionId: 'memory', fireAt: at, priority: 200, dedupKey: `memory:at:${at}` });
}

export async function runDistillation(deps: DistillDeps): Promise<DistillOutcome> {
  const settings = { ...MEMORY_DEFAULTS, ...deps.settings() };
  if (!settings.enabled) {
    deps.logger.info('TASK', 'memory: distillation is switched off (tasklane.memory.enabled); nothing was read or sent.');
    return 'disabled';
  }
  await settlePending(deps);
  const now = deps.clock.now();
  const interval = settings.intervalMinutes * 60_000;
  const cursor = readCursor(deps.db);
  if (cursor.lastRunAt && now - cursor.lastRunAt < interval) {
    await scheduleAt(deps, cursor.lastRunAt + interval);
    return 'too_soon';
  }
  let chunk = await readChunk(deps.eventsFile, cursor.offset);
  if (cursor.offset > chunk.size) {
    // EVENT.md was replaced or truncated by hand: start again from its beginning.
    deps.logger.warn('TASK', `memory: EVENT.md is shorter than the memory cursor (${cursor.offset} > ${chunk.size} bytes); reading it from the start.`);
    cursor.offset = 0;
    chunk = await readChunk(deps.eventsFile, 0);
  }
  if (chunk.pendingLines < settings.minEvents) {
    deps.logger.info('TASK', `memory: ${chunk.pendingLines} new events (< ${settings.minEvents}); not worth a model call yet.`);
    return 'too_few';
  }
  const learnable = withoutChoreLines(chunk.text);
  if (!learnable.text.trim()) {
    // Only chore runs spoke: nothing may be learnt, and the chunk is done with.
    writeCursor(deps.db, { offset: chunk.end, lastRunAt: now });
    await deps.db.commit();
    deps.logger.info('TASK', `memory: the ${chunk.lines} new events all came from chore runs, which never go into memory; no model call.`);
    return 'only_chores';
  }
  let response: ModelResponse;
  let content: string;
  try {
    const client = await deps.model();
    ({ response, content } = await distillChunk(client, deps.memoryFile, learnable.text, settings.maxChars, deps.signal));
  } catch (error) {
    writeCursor(deps.db, { offset: cursor.offset, lastRunAt: now });
    await deps.db.commit();
    await scheduleAt(deps, now + interval);
    deps.logger.warn(
      'TASK',
      `memory: distillation failed (${(error as Error).message}); ${chunk.pendingLines} events wait, retrying at the next interval (${new Date(now + interval).toISOString()}).`,
    );
    return 'model_unavailable';
  }
  const fitted = fitEntries(content, settings.maxChars);
  const pendingFile = `${deps.memoryFile}.next`;
  await writeAtomic(pendingFile, JSON.stringify({ offset: chunk.end, content: fitted }));
  writeCursor(deps.db, { offset: chunk.end, lastRunAt: now });
  await deps.db.commit();
  await writeAtomic(deps.memoryFile, fitted);
  await fs.rm(pendingFile, { force: true });
  await deps.onUsage?.(response, chunk.lines);
  deps.logger.info(
    'TASK',
    `memory: distilled ${chunk.lines} events into ${path.basename(deps.memoryFile)} (${response.usage.inputTokens} in / ${response.usage.outputTokens} out tokens)`,
  );
  if (chunk.pendingLines - chunk.lines >= settings.minEvents) await scheduleAt(deps, now + interval);
  return 'distilled';
}
