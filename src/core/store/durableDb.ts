import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock, Logger } from '../ports';
import { silentLogger, systemClock } from '../ports';
import { DurableDbImpl } from './durableDbImpl';
import { JournalWriter } from './journalWriter';
import type { LeaseResult } from './lease';
import { acquireLease, StoreInUseError } from './lease';
import { recover } from './recovery';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from './schema';
import { SnapshotPruner } from './snapshotPruner';
import { journalName, listStoreDir, moveAside, nodeJournalIo } from './storeFiles';
import { readManifest, writeManifest } from './storeManifest';
import type { OpenDurableDbOptions, OpenedDurableDb, OpenReport } from './openedDb';
import type { DurableDb } from './types';

export type { OpenDurableDbOptions, OpenedDurableDb, OpenReport } from './openedDb';

/**
 * Opens (or creates) the store in `dir`: takes the lease, loads the newest good snapshot, replays
 * the journal after it, starts a new journal segment (and says so in the manifest), cuts off torn
 * tails and applies migrations. A failed open lets go of the lease it took.
 */
export async function openDurableDb(options: OpenDurableDbOptions): Promise<OpenedDurableDb> {
  const startedAt = performance.now();
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const ownerId = options.ownerId ?? randomUUID();
  makeStoreFolder(options.dir);

  let impl: DurableDbImpl | null = null;
  const leaseResult = await acquireLease(options.dir, {
    ...options.lease,
    ownerId,
    onLost: (holder) => impl?.leaseWasLost(holder),
    onTick: () => impl?.heartbeat(),
  });
  const lease = leaseResult.kind === 'owner' ? leaseResult.lease : null;
  if (leaseResult.kind === 'readOnly' && options.whenInUse === 'throw') throw new StoreInUseError(options.dir, leaseResult.holder);
  try {
    impl = await openOwned(options, leaseResult, { clock, logger, ownerId });
  } catch (error) {
    lease?.release();
    throw error;
  }
  impl.opened.openMs = performance.now() - startedAt;
  logger.info(
    'STORE',
    `Opened ${journalName(impl.writerSeq)} in ${impl.opened.openMs.toFixed(1)} ms: snapshot lsn ${impl.opened.snapshotLsn}, ` +
      `${impl.opened.journalRecordsReplayed} journal record(s) replayed${impl.readOnly ? ', read-only' : ''}.`,
  );
  return impl;
}

async function openOwned(
  options: OpenDurableDbOptions,
  leaseResult: LeaseResult,
  env: { clock: Clock; logger: Logger; ownerId: string },
): Promise<DurableDbImpl> {
  const readOnly = leaseResult.kind === 'readOnly';
  const lease = leaseResult.kind === 'owner' ? leaseResult.lease : null;
  const listing = listStoreDir(options.dir);
  const manifest = readManifest(options.dir);
  const recovered = recover(options.sqlJs, listing);
  const notices = [...recovered.notices];
  const missing = manifest && !listing.journals.some((j) => j.seq === manifest.segment) && manifest.segment > (listing.journals.at(-1)?.seq ?? 0);
  if (missing) {
    notices.push(
      `Tasklane's newest journal file (${journalName(manifest.segment)}) is missing: changes saved after the last snapshot were lost ` +
        `(a file removed, or a power cut on a file system that lost it). Review recent sessions and tasks.`,
    );
  }
  if (leaseResult.kind === 'readOnly') {
    const holder = leaseResult.holder;
    notices.push(
      `Tasklane's storage is in use by another process (pid ${holder.pid}${holder.hostname ? ` on ${holder.hostname}` : ''}); ` +
        `this window opened it read-only and will not run tasks. Close the other window on this folder, then reload this one.`,
    );
  } else if (leaseResult.tookOverFrom) {
    env.logger.info('STORE', `Took over the store lease from pid ${leaseResult.tookOverFrom.pid}, which is no longer running.`);
  }

  let impl: DurableDbImpl | null = null;
  let writer: JournalWriter | null = null;
  if (lease) {
    // Above every owner the journal or the manifest knows of: this owner's records win over any a
    // replaced owner still writes (recovery.ts fencesByEpoch).
    lease.raiseEpoch(Math.max(recovered.maxEpoch, manifest?.epoch ?? 0));
    for (const temp of listing.tempFiles) fs.rmSync(temp, { force: true });
    // Damaged snapshots are kept for inspection but out of the listing, so no later prune can count them.
    for (const file of recovered.corruptSnapshotFiles) moveAside(file);
    // Numbered before any empty segment goes, so segment numbers only ever grow; the manifest names
    // the new segment before any old one is removed.
    const nextSeq = Math.max(listing.journals.at(-1)?.seq ?? 0, manifest?.segment ?? 0) + 1;
    const dsync = options.dsync ?? (process.platform !== 'win32' && typeof fs.constants.O_DSYNC === 'number');
    writer = new JournalWriter(
      options.dir,
      nextSeq,
      options.io ?? nodeJournalIo,
      dsync,
      () => impl?.flushed(),
      (error) => impl?.handleCommitFailure(error),
      {
        stillOwner: (force) => impl?.guard.stillOwner(force) ?? true,
        lostError: () => impl!.guard.lostError(),
        segmentVanished: () => impl?.guard.segmentVanished() ?? Promise.resolve(false),
      },
    );
    for (const [seq, lsn] of recovered.segmentMaxLsn) writer.segmentMaxLsn.set(seq, lsn);
    await writeManifest(options.dir, { segment: nextSeq, epoch: lease.epoch });
    // Cut torn tails (a damaged middle is kept: its good records are read past it). A segment with
    // no good record (a run that wrote nothing: every open starts one) is removed, so a store that
    // is opened often but seldom changes does not gather empty files to read at every start.
    for (const segment of listing.journals) {
      const valid = recovered.segmentValidBytes.get(segment.seq);
      if (valid === 0) fs.rmSync(segment.file, { force: true });
      else if (valid !== undefined && valid < fs.statSync(segment.file).size) fs.truncateSync(segment.file, valid);
    }
  }

  const report: OpenReport = {
    restarted: listing.snapshots.length > 0 || listing.journals.length > 0,
    readOnly,
    owner: leaseResult.kind === 'readOnly' ? leaseResult.holder : null,
    tookOverFrom: leaseResult.kind === 'owner' ? leaseResult.tookOverFrom : null,
    snapshotLsn: recovered.snapshotLsn,
    snapshotFallback: recovered.snapshotFallback,
    corruptSnapshots: recovered.corruptSnapshots,
    journalRecordsReplayed: recovered.journalRecordsReplayed,
    tornRecordIgnored: recovered.tornRecordIgnored,
    ignoredBytes: recovered.ignoredBytes,
    damagedRecords: recovered.damagedRecords,
    staleRecords: recovered.staleRecords,
    missingSegment: missing ? manifest.segment : null,
    schemaVersion: 0,
    migrated: [],
    openMs: 0,
    notices,
  };
  const pruner = new SnapshotPruner(options.dir);
  if (recovered.loadedSnapshot) pruner.knownGood(recovered.loadedSnapshot);
  impl = new DurableDbImpl(recovered.sql, writer, lease, report, options.dir, env.ownerId, env.clock, env.logger, recovered.lastLsn, options, pruner);
  try {
    report.schemaVersion = schemaVersion(impl);
    if (lease) {
      // A takeover marks where this owner's records begin, before anything else is written: a
      // replaced owner that still writes (it was frozen, and does not know yet) is fenced at replay.
      if (leaseResult.kind === 'owner' && leaseResult.tookOverFrom) impl.writeFence();
      for (const migration of MIGRATIONS) {
        if (migration.version <= report.schemaVersion) continue;
        impl.transaction((tx) => {
          for (const statement of migration.statements) tx.mutate(statement);
          tx.mutate(`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)`, [String(migration.version)]);
        });
        report.migrated.push(migration.version);
        report.schemaVersion = migration.version;
      }
      if (report.migrated.length > 0 || report.tookOverFrom) await impl.commit();
    } else if (report.schemaVersion < LATEST_SCHEMA_VERSION) {
      notices.push(
        `The store's schema is version ${report.schemaVersion}, older than ${LATEST_SCHEMA_VERSION}; it will be migrated when this window owns the store.`,
      );
    }
  } catch (error) {
    await impl.close().catch(() => undefined);
    throw error;
  }
  for (const notice of notices) impl.notice(notice);
  return impl;
}

/**
 * Creates the store folder, saying what is wrong in words when it cannot: a fresh store on a
 * read-only file system reports ENOENT from mkdir, which names the wrong cause.
 */
function makeStoreFolder(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const parent = path.dirname(dir);
    let why = (error as Error).message;
    if (code === 'EROFS' || (code === 'ENOENT' && fs.existsSync(parent)) || code === 'EACCES' || code === 'EPERM') {
      why = code === 'EACCES' || code === 'EPERM' ? 'permission was denied' : 'the file system is read-only';
    }
    throw new Error(
      `Tasklane cannot create its storage folder ${dir}: ${why}${code ? ` [${code}]` : ''}. Check the folder's permissions or free the disk, then reload the window.`,
      { cause: error },
    );
  }
}

function schemaVersion(db: DurableDb): number {
  const hasMeta = db.query(`SELECT 1 AS ok FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).length > 0;
  if (!hasMeta) return 0;
  const row = db.query(`SELECT value FROM meta WHERE key = 'schema_version'`)[0];
  return row ? Number(row.value) : 0;
}
