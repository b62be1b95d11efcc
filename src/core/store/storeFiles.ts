import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from './crc32';

/**
 * File layout of one store folder (docs/STORAGE.md):
 *   lease.json                    owner pid + heartbeat
 *   snapshot-<lsn>.db             sql.js export + 20-byte trailer; the newest two are kept
 *   journal-<seq>.log             checksummed mutation records, one segment per open/snapshot
 *   history/triggers.jsonl        acked and cancelled triggers, append-only
 */

const SNAPSHOT_RE = /^snapshot-(\d{16})\.db$/;
const JOURNAL_RE = /^journal-(\d{8})\.log$/;
/** v1: `[magic][crc u32][db length u32]`; v2 puts `[journal seq u32]` before that, under the crc. */
const TRAILER_MAGIC_V1 = Buffer.from('TLSNAP01', 'latin1');
const TRAILER_MAGIC = Buffer.from('TLSNAP02', 'latin1');
const TRAILER_BYTES = 16;

export const LEASE_FILE = 'lease.json';

export function snapshotName(lsn: number): string {
  return `snapshot-${String(lsn).padStart(16, '0')}.db`;
}

export function journalName(seq: number): string {
  return `journal-${String(seq).padStart(8, '0')}.log`;
}

export interface DirListing {
  /** Newest first. */
  snapshots: Array<{ file: string; lsn: number }>;
  /** Oldest first. */
  journals: Array<{ file: string; seq: number }>;
  /** Leftovers of snapshot writes a crash interrupted: never valid, safe to delete. */
  tempFiles: string[];
}

export function listStoreDir(dir: string): DirListing {
  const snapshots: DirListing['snapshots'] = [];
  const journals: DirListing['journals'] = [];
  const tempFiles: string[] = [];
  for (const name of fs.readdirSync(dir)) {
    if (/^(snapshot-\d{16}\.db|manifest\.json)(\.\d+-[0-9a-f]+)?\.tmp$/.test(name)) tempFiles.push(path.join(dir, name));
    const s = SNAPSHOT_RE.exec(name);
    if (s) snapshots.push({ file: path.join(dir, name), lsn: Number(s[1]) });
    const j = JOURNAL_RE.exec(name);
    if (j) journals.push({ file: path.join(dir, name), seq: Number(j[1]) });
  }
  snapshots.sort((a, b) => b.lsn - a.lsn);
  journals.sort((a, b) => a.seq - b.seq);
  return { snapshots, journals, tempFiles };
}

/**
 * Appends the trailer that lets open() reject a truncated or bit-flipped snapshot before sql.js
 * sees it. `journalSeq` is the journal segment that was current when the snapshot was taken:
 * every record of the segments before it is in the snapshot, so an open that uses this snapshot
 * need not read them (they are kept only for rolling the previous snapshot forward).
 */
export function sealSnapshot(dbBytes: Uint8Array, journalSeq = 0): Buffer {
  const out = Buffer.allocUnsafe(dbBytes.length + 4 + TRAILER_BYTES);
  out.set(dbBytes, 0);
  out.writeUInt32LE(journalSeq, dbBytes.length);
  const at = dbBytes.length + 4;
  TRAILER_MAGIC.copy(out, at);
  out.writeUInt32LE(crc32(out, 0, at), at + 8);
  out.writeUInt32LE(dbBytes.length, at + 12);
  return out;
}

/** A snapshot's database bytes and the journal segment it was taken at (0: unknown, a v1 snapshot). */
export interface UnsealedSnapshot {
  db: Uint8Array;
  journalSeq: number;
}

/** Returns the database bytes and the segment they cover up to, or a reason the snapshot cannot be trusted. */
export function unsealSnapshotFile(file: Buffer): UnsealedSnapshot | { corrupt: string } {
  if (file.length < TRAILER_BYTES) return { corrupt: 'file too short' };
  const at = file.length - TRAILER_BYTES;
  const magic = file.subarray(at, at + 8);
  const v2 = magic.equals(TRAILER_MAGIC);
  if (!v2 && !magic.equals(TRAILER_MAGIC_V1)) return { corrupt: 'missing trailer (truncated write?)' };
  const dbLength = v2 ? at - 4 : at;
  if (dbLength < 0 || file.readUInt32LE(at + 12) !== dbLength) return { corrupt: 'length mismatch' };
  if (crc32(file, 0, at) !== file.readUInt32LE(at + 8)) return { corrupt: 'checksum mismatch' };
  return { db: new Uint8Array(file.buffer, file.byteOffset, dbLength), journalSeq: v2 ? file.readUInt32LE(dbLength) : 0 };
}

/** Returns the database bytes, or a reason the snapshot cannot be trusted. */
export function unsealSnapshot(file: Buffer): Uint8Array | { corrupt: string } {
  const unsealed = unsealSnapshotFile(file);
  return 'corrupt' in unsealed ? unsealed : unsealed.db;
}

/**
 * Renames a damaged file to `<name>.damaged` (numbered if that exists): out of every listing, never
 * read or pruned again, left for a person to inspect.
 */
export function moveAside(file: string): string | null {
  for (let n = 0; n < 100; n++) {
    const target = `${file}.damaged${n === 0 ? '' : `.${n}`}`;
    if (fs.existsSync(target)) continue;
    try {
      fs.renameSync(file, target);
      return target;
    } catch {
      return null;
    }
  }
  return null;
}

/** temp file, fsync, rename, fsync the folder: a crash leaves either the old or the new file, never half of one. */
export async function writeFileAtomic(file: string, data: Uint8Array): Promise<void> {
  // Named for this writer: a replaced owner finishing a write of its own cannot take this one's temp file.
  const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const handle = await fs.promises.open(temp, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.promises.rename(temp, file);
  await fsyncDir(path.dirname(file));
}

export async function fsyncDir(dir: string): Promise<void> {
  // Windows cannot open a folder for fsync; there rename is already durable enough.
  if (process.platform === 'win32') return;
  const handle = await fs.promises.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The journal's write path, injectable so tests can make the disk full or read-only on demand. */
export interface JournalIo {
  /** Opens (creating if needed) a segment for writing; returns its descriptor. */
  open(file: string, flags: number): number;
  /** Makes a folder's entries durable (a newly created segment). */
  syncDir(dir: string): void;
  /** Writes all of data at position (no O_APPEND, so a retried batch overwrites a torn tail). */
  write(fd: number, data: Buffer, position: number): Promise<void>;
  fdatasync(fd: number): Promise<void>;
}

export const nodeJournalIo: JournalIo = {
  open: (file, flags) => fs.openSync(file, flags, 0o600),
  syncDir(dir) {
    // Windows cannot open a folder for fsync; there the entry is durable enough.
    if (process.platform === 'win32') return;
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  write(fd, data, position) {
    return new Promise((resolve, reject) => {
      const step = (offset: number): void => {
        fs.write(fd, data, offset, data.length - offset, position + offset, (error, written) => {
          if (error) return reject(error);
          if (offset + written < data.length) return step(offset + written);
          resolve();
        });
      };
      step(0);
    });
  },
  fdatasync(fd) {
    return new Promise((resolve, reject) => fs.fdatasync(fd, (error) => (error ? reject(error) : resolve())));
  },
};
