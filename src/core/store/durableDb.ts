import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock, Logger } from '../ports';
import { silentLogger, systemClock } from '../ports';
import type { JournalRecord, JournalStatement } from './journalFormat';
import { encodeRecord } from './journalFormat';
import type { CommitError } from './journalWriter';
import { JournalWriter } from './journalWriter';
import type { LeaseHolder, LeaseInfo } from './lease';
import { acquireLease } from './lease';
import { recover } from './recovery';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from './schema';
import type { SqlRunner } from './sqlRunner';
import { journalName, listStoreDir, moveAside, nodeJournalIo, sealSnapshot, snapshotName, unsealSnapshotFile, writeFileAtomic } from './storeFiles';
import type { OpenDurableDbOptions, OpenedDurableDb, OpenReport } from './openedDb';
import type { DurableDb, Row, SqlValue } from './types';

export type { OpenDurableDbOptions, OpenedDurableDb, OpenReport } from './openedDb';

const TX_CONTROL = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
/**
 * Plain row statements. One of these that changed no row had no effect (no row, so no SQL trigger
 * or cascade fired either), and replaying it would have none: it is not journaled, so a start-up
 * clean-up that finds nothing to clean costs no disk write. Anything else (DDL, a WITH prefix)
 * is always journaled: its `changes` count says nothing about its effect.
 */
const ROW_STATEMENT = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;

class DurableDbImpl implements OpenedDurableDb {
  private inTransaction = false;
  private txStatements: JournalStatement[] = [];
  private recordsSinceSnapshot = 0;
  private snapshotting: Promise<void> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private leaseLost = false;
  private readonly listeners: Array<(message: string) => void> = [];
  /** Snapshot file names known to check out (written here, or loaded or verified since open). */
  private readonly goodSnapshots = new Set<string>();

  constructor(
    private readonly sql: SqlRunner,
    private readonly writer: JournalWriter | null,
    private readonly lease: LeaseHolder | null,
    readonly opened: OpenReport,
    readonly dir: string,
    readonly ownerId: string,
    readonly clock: Clock,
    readonly logger: Logger,
    public lastLsn: number,
    private readonly options: OpenDurableDbOptions,
  ) {
    if (options.onNotice) this.listeners.push(options.onNotice);
  }

  get readOnly(): boolean {
    return this.opened.readOnly || this.leaseLost;
  }

  get durable(): boolean {
    return !!this.writer && this.writer.durable && !this.readOnly;
  }

  onNotice(listener: (message: string) => void): void {
    this.listeners.push(listener);
  }

  notice(message: string): void {
    this.logger.warn('STORE', message);
    for (const listener of this.listeners) listener(message);
  }

  leaseWasLost(holder: LeaseInfo | null): void {
    this.leaseLost = true;
    this.notice(
      `Another Tasklane process${holder ? ` (pid ${holder.pid})` : ''} took over this workspace's storage; this window stopped saving. ` +
        `Reload this window to continue here.`,
    );
  }

  query(sql: string, params: SqlValue[] = []): Row[] {
    this.assertOpen();
    return this.sql.all(sql, params);
  }

  mutate(sql: string, params: SqlValue[] = []): { changes: number } {
    this.assertWritable();
    if (TX_CONTROL.test(sql)) {
      throw new Error(`db.mutate() does not take transaction control statements ("${sql.trim().split(/\s/)[0]}"); use db.transaction(fn) instead.`);
    }
    const changes = this.sql.run(sql, params);
    if (changes === 0 && ROW_STATEMENT.test(sql)) return { changes };
    const statement = { sql, params: [...params] };
    if (this.inTransaction) this.txStatements.push(statement);
    else this.journal([statement]);
    return { changes };
  }

  transaction<T>(fn: (tx: { mutate: DurableDb['mutate']; query: DurableDb['query'] }) => T): T {
    this.assertWritable();
    const tx = { mutate: this.mutate.bind(this), query: this.query.bind(this) };
    if (this.inTransaction) return fn(tx); // nested: part of the outer record
    this.sql.run('BEGIN'); // run(), not exec(): cached, this is on every emit's path
    this.inTransaction = true;
    this.txStatements = [];
    try {
      const result = fn(tx);
      if (result && typeof (result as { then?: unknown }).then === 'function') {
        throw new Error('db.transaction(fn): fn must be synchronous (an await would let other code run inside the transaction).');
      }
      this.sql.run('COMMIT');
      this.inTransaction = false;
      if (this.txStatements.length > 0) this.journal(this.txStatements);
      return result;
    } catch (error) {
      this.sql.run('ROLLBACK');
      throw error;
    } finally {
      this.inTransaction = false;
      this.txStatements = [];
    }
  }

  commit(): Promise<void> {
    if (!this.writer || this.readOnly) return Promise.reject(this.readOnlyError());
    return this.writer.commit();
  }

  snapshot(): Promise<void> {
    if (!this.writer || this.readOnly) return Promise.resolve();
    this.snapshotting ??= this.writeSnapshot().finally(() => {
      this.snapshotting = null;
    });
    return this.snapshotting;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    try {
      if (this.writer && !this.readOnly) await this.finalSave(this.writer);
    } finally {
      // Whatever the last save did, this process lets go of the store: a kept lease would make the
      // next window read-only for no one, and the database's memory is freed.
      this.closed = true;
      try {
        await this.writer?.close();
      } finally {
        this.lease?.release();
        this.sql.close();
      }
    }
  }

  /**
   * The journal's last batch, then a snapshot. A snapshot is its own file, so when the journal
   * cannot be written (its segment failed, the disk is full for appends) it is still tried: it
   * holds every change in memory, and a reload would otherwise lose everything since the failure.
   */
  private async finalSave(writer: JournalWriter): Promise<void> {
    let journalError: Error | null = null;
    try {
      await writer.commit();
    } catch (error) {
      journalError = error as Error;
    }
    if (this.recordsSinceSnapshot > 0 || journalError) {
      await this.snapshot();
    } else {
      await this.snapshotting;
    }
    if (journalError && this.recordsSinceSnapshot > 0) {
      this.logger.error('STORE', `Closing the store without a final save: ${journalError.message}`, journalError);
    }
  }

  private journal(statements: JournalStatement[]): void {
    const record: JournalRecord = { lsn: ++this.lastLsn, statements };
    this.writer!.append(encodeRecord(record), record.lsn);
    this.recordsSinceSnapshot += 1;
    this.armIdleSnapshot();
  }

  /** Called by the writer after each durable batch. */
  flushed(): void {
    const every = this.options.snapshotEveryRecords ?? 5000;
    if (this.recordsSinceSnapshot >= every && !this.snapshotting) {
      // Not awaited: the snapshot runs beside the hot path; its own errors are logged.
      void this.snapshot();
    }
  }

  private armIdleSnapshot(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.snapshot(), this.options.snapshotIdleMs ?? 30_000);
    this.idleTimer.unref();
  }

  private async writeSnapshot(): Promise<void> {
    const writer = this.writer!;
    try {
      try {
        await writer.rotate();
      } catch (error) {
        // The writer kept its segment. A snapshot sealed at that segment is still whole (replay
        // skips the records it holds), so state is saved; only pruning waits for a later rotation.
        this.logger.warn('STORE', `Could not start a new journal segment; snapshotting without one: ${(error as Error).message}`);
      }
      // From here to export() is synchronous, and transaction() never yields, so this can
      // never run inside a transaction; the check guards against a future change breaking that.
      if (this.inTransaction) throw new Error('refusing to export inside a transaction');
      const lsn = this.lastLsn;
      const counted = this.recordsSinceSnapshot;
      const bytes = this.sql.export();
      const name = snapshotName(lsn);
      // Every segment before the current one holds only records up to `lsn` (the rotation above).
      await writeFileAtomic(path.join(this.dir, name), sealSnapshot(bytes, writer.seq));
      this.goodSnapshots.add(name);
      this.recordsSinceSnapshot -= counted;
      this.prune(writer);
    } catch (error) {
      this.logger.error('STORE', `Snapshot failed (the journal still holds every change): ${(error as Error).message}`, error);
    }
  }

  /**
   * Keeps the newest two snapshots that check out and every journal segment the older of them
   * still needs. A damaged snapshot never counts as one of the two (it would let the good one and
   * its journal go, and the next damage would lose everything): it is moved aside for inspection.
   */
  private prune(writer: JournalWriter): void {
    const listing = listStoreDir(this.dir);
    const good: Array<{ file: string; lsn: number }> = [];
    for (const snapshot of listing.snapshots) {
      if (good.length >= 2) {
        fs.rmSync(snapshot.file, { force: true });
      } else if (this.snapshotChecksOut(snapshot.file)) {
        good.push(snapshot);
      } else {
        moveAside(snapshot.file);
      }
    }
    // With a single good snapshot, a damaged one would fall back to the journal alone: keep it all.
    const floor = good.length >= 2 ? good[1].lsn : 0;
    if (floor === 0) return;
    for (const segment of listing.journals) {
      if (segment.seq >= writer.seq) continue;
      const maxLsn = writer.segmentMaxLsn.get(segment.seq) ?? 0;
      if (maxLsn <= floor) {
        fs.rmSync(segment.file, { force: true });
        writer.segmentMaxLsn.delete(segment.seq);
      }
    }
  }

  knownGood(snapshotName: string): void {
    this.goodSnapshots.add(snapshotName);
  }

  /** Snapshots this process wrote or loaded are known good; any other is read and its checksum checked. */
  private snapshotChecksOut(file: string): boolean {
    const name = path.basename(file);
    if (this.goodSnapshots.has(name)) return true;
    try {
      if ('corrupt' in unsealSnapshotFile(fs.readFileSync(file))) return false;
    } catch {
      return false;
    }
    this.goodSnapshots.add(name);
    return true;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('The Tasklane store is closed; reopen it with openDurableDb().');
  }

  private assertWritable(): void {
    this.assertOpen();
    if (this.readOnly) throw this.readOnlyError();
  }

  private readOnlyError(): Error {
    const owner = this.opened.owner;
    return new Error(
      this.leaseLost
        ? 'This Tasklane store was taken over by another process; reload the window to continue here.'
        : `Tasklane's storage (${this.dir}) is in use by another process (pid ${owner?.pid ?? '?'}${owner?.hostname ? ` on ${owner.hostname}` : ''}); ` +
            `this one is read-only. Close the other VS Code window on this folder, then reload this one.`,
    );
  }

  handleCommitFailure(error: CommitError): void {
    this.notice(error.message);
  }
}

/**
 * Opens (or creates) the store in `dir`: takes the lease, loads the newest good snapshot, replays
 * the journal after it, cuts off a torn tail, starts a new journal segment and applies migrations.
 */
export async function openDurableDb(options: OpenDurableDbOptions): Promise<OpenedDurableDb> {
  const startedAt = performance.now();
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const ownerId = options.ownerId ?? randomUUID();
  fs.mkdirSync(options.dir, { recursive: true });

  let impl: DurableDbImpl | null = null;
  const leaseResult = await acquireLease(options.dir, { ...options.lease, ownerId, onLost: (holder) => impl?.leaseWasLost(holder) });
  const readOnly = leaseResult.kind === 'readOnly';
  const listing = listStoreDir(options.dir);
  const recovered = recover(options.sqlJs, listing);
  const notices = [...recovered.notices];
  if (readOnly) {
    const holder = leaseResult.holder;
    notices.push(
      `Tasklane's storage is in use by another process (pid ${holder.pid}${holder.hostname ? ` on ${holder.hostname}` : ''}); ` +
        `this window opened it read-only and will not run tasks. Close the other window on this folder, then reload this one.`,
    );
  } else if (leaseResult.tookOverFrom) {
    logger.info('STORE', `Took over the store lease from pid ${leaseResult.tookOverFrom.pid}, which is no longer running.`);
  }

  let writer: JournalWriter | null = null;
  if (!readOnly) {
    for (const temp of listing.tempFiles) fs.rmSync(temp, { force: true });
    // Damaged snapshots are kept for inspection but out of the listing, so no later prune can count them.
    for (const file of recovered.corruptSnapshotFiles) moveAside(file);
    // Numbered before any empty segment goes, so segment numbers only ever grow.
    const nextSeq = (listing.journals.at(-1)?.seq ?? 0) + 1;
    // Cut torn tails so they cannot sit in front of later segments' records. A segment with no
    // good record (a run that wrote nothing: every open starts one) is removed, so a store that
    // is opened often but seldom changes does not gather empty files to read at every start.
    for (const segment of listing.journals) {
      const valid = recovered.segmentValidBytes.get(segment.seq);
      if (valid === 0) fs.rmSync(segment.file, { force: true });
      else if (valid !== undefined && valid < fs.statSync(segment.file).size) fs.truncateSync(segment.file, valid);
    }
    const dsync = options.dsync ?? (process.platform !== 'win32' && typeof fs.constants.O_DSYNC === 'number');
    writer = new JournalWriter(
      options.dir,
      nextSeq,
      options.io ?? nodeJournalIo,
      dsync,
      () => impl?.flushed(),
      (error) => impl?.handleCommitFailure(error),
    );
    for (const [seq, lsn] of recovered.segmentMaxLsn) writer.segmentMaxLsn.set(seq, lsn);
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
    schemaVersion: 0,
    migrated: [],
    openMs: 0,
    notices,
  };
  impl = new DurableDbImpl(
    recovered.sql,
    writer,
    leaseResult.kind === 'owner' ? leaseResult.lease : null,
    report,
    options.dir,
    ownerId,
    clock,
    logger,
    recovered.lastLsn,
    options,
  );
  if (recovered.loadedSnapshot) impl.knownGood(recovered.loadedSnapshot);
  report.schemaVersion = schemaVersion(impl);
  if (!readOnly) {
    for (const migration of MIGRATIONS) {
      if (migration.version <= report.schemaVersion) continue;
      impl.transaction((tx) => {
        for (const statement of migration.statements) tx.mutate(statement);
        tx.mutate(`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)`, [String(migration.version)]);
      });
      report.migrated.push(migration.version);
      report.schemaVersion = migration.version;
    }
    if (report.migrated.length > 0) await impl.commit();
  } else if (report.schemaVersion < LATEST_SCHEMA_VERSION) {
    notices.push(
      `The store's schema is version ${report.schemaVersion}, older than ${LATEST_SCHEMA_VERSION}; it will be migrated when this window owns the store.`,
    );
  }
  for (const notice of notices) impl.notice(notice);
  report.openMs = performance.now() - startedAt;
  logger.info(
    'STORE',
    `Opened ${journalName(writer?.seq ?? 0)} in ${report.openMs.toFixed(1)} ms: snapshot lsn ${report.snapshotLsn}, ` +
      `${report.journalRecordsReplayed} journal record(s) replayed${readOnly ? ', read-only' : ''}.`,
  );
  return impl;
}

function schemaVersion(db: DurableDb): number {
  const hasMeta = db.query(`SELECT 1 AS ok FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).length > 0;
  if (!hasMeta) return 0;
  const row = db.query(`SELECT value FROM meta WHERE key = 'schema_version'`)[0];
  return row ? Number(row.value) : 0;
}
