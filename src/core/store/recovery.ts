import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { JournalRecord } from './journalFormat';
import { decodeJournal } from './journalFormat';
import { SqlRunner } from './sqlRunner';
import type { DirListing } from './storeFiles';
import { unsealSnapshotFile } from './storeFiles';

/** What loading the last snapshot and replaying the journal found. */
export interface RecoveryResult {
  sql: SqlRunner;
  /** lsn of the snapshot used (0: none). */
  snapshotLsn: number;
  /** Highest lsn now applied. */
  lastLsn: number;
  /** The newest snapshot could not be used and an older one (or none) was. */
  snapshotFallback: boolean;
  corruptSnapshots: string[];
  /** The damaged snapshots' paths (a writable open moves them aside). */
  corruptSnapshotFiles: string[];
  /** The snapshot that was loaded (its name), known good. */
  loadedSnapshot: string | null;
  journalRecordsReplayed: number;
  /** A torn or corrupt tail was found (and ignored) in some journal segment. */
  tornRecordIgnored: boolean;
  ignoredBytes: number;
  /** Records that failed to apply (should never happen: it means the journal and the db disagree). */
  recordsFailed: number;
  /** Records lost to damage between good records (a flipped bit at rest), counted from the lsn gap. */
  damagedRecords: number;
  /** Records an owner wrote after a newer owner took the store over (fenced by epoch), discarded. */
  staleRecords: number;
  /** The highest writer epoch in the journal: a new owner's epoch is above it. */
  maxEpoch: number;
  /** Highest lsn per segment, for pruning obsolete segments later. */
  segmentMaxLsn: Map<number, number>;
  /** Per segment: bytes of good records, so a writer can cut a torn tail off. */
  segmentValidBytes: Map<number, number>;
  notices: string[];
}

function loadNewestGoodSnapshot(sqlJs: SqlJsStatic, listing: DirListing, notices: string[]) {
  const corrupt: string[] = [];
  const corruptFiles: string[] = [];
  for (const snapshot of listing.snapshots) {
    let reason: string;
    try {
      const unsealed = unsealSnapshotFile(fs.readFileSync(snapshot.file));
      if ('corrupt' in unsealed) {
        reason = unsealed.corrupt;
      } else {
        const sql = new SqlRunner(sqlJs, unsealed.db);
        try {
          // Opening is lazy in SQLite: touch the schema so a damaged file fails here, not later.
          sql.all('SELECT count(*) AS n FROM sqlite_master');
          if (corrupt.length > 0) {
            notices.push(
              `Tasklane's newest saved state (${corrupt.join(', ')}) was damaged; it recovered from the previous good snapshot ` +
                `${path.basename(snapshot.file)} plus the journal. Nothing needs doing unless recent work looks missing.`,
            );
          }
          return { sql, lsn: snapshot.lsn, journalSeq: unsealed.journalSeq, corrupt, corruptFiles, loaded: path.basename(snapshot.file) };
        } catch (error) {
          sql.close();
          reason = (error as Error).message;
        }
      }
    } catch (error) {
      reason = (error as Error).message;
    }
    corrupt.push(`${path.basename(snapshot.file)}: ${reason}`);
    corruptFiles.push(snapshot.file);
  }
  if (corrupt.length > 0) {
    notices.push(
      `No readable Tasklane snapshot (${corrupt.join('; ')}); state was rebuilt from the journal alone and may be incomplete. ` +
        `Check your conversations (the Chat view's History); the damaged files are kept beside the store as *.damaged for inspection.`,
    );
  }
  return { sql: null, lsn: 0, journalSeq: 0, corrupt, corruptFiles, loaded: null };
}

/** Rebuilds the hot database: newest good snapshot, then every journal record after it, in lsn order. */
export function recover(sqlJs: SqlJsStatic, listing: DirListing): RecoveryResult {
  const notices: string[] = [];
  const loaded = loadNewestGoodSnapshot(sqlJs, listing, notices);
  const sql = loaded.sql ?? new SqlRunner(sqlJs);
  const result: RecoveryResult = {
    sql,
    snapshotLsn: loaded.lsn,
    lastLsn: loaded.lsn,
    snapshotFallback: loaded.corrupt.length > 0,
    corruptSnapshots: loaded.corrupt,
    corruptSnapshotFiles: loaded.corruptFiles,
    loadedSnapshot: loaded.loaded,
    journalRecordsReplayed: 0,
    tornRecordIgnored: false,
    ignoredBytes: 0,
    recordsFailed: 0,
    damagedRecords: 0,
    staleRecords: 0,
    maxEpoch: 0,
    segmentMaxLsn: new Map(),
    segmentValidBytes: new Map(),
    notices,
  };
  // Decoded whole first: whether a record is stale (written by an owner after a newer owner took
  // the store) depends on records in later segments.
  const segments = listing.journals
    // Taken at a later segment, the snapshot holds every record of this one: not even read. (Kept
    // on disk for the previous snapshot; pruned after the next one. Its numbers stay unknown here,
    // which the writer's pruning reads as "covered", as it is.)
    .filter((segment) => segment.seq >= loaded.journalSeq)
    // Records the snapshot holds are only checksummed, not parsed (see decodeJournal).
    .map((segment) => ({ segment, decoded: decodeJournal(fs.readFileSync(segment.file), { applied: result.lastLsn }) }));
  const newerOwnerFrom = fencesByEpoch(segments.flatMap((s) => s.decoded.records));
  let stale = 0;
  let gapReported = false;
  // One outer transaction: replaying thousands of records one autocommit at a time is far slower.
  sql.exec('BEGIN');
  for (const { segment, decoded } of segments) {
    const name = path.basename(segment.file);
    result.segmentValidBytes.set(segment.seq, decoded.validBytes);
    if (decoded.lastLsn > 0) result.segmentMaxLsn.set(segment.seq, decoded.lastLsn);
    if (decoded.ignoredBytes > 0) {
      result.tornRecordIgnored = true;
      result.ignoredBytes += decoded.ignoredBytes;
      notices.push(
        `The last journal record in ${name} was cut short (a crash or a full disk mid-write); its ${decoded.ignoredBytes} bytes ` +
          `were ignored and everything before them kept. That change had not been reported as saved.`,
      );
    }
    const before = result.lastLsn;
    let damagedLost = 0;
    for (const record of decoded.records) {
      if ((record.epoch ?? 0) > result.maxEpoch) result.maxEpoch = record.epoch!;
      // A record at or below what is applied is either in the snapshot or a retried write.
      if (record.lsn <= result.lastLsn) continue;
      if ((newerOwnerFrom.get(record.epoch ?? 0) ?? Infinity) <= record.lsn) {
        stale += 1;
        continue;
      }
      if (record.lsn !== result.lastLsn + 1) {
        if (decoded.damaged.length > 0) damagedLost += record.lsn - result.lastLsn - 1;
        else if (!gapReported) {
          gapReported = true;
          notices.push(
            `Tasklane's journal skips from record ${result.lastLsn} to ${record.lsn}: a journal file is missing, so some changes ` +
              `were lost. Review recent sessions and tasks.`,
          );
        }
      }
      try {
        for (const statement of record.statements) sql.run(statement.sql, statement.params);
      } catch {
        result.recordsFailed += 1;
      }
      result.lastLsn = record.lsn;
      result.journalRecordsReplayed += 1;
    }
    if (decoded.damaged.length > 0) {
      result.damagedRecords += damagedLost;
      const bytes = decoded.damaged.reduce((sum, range) => sum + range.end - range.start, 0);
      notices.push(
        `${name} was damaged at rest (${bytes} bytes in ${decoded.damaged.length} place(s), not a crash): ` +
          `${damagedLost} change(s) in it were lost and every other record was kept` +
          `${damagedLost > 0 ? ` (records between ${before} and ${result.lastLsn})` : ''}. The file is kept as it is; review recent sessions and tasks.`,
      );
    }
  }
  sql.exec('COMMIT');
  if (stale > 0) {
    result.staleRecords = stale;
    notices.push(
      `${stale} change(s) written by a Tasklane window after another had taken over the store were discarded; the newer owner's ` +
        `changes were kept. If a reply appears missing, send it again.`,
    );
  }
  if (result.recordsFailed > 0) {
    notices.push(`${result.recordsFailed} journal record(s) could not be re-applied at open; state may differ slightly from before the restart.`);
  }
  return result;
}

/**
 * For each writer epoch, the lowest lsn a newer epoch wrote. A record of epoch e at or above that
 * lsn was written by an owner that had already been replaced (it did not yet know): the newer
 * owner's record at the same lsn is the true one.
 */
function fencesByEpoch(records: JournalRecord[]): Map<number, number> {
  const firstLsn = new Map<number, number>();
  for (const record of records) {
    const epoch = record.epoch ?? 0;
    firstLsn.set(epoch, Math.min(firstLsn.get(epoch) ?? Infinity, record.lsn));
  }
  const epochs = [...firstLsn.keys()].sort((a, b) => b - a);
  const fences = new Map<number, number>();
  let lowestAbove = Infinity;
  for (const epoch of epochs) {
    fences.set(epoch, lowestAbove);
    lowestAbove = Math.min(lowestAbove, firstLsn.get(epoch)!);
  }
  return fences;
}
