import { crc32 } from './crc32';
import type { SqlValue } from './types';

/**
 * Journal record framing. A record is one atomic batch of deterministic SQL mutations:
 *
 *   [u32 LE payload length][u32 LE CRC-32 of payload][payload: UTF-8 JSON {"l": lsn, "s": [[sql, params], ...]}]
 *
 * The checksum is what lets replay tell a torn or corrupt tail from a good record: reading stops
 * at the first frame that does not check out, and everything before it is kept.
 */

export interface JournalStatement {
  sql: string;
  params: SqlValue[];
}

export interface JournalRecord {
  /** Log sequence number: strictly increasing, so replay can skip what a snapshot already holds. */
  lsn: number;
  statements: JournalStatement[];
}

export interface DecodedJournal {
  /** The good records above `applied` (all of them when none was given), in file order. */
  records: JournalRecord[];
  /** lsn of the last good record, skipped ones included (0: none). */
  lastLsn: number;
  /** Bytes of well-formed records from the start of the buffer. */
  validBytes: number;
  /** Bytes after the last good record (a torn write or corruption); 0 when the file is clean or only zero-filled room follows. */
  ignoredBytes: number;
}

const HEADER_BYTES = 8;
/** A larger length field is corruption, not a real record: refuse to allocate for it. */
const MAX_RECORD_BYTES = 256 * 1024 * 1024;

type EncodedParam = SqlValue | { $b: string };

function encodeParam(value: SqlValue): EncodedParam {
  return value instanceof Uint8Array ? { $b: Buffer.from(value).toString('base64') } : value;
}

function decodeParam(value: EncodedParam): SqlValue {
  if (value !== null && typeof value === 'object' && '$b' in value) return new Uint8Array(Buffer.from(value.$b, 'base64'));
  return value;
}

/** One checksummed frame: `[u32 LE length][u32 LE CRC-32][payload]` (journal records, archive records). */
export function encodeFrame(payload: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  payload.copy(frame, HEADER_BYTES);
  return frame;
}

export const FRAME_HEADER_BYTES = HEADER_BYTES;

/**
 * Walks the frames of `bytes` from `offset`, calling `visit(payloadStart, payloadEnd, frameStart)`
 * for each one whose length and checksum check out; stops at the first that does not. Returns the
 * end of the last good frame.
 */
export function walkFrames(bytes: Buffer, offset: number, visit: (start: number, end: number, frameStart: number) => boolean | void, verify = true): number {
  while (offset + HEADER_BYTES <= bytes.length) {
    const length = bytes.readUInt32LE(offset);
    const end = offset + HEADER_BYTES + length;
    if (length === 0 || length > MAX_RECORD_BYTES || end > bytes.length) break;
    if (verify && crc32(bytes, offset + HEADER_BYTES, end) !== bytes.readUInt32LE(offset + 4)) break;
    if (visit(offset + HEADER_BYTES, end, offset) === false) return end;
    offset = end;
  }
  return offset;
}

/** The checksum of one frame at `frameStart` checks out. */
export function frameIsValid(bytes: Buffer, frameStart: number): boolean {
  if (frameStart + HEADER_BYTES > bytes.length) return false;
  const length = bytes.readUInt32LE(frameStart);
  const end = frameStart + HEADER_BYTES + length;
  return length > 0 && end <= bytes.length && crc32(bytes, frameStart + HEADER_BYTES, end) === bytes.readUInt32LE(frameStart + 4);
}

export function encodeRecord(record: JournalRecord): Buffer {
  return encodeFrame(
    Buffer.from(
      JSON.stringify({
        l: record.lsn,
        s: record.statements.map((s) => (s.params.length ? [s.sql, s.params.map(encodeParam)] : [s.sql])),
      }),
      'utf8',
    ),
  );
}

/** The lsn an encoded payload starts with (`{"l":<lsn>,`), or undefined when it does not. */
function payloadLsn(bytes: Buffer, start: number, end: number): number | undefined {
  const PREFIX = '{"l":';
  if (end - start < PREFIX.length + 2 || bytes.toString('latin1', start, start + PREFIX.length) !== PREFIX) return undefined;
  let lsn = 0;
  let at = start + PREFIX.length;
  for (; at < end && bytes[at] >= 0x30 && bytes[at] <= 0x39; at++) lsn = lsn * 10 + (bytes[at] - 0x30);
  return at > start + PREFIX.length && bytes[at] === 0x2c ? lsn : undefined;
}

/**
 * Decodes the good records of a segment. With `applied` (what a snapshot already holds), records
 * at or below it are checksummed and their lsn read, but not parsed: a segment kept only so that
 * an older snapshot could be rolled forward costs a checksum pass at open, not a parse of every
 * statement it holds (tens of MB after a large archive move).
 */
export function decodeJournal(bytes: Buffer, options: { applied?: number } = {}): DecodedJournal {
  const applied = options.applied ?? -1;
  const records: JournalRecord[] = [];
  let lastLsn = 0;
  let offset = 0;
  while (offset + HEADER_BYTES <= bytes.length) {
    const length = bytes.readUInt32LE(offset);
    const checksum = bytes.readUInt32LE(offset + 4);
    const end = offset + HEADER_BYTES + length;
    if (length === 0 || length > MAX_RECORD_BYTES || end > bytes.length) break;
    if (crc32(bytes, offset + HEADER_BYTES, end) !== checksum) break;
    const lsn = payloadLsn(bytes, offset + HEADER_BYTES, end);
    if (lsn !== undefined && lsn <= applied) {
      lastLsn = lsn;
      offset = end;
      continue;
    }
    let parsed: { l: number; s: Array<[string, EncodedParam[]?]> };
    try {
      parsed = JSON.parse(bytes.toString('utf8', offset + HEADER_BYTES, end));
    } catch {
      break;
    }
    if (typeof parsed?.l !== 'number' || !Array.isArray(parsed.s)) break;
    records.push({ lsn: parsed.l, statements: parsed.s.map(([sql, params]) => ({ sql, params: (params ?? []).map(decodeParam) })) });
    lastLsn = parsed.l;
    offset = end;
  }
  // Segments are preallocated with zeros: an all-zero rest is room, not damage.
  let rest = offset;
  while (rest < bytes.length && bytes[rest] === 0) rest++;
  return { records, lastLsn, validBytes: offset, ignoredBytes: rest === bytes.length ? 0 : bytes.length - offset };
}
