/** The archive's on-disk record format and file helpers (archive.ts moves and reads; docs/STORAGE.md "The archive"). */
import * as fs from 'node:fs';
import * as z from 'zod/v4';
import type { ArchiveKind } from './archiveRules';
import { ARCHIVE_KINDS } from './archiveRules';
import type { Row } from './types';

/** One archived row, as search, history and export see it. */
export interface ArchivedRecord {
  kind: ArchiveKind;
  id: string;
  sessionId?: string;
  taskId?: string;
  /** When the work ended (or the session was last active), ms. */
  at: number;
  /** Lower-cased text search matches against. */
  text: string;
  /** The hot row as it was, column by column. */
  row: Row;
}

/** Every archived record's payload starts with its kind: what a read past damage looks for. */
export const ARCHIVE_PAYLOAD_PREFIX = Buffer.from('{"k":', 'latin1');

export const watermarkSchema = z.object({ f: z.string(), o: z.number().int().nonnegative() });

/**
 * An archived record's envelope (its frame's checksum already passed). The row inside, `d`, is
 * decoded by its reader (decodeSession, decodeTask, decodeRun); a record that does not fit is left out.
 */
const recordSchema = z.object({
  k: z.enum(ARCHIVE_KINDS),
  id: z.string(),
  s: z.string().optional(),
  tk: z.string().optional(),
  t: z.number(),
  q: z.string(),
  d: z.record(z.string(), z.unknown()),
});

export function decode(json: string): ArchivedRecord | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return undefined;
  }
  const parsed = recordSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const r = parsed.data;
  return { kind: r.k, id: r.id, ...(r.s ? { sessionId: r.s } : {}), ...(r.tk ? { taskId: r.tk } : {}), at: r.t, text: r.q, row: r.d as Row };
}

export function readRange(file: string, from: number, to: number): Buffer {
  const bytes = Buffer.alloc(Math.max(0, to - from));
  if (bytes.length === 0) return bytes;
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, bytes, 0, bytes.length, from);
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}

export function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Not every platform can fsync a directory; the file's own sync still holds its bytes.
  }
}
