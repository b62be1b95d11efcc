/**
 * Reading a session's event stream backwards by seq: a page from the stream's recent lines when they
 * cover it, else from the file, scanning back from the nearest remembered page boundary
 * (docs/STORAGE.md, "Event streams"). `eventLog.ts` owns the streams and calls these.
 */
import * as fs from 'node:fs/promises';
import type { TaskEvent } from './types';

/** Page boundaries remembered per stream (seq → byte offset), so paging back is O(page). */
const ANCHORS_KEPT = 64;
const CHUNK = 64 * 1024;

export interface Stream {
  /** Bytes of whole, valid lines. */
  size: number;
  /** Seq of the last event (seqs are dense from 1: line n has seq n). */
  count: number;
  /** Byte offset where the line of a seq starts, for seqs seen as page boundaries. */
  anchors: Map<number, number>;
  /** Open (append mode) only between an append and the flush that syncs it. */
  fd?: number;
  /** Written through `fd` since it was opened, not yet synced. */
  dirty: boolean;
  /** The lines of seqs `recentFrom`..`count`, as written (empty when none is kept). */
  recent: string[];
  recentFrom: number;
  recentChars: number;
  /** Serialises appends, flushes and reads of this stream. */
  tail: Promise<unknown>;
  /** Operations queued on `tail`: a busy stream is never evicted (its seq must not be re-read). */
  busy: number;
}

/**
 * The page `read` would return, from the stream's recent lines, or undefined when they do not
 * cover it. `marker` skips lines without it before parsing (see `tail`).
 */
export function recentPage(stream: Stream, options: { beforeSeq?: number; limit: number }, marker?: string): TaskEvent[] | undefined {
  const end = Math.min(stream.count + 1, Math.max(1, options.beforeSeq ?? stream.count + 1));
  const start = Math.max(1, end - Math.max(0, options.limit));
  if (end <= start) return [];
  if (start < stream.recentFrom) return undefined;
  const lines = stream.recent.slice(start - stream.recentFrom, end - stream.recentFrom);
  return lines.filter((line) => !marker || line.includes(marker)).map((line) => JSON.parse(line) as TaskEvent);
}

export function parseSeq(line: Buffer): number | undefined {
  try {
    const seq = (JSON.parse(line.toString('utf8')) as { seq?: unknown }).seq;
    return typeof seq === 'number' && Number.isInteger(seq) && seq > 0 ? seq : undefined;
  } catch {
    return undefined;
  }
}

/** Offset of the last '\n' strictly before `end`, or -1. */
export async function lastNewlineBefore(handle: fs.FileHandle, end: number): Promise<number> {
  let pos = end;
  const buffer = Buffer.alloc(Math.min(CHUNK, Math.max(1, end)));
  while (pos > 0) {
    const start = Math.max(0, pos - buffer.length);
    const { bytesRead } = await handle.read(buffer, 0, pos - start, start);
    const at = buffer.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (at >= 0) return start + at;
    pos = start;
  }
  return -1;
}

export async function readPage(file: string, stream: Stream, options: { beforeSeq?: number; limit: number }, marker?: string): Promise<TaskEvent[]> {
  const end = Math.min(stream.count + 1, Math.max(1, options.beforeSeq ?? stream.count + 1));
  const start = Math.max(1, end - Math.max(0, options.limit));
  if (end <= start) return [];
  // The nearest known line start at or after `end` (the file's end stands for seq count + 1).
  let fromSeq = stream.count + 1;
  let fromOffset = stream.size;
  for (const [seq, offset] of stream.anchors) {
    if (seq >= end && seq < fromSeq) {
      fromSeq = seq;
      fromOffset = offset;
    }
  }
  const handle = await fs.open(file, 'r');
  try {
    // Read back from `fromOffset` until the line of `start` begins: lines needed = fromSeq - start.
    const chunks: Buffer[] = [];
    let pos = fromOffset;
    let needed = fromSeq - start;
    let startOffset = 0;
    let found = false;
    let skipLast = true; // the byte before fromOffset is the newline ending line fromSeq - 1
    while (pos > 0 && !found) {
      const from = Math.max(0, pos - CHUNK);
      const chunk = Buffer.alloc(pos - from);
      await handle.read(chunk, 0, chunk.length, from);
      for (let i = chunk.length - 1; i >= 0; i--) {
        if (chunk[i] !== 0x0a) continue;
        if (skipLast) {
          skipLast = false;
          continue;
        }
        needed--;
        if (needed === 0) {
          startOffset = from + i + 1;
          chunks.unshift(chunk.subarray(i + 1));
          found = true;
          break;
        }
      }
      if (!found) chunks.unshift(chunk);
      pos = from;
    }
    // Reaching the start of the file means the page starts at line 1.
    const bytes = Buffer.concat(chunks);
    const lines = bytes.toString('utf8').split('\n').filter(Boolean);
    const pageLines = lines.slice(0, end - start);
    const events = pageLines.filter((line) => !marker || line.includes(marker)).map((line) => JSON.parse(line) as TaskEvent);
    remember(stream, start, startOffset);
    if (pageLines.length > 0) remember(stream, end, startOffset + Buffer.byteLength(pageLines.join('\n'), 'utf8') + 1);
    return events;
  } finally {
    await handle.close();
  }
}

export function remember(stream: Stream, seq: number, offset: number): void {
  stream.anchors.delete(seq);
  stream.anchors.set(seq, offset);
  if (stream.anchors.size > ANCHORS_KEPT) stream.anchors.delete(stream.anchors.keys().next().value as number);
}
