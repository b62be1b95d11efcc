import { crc32 } from './crc32';
import type { SqlValue } from './types';

/**
 * Journal record framing. A record is one atomic batch of deterministic SQL mutations:
 *
 *   [u32 LE payload length][u32 LE CRC-32 of payload][payload: UTF-8 JSON {"l": lsn, "s": [[sql, params], ...]}]
 *
 * The checksum is what lets replay tell a damaged record from a good one: a frame that does not
 * check out is skipped up to the next frame that does (resyncFrame), so a flipped bit costs one
 * record and the lsn gap names it; non-zero bytes after the last good frame are a torn tail.
 */

export interface JournalStatement {
  sql: string;
  params: SqlValue[];
}

export interface JournalRecord {
  /** Log sequence number: strictly increasing, so replay can skip what a snapshot already holds. */
  lsn: number;
  /** The writer's fencing token (its lease epoch); absent in records written before epochs. */
  epoch?: number;
  statements: JournalStatement[];
}

export interface DecodedJournal {
  /** The good records above `applied` (all of them when none was given), in file order. */
  records: JournalRecord[];
  /** lsn of the last good record, skipped ones included (0: none). */
  lastLsn: number;
  /** Bytes of well-formed records from the start of the buffer. */
  validBytes: number;
  /** Non-zero bytes after the last good record (a torn write at a crash or full disk); 0 when the file is clean or only zero-filled room follows. */
  ignoredBytes: number;
  /** Damage between good records (a flipped bit at rest): each range cost the records in it, not the ones after. */
  damaged: DamagedRange[];
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

/** A run of bytes between good frames that did not check out (a flipped bit, a damaged length). */
export interface DamagedRange {
  /** Offset of the first byte that did not check out. */
  start: number;
  /** Offset of the next good frame. */
  end: number;
}

/**
 * Finds the next frame at or after `from` whose length and checksum check out and whose payload
 * begins with `prefix` (every writer's payload starts the same way: `{"l":` for the journal, `{"k":`
 * for the archive). A flipped bit costs the one record it hit, not every record after it: each
 * frame is self-delimiting, so reading resumes at the next frame that proves itself.
 */
export function resyncFrame(bytes: Buffer, from: number, prefix: Buffer): number | undefined {
  for (let at = bytes.indexOf(prefix, from + HEADER_BYTES); at >= 0; at = bytes.indexOf(prefix, at + 1)) {
    if (frameIsValid(bytes, at - HEADER_BYTES)) return at - HEADER_BYTES;
  }
  return undefined;
}

/**
 * Walks the frames of `bytes` from `offset`, calling `visit(payloadStart, payloadEnd, frameStart)`
 * for each one whose length and checksum check out. Without `resync` it stops at the first frame
 * that does not; with it, it skips to the next good frame (see resyncFrame) and reports the
 * skipped range to `onDamage`. Returns the end of the last good frame.
 */
export function walkFrames(
  bytes: Buffer,
  offset: number,
  visit: (start: number, end: number, frameStart: number) => boolean | void,
  verify = true,
  resync?: { prefix: Buffer; onDamage?: (range: DamagedRange) => void },
): number {
  let goodEnd = offset;
  while (offset + HEADER_BYTES <= bytes.length) {
    const length = bytes.readUInt32LE(offset);
    const end = offset + HEADER_BYTES + length;
    const sane = length !== 0 && length <= MAX_RECORD_BYTES && end <= bytes.length;
    if (!sane || (verify && crc32(bytes, offset + HEADER_BYTES, end) !== bytes.readUInt32LE(offset + 4))) {
      // Preallocated zero room ends a segment: resyncFrame finds no payload in it and the walk stops.
      const next = resync ? resyncFrame(bytes, offset + 1, resync.prefix) : undefined;
      if (next === undefined) break;
      resync!.onDamage?.({ start: offset, end: next });
      offset = next;
      continue;
    }
    if (visit(offset + HEADER_BYTES, end, offset) === false) return end;
    offset = end;
    goodEnd = end;
  }
  return goodEnd;
}

/** The checksum of one frame at `frameStart` checks out. */
export function frameIsValid(bytes: Buffer, frameStart: number): boolean {
  if (frameStart + HEADER_BYTES > bytes.length) return false;
  const length = bytes.readUInt32LE(frameStart);
  const end = frameStart + HEADER_BYTES + length;
  return length > 0 && end <= bytes.length && crc32(bytes, frameStart + HEADER_BYTES, end) === bytes.readUInt32LE(frameStart + 4);
}

/** Every journal payload starts with its lsn: what resyncFrame looks for after damage. */
const JOURNAL_PAYLOAD_PREFIX = Buffer.from('{"l":', 'latin1');

export function encodeRecord(record: JournalRecord): Buffer {
  return encodeFrame(
    Buffer.from(
      JSON.stringify({
        l: record.lsn,
        ...(record.epoch !== undefined ? { e: record.epoch } : {}),
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
  const damaged: DamagedRange[] = [];
  let lastLsn = 0;
  const validBytes = walkFrames(
    bytes,
    0,
    (start, end) => {
      const lsn = payloadLsn(bytes, start, end);
      if (lsn !== undefined && lsn <= applied) {
        lastLsn = lsn;
        return;
      }
      let parsed: { l: number; e?: number; s: Array<[string, EncodedParam[]?]> };
      try {
        parsed = JSON.parse(bytes.toString('utf8', start, end));
      } catch {
        return; // checksummed yet not JSON: a writer bug, not damage; the lsn gap reports it
      }
      if (typeof parsed?.l !== 'number' || !Array.isArray(parsed.s)) return;
      records.push({
        lsn: parsed.l,
        ...(typeof parsed.e === 'number' ? { epoch: parsed.e } : {}),
        statements: parsed.s.map(([sql, params]) => ({ sql, params: (params ?? []).map(decodeParam) })),
      });
      lastLsn = parsed.l;
    },
    true,
    { prefix: JOURNAL_PAYLOAD_PREFIX, onDamage: (range) => damaged.push(range) },
  );
  // Segments are preallocated with zeros: an all-zero rest is room, not damage. A non-zero rest is
  // a torn tail: count its bytes, not the room after them.
  let tornEnd = bytes.length;
  while (tornEnd > validBytes && bytes[tornEnd - 1] === 0) tornEnd--;
  return { records, lastLsn, validBytes, ignoredBytes: tornEnd - validBytes, damaged };
}
