import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock, Logger } from '../ports';
import type { JournalRecord, JournalStatement } from './journalFormat';
import { encodeRecord } from './journalFormat';
import type { CommitError, JournalWriter, WriterGuard } from './journalWriter';
import { StoreLostError } from './journalWriter';
import type { LeaseHolder, LeaseInfo } from './lease';
import type { OpenDurableDbOptions, OpenedDurableDb, OpenReport } from './openedDb';
import type { SnapshotPruner } from './snapshotPruner';
import type { SqlRunner } from './sqlRunner';
import { sealSnapshot, snapshotName, writeFileAtomic } from './storeFiles';
import { writeManifest } from './storeManifest';
import type { DurableDb, Row, SqlValue } from './types';

const TX_CONTROL = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
/**
 * Plain row statements. One of these that changed no row had no effect (no row, so no SQL trigger
 * or cascade fired either), and replaying it would have none: it is not journaled, so a start-up
 * clean-up that finds nothing to clean costs no disk write. Anything else (DDL, a WITH prefix)
 * is always journaled: its `changes` count says nothing about its effect.
 */
const ROW_STATEMENT = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;

/** The open store: sql.js in memory, the journal behind it, snapshots beside it (docs/STORAGE.md). */
export class DurableDbImpl implements OpenedDurableDb {
  private inTransaction = false;
  private txStatements: JournalStatement[] = [];
  private recordsSinceSnapshot = 0;
  private snapshotting: Promise<void> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private leaseLost = false;
  private readonly listeners: Array<(message: string) => void> = [];
  private rebuilding: Promise<boolean> | null = null;
  /** The folder's identity at open: a folder removed (or replaced) under us has another or none. */
  private readonly folderId: string;

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
    readonly pruner: SnapshotPruner,
  ) {
    if (options.onNotice) this.listeners.push(options.onNotice);
    this.folderId = folderIdentity(dir) ?? '';
  }

  /** What the journal writer asks around each write (fencing, a vanished folder). */
  readonly guard: WriterGuard = {
    stillOwner: (force) => !this.lease || this.lease.stillMine(force),
    lostError: () => new StoreLostError(this.readOnlyError().message),
    segmentVanished: () => this.folderVanished(),
  };

  /** The lease's heartbeat: notices a removed folder even when nothing is being written. */
  heartbeat(): void {
    if (this.closed || this.readOnly || !this.writer || folderIdentity(this.dir) === this.folderId) return;
    const writer = this.writer;
    void writer.idle().then(() => (writer.isDetached() ? this.folderVanished() : false));
  }

  /**
   * The storage folder was removed (or replaced) while this window ran: its journal segment has no
   * name, and a reload would find nothing. Everything is still in memory, so the folder is made
   * again, with the lease, a new segment and a snapshot of the whole state, and the person is told.
   */
  folderVanished(): Promise<boolean> {
    this.rebuilding ??= this.rebuildFolder().finally(() => (this.rebuilding = null));
    return this.rebuilding;
  }

  private async rebuildFolder(): Promise<boolean> {
    const writer = this.writer!;
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      this.lease?.stillMine(); // writes the lease file again: it went with the folder
      writer.reopenSegment();
      await this.saveSnapshot(writer);
      await writeManifest(this.dir, { segment: writer.seq, epoch: this.lease?.epoch ?? 0 });
      this.notice(
        `Tasklane's storage folder (${this.dir}) was removed while Tasklane was running. It was created again and everything this ` +
          `window holds was saved into it; archived history that was in the folder is gone.`,
      );
      return true;
    } catch (error) {
      this.notice(
        `Tasklane's storage folder (${this.dir}) was removed and could not be created again (${(error as Error).message}). ` +
          `Nothing is saved until it can be; do not reload this window before fixing the folder, or recent work is lost.`,
      );
      return false;
    }
  }

  /** The journal segment being written (0 when read-only). */
  get writerSeq(): number {
    return this.writer?.seq ?? 0;
  }

  /**
   * An empty record carrying this owner's epoch at the next lsn: the point from which a replaced
   * owner's records are stale (recovery.ts fencesByEpoch).
   */
  writeFence(): void {
    this.assertWritable();
    this.journal([]);
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
    if (this.leaseLost) return;
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
    const record: JournalRecord = { lsn: ++this.lastLsn, epoch: this.lease?.epoch, statements };
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
    // A replaced owner (fenced) neither rotates, nor snapshots, nor prunes: each would write over or
    // delete its successor's files. Asked again before each step, since each one yields.
    // Snapshots are rare, so each step looks at the lease now (commits look at most every 200 ms).
    const owner = (): boolean => this.guard.stillOwner(true);
    try {
      if (!owner()) return;
      try {
        await writer.rotate();
      } catch (error) {
        // The writer kept its segment. A snapshot sealed at that segment is still whole (replay
        // skips the records it holds), so state is saved; only pruning waits for a later rotation.
        this.logger.warn('STORE', `Could not start a new journal segment; snapshotting without one: ${(error as Error).message}`);
      }
      await writeManifest(this.dir, { segment: writer.seq, epoch: this.lease?.epoch ?? 0 }).catch((error: Error) =>
        this.logger.warn('STORE', `Could not record the new journal segment in the manifest (the next one will): ${error.message}`),
      );
      // From here to export() is synchronous, and transaction() never yields, so this can
      // never run inside a transaction; the check guards against a future change breaking that.
      if (this.inTransaction) throw new Error('refusing to export inside a transaction');
      if (!owner()) return;
      await this.saveSnapshot(writer);
      if (owner()) this.pruner.prune(writer);
    } catch (error) {
      this.logger.error('STORE', `Snapshot failed (the journal still holds every change): ${(error as Error).message}`, error);
    }
  }

  /**
   * Exports the database and writes it as a snapshot sealed at the writer's segment: every segment
   * before it holds only records up to the snapshot's lsn (the rotation before it, or a new folder).
   */
  private async saveSnapshot(writer: JournalWriter): Promise<void> {
    const counted = this.recordsSinceSnapshot;
    const name = snapshotName(this.lastLsn);
    await writeFileAtomic(path.join(this.dir, name), sealSnapshot(this.sql.export(), writer.seq));
    this.pruner.knownGood(name);
    this.recordsSinceSnapshot -= counted;
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

/** A folder's identity (device and inode), or null when it is gone. */
export function folderIdentity(dir: string): string | null {
  try {
    const stat = fs.statSync(dir);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return null;
  }
}
