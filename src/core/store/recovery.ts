import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
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
  journalRecordsReplayed: number;
  /** A torn or corrupt tail was found (and ignored) in some journal segment. */
  tornRecordIgnored: boolean;
  ignoredBytes: number;
  /** Records that failed to apply (should never happen: it means the journal and the db disagree). */
  recordsFailed: number;
  /** Highest lsn per segment, for pruning obsolete segments later. */
  segmentMaxLsn: Map<number, number>;
  /** Per segment: bytes of good records, so a writer can cut a torn tail off. */
  segmentValidBytes: Map<number, number>;
  notices: string[];
}

function loadNewestGoodSnapshot(sqlJs: SqlJsStatic, listing: DirListing, notices: string[]) {
  const corrupt: string[] = [];
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
          return { sql, lsn: snapshot.lsn, journalSeq: unsealed.journalSeq, corrupt };
        } catch (error) {
          sql.close();
          reason = (error as Error).message;
        }
      }
    } catch (error) {
      reason = (error as Error).message;
    }
    corrupt.push(`${path.basename(snapshot.file)}: ${reason}`);
  }
  if (corrupt.length > 0) {
    notices.push(
      `No readable Tasklane snapshot (${corrupt.join('; ')}); state was rebuilt from the journal alone and may be incomplete. ` +
        `Check the session list; the damaged files are left in place for inspection.`,
    );
  }
  return { sql: null, lsn: 0, journalSeq: 0, corrupt };
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
    journalRecordsReplayed: 0,
    tornRecordIgnored: false,
    ignoredBytes: 0,
    recordsFailed: 0,
    segmentMaxLsn: new Map(),
    segmentValidBytes: new Map(),
    notices,
  };
  let gapReported = false;
  // One outer transaction: replaying thousands of records one autocommit at a time is far slower.
  sql.exec('BEGIN');
  for (const segment of listing.journals) {
    // Taken at a later segment, the snapshot holds every record of this one: not even read. (Kept
    // on disk for the previous snapshot; pruned after the next one. Its numbers stay unknown here,
    // which the writer's pruning reads as "covered", as it is.)
    if (segment.seq < loaded.journalSeq) continue;
    // Records the snapshot holds are only checksummed, not parsed (see decodeJournal).
    const decoded = decodeJournal(fs.readFileSync(segment.file), { applied: result.lastLsn });
    result.segmentValidBytes.set(segment.seq, decoded.validBytes);
    if (decoded.lastLsn > 0) result.segmentMaxLsn.set(segment.seq, decoded.lastLsn);
    if (decoded.ignoredBytes > 0) {
      result.tornRecordIgnored = true;
      result.ignoredBytes += decoded.ignoredBytes;
      notices.push(
        `The last journal record in ${path.basename(segment.file)} was incomplete or damaged (a crash or full disk mid-write); ` +
          `its ${decoded.ignoredBytes} bytes were ignored and everything before them kept.`,
      );
    }
    for (const record of decoded.records) {
      // A record at or below what is applied is either in the snapshot or a retried write.
      if (record.lsn <= result.lastLsn) continue;
      if (record.lsn !== result.lastLsn + 1 && !gapReported) {
        gapReported = true;
        notices.push(
          `Tasklane's journal skips from record ${result.lastLsn} to ${record.lsn}: some changes were lost (a damaged snapshot ` +
            `whose journal was already pruned?). Review recent sessions and tasks.`,
        );
      }
      try {
        for (const statement of record.statements) sql.run(statement.sql, statement.params);
      } catch {
        result.recordsFailed += 1;
      }
      result.lastLsn = record.lsn;
      result.journalRecordsReplayed += 1;
    }
  }
  sql.exec('COMMIT');
  if (result.recordsFailed > 0) {
    notices.push(`${result.recordsFailed} journal record(s) could not be re-applied at open; state may differ slightly from before the restart.`);
  }
  return result;
}
