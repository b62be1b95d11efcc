import * as fs from 'node:fs';
import * as path from 'node:path';
import type { JournalIo } from './storeFiles';
import { journalName } from './storeFiles';

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: Error): void;
  /** Someone called commit() for this batch: worth retrying at once after a failure. */
  awaited: boolean;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A batch nobody awaited may fail; that is reported through onFailure, not as an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject, awaited: false };
}

/** The file behind `fd` has no name any more (its folder was removed); false when that cannot be told. */
function unlinked(fd: number): boolean {
  try {
    return fs.fstatSync(fd).nlink === 0;
  } catch {
    return false;
  }
}

/** Thrown by commit() when the journal could not be made durable (disk full, no permission, I/O error). */
export class CommitError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'CommitError';
  }
}

/** Thrown by commit() when the store stopped being this process's (another took it over): nothing more is written. */
export class StoreLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreLostError';
  }
}

/** What the writer asks its owner around each write. */
export interface WriterGuard {
  /** Before a write: is the store still ours? False refuses the write for good (fencing). `force`: look now, whenever the last look was. */
  stillOwner(force?: boolean): boolean;
  /** The error a refused write reports. */
  lostError(): StoreLostError;
  /**
   * After a write: the segment has no name any more (its folder was removed). The owner saves
   * everything again where it belongs; true when it did, and the batch counts as durable.
   */
  segmentVanished(): Promise<boolean>;
}

export function describeIoError(error: unknown, file: string): CommitError {
  const code = (error as NodeJS.ErrnoException)?.code;
  const what =
    code === 'ENOSPC'
      ? 'the disk is full'
      : code === 'EDQUOT'
        ? 'the disk quota is exhausted'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission was denied'
          : code === 'EROFS'
            ? 'the file system is read-only'
            : `an I/O error occurred (${(error as Error)?.message ?? String(error)})`;
  return new CommitError(
    `Tasklane could not save its state to ${file}: ${what}${code ? ` [${code}]` : ''}. ` +
      `Free disk space or fix the folder's permissions; Tasklane keeps the change in memory, retries on the next save, ` +
      `and runs no irreversible action until state is saved again.`,
    code,
  );
}

/**
 * Appends encoded records to the current journal segment with group commit: records appended in
 * the same tick (and those arriving while a write is in flight) share one write + sync. A failed
 * batch stays queued, in order, and is rewritten at the same offset by the next flush, so a torn
 * tail left by the failure is overwritten rather than followed by good records.
 */
/**
 * Segments grow in zero-filled steps ahead of the records. Overwriting blocks that already exist
 * lets each commit's sync skip the file-size metadata update an append needs, which measured
 * about twice as fast here (that is how SQLite's reused WAL gets its cheap commits).
 */
const PREALLOCATE_BYTES = 1 << 20;
/** The longest a steady stream of commits goes without checking that its segment still has a name. */
const LINK_RECHECK_MS = 200;
const ZEROS = Buffer.alloc(PREALLOCATE_BYTES);

export class JournalWriter {
  /** The current segment's descriptor; -1 once closed (never a closed number: see rotate()). */
  private fd: number;
  /** End of the good records: where the next batch goes. */
  private position = 0;
  /** File length, including the zero-filled room past `position`. */
  private allocated = 0;
  private queued: Buffer[] = [];
  private queuedMaxLsn = 0;
  private waiters: Deferred | null = null;
  private inflight: Promise<void> | null = null;
  private inflightWaiters: Deferred | null = null;
  private scheduled = false;
  private failed: CommitError | null = null;
  private lost: StoreLostError | null = null;
  /** When the segment's link count was last looked at (monotonic ms). */
  private lastLinkCheck = -Infinity;
  /** Highest lsn durably written to each segment, so snapshots know which segments are obsolete. */
  readonly segmentMaxLsn = new Map<number, number>();

  constructor(
    private readonly dir: string,
    private seqNo: number,
    private readonly io: JournalIo,
    private readonly dsync: boolean,
    private readonly onFlushed: (records: number) => void,
    private readonly onFailure: (error: CommitError) => void,
    private readonly guard: WriterGuard,
  ) {
    const opened = this.openSegment(seqNo);
    this.fd = opened.fd;
    this.position = opened.size;
    this.allocated = opened.size;
  }

  get seq(): number {
    return this.seqNo;
  }

  get durable(): boolean {
    return this.failed === null && this.lost === null;
  }

  get lastError(): CommitError | null {
    return this.failed;
  }

  /** Resolves when no write is in flight. */
  async idle(): Promise<void> {
    while (this.inflight) await this.inflight.catch(() => undefined);
  }

  private segmentUnlinked(fd: number): boolean {
    const now = performance.now();
    if (now - this.lastLinkCheck < LINK_RECHECK_MS) return false;
    this.lastLinkCheck = now;
    return unlinked(fd);
  }

  /** The current segment has no name any more (its folder was removed). */
  isDetached(): boolean {
    return this.fd >= 0 && unlinked(this.fd);
  }

  get hasQueued(): boolean {
    return this.queued.length > 0;
  }

  append(record: Buffer, lsn: number): void {
    if (this.lost) throw this.lost;
    this.queued.push(record);
    this.queuedMaxLsn = lsn;
    this.waiters ??= deferred();
    this.schedule();
  }

  /** Resolves when everything appended so far is durable; rejects with a CommitError if that failed. */
  commit(): Promise<void> {
    if (this.lost) return Promise.reject(this.lost);
    if (this.queued.length > 0 && this.waiters) {
      this.waiters.awaited = true;
      this.schedule();
      return this.waiters.promise;
    }
    // Nothing queued: whatever is in flight holds the caller's last write.
    return this.inflightWaiters?.promise ?? Promise.resolve();
  }

  /**
   * Waits for in-flight writes, then starts a new segment; returns the previous segment's number.
   * The new segment is opened before the old one is closed: if the open fails (no descriptors left,
   * a read-only or vanished folder), the writer keeps the old segment and its number and rethrows.
   * It never holds a closed descriptor, whose number the process would hand to the next file it
   * opens (another file would then receive the journal's records while commits report success).
   */
  async rotate(): Promise<number> {
    while (this.inflight) await this.inflight.catch(() => undefined);
    const previous = this.seqNo;
    const opened = this.openSegment(previous + 1);
    const old = { fd: this.fd, position: this.position, allocated: this.allocated };
    this.trimAndClose(old);
    this.seqNo = previous + 1;
    this.fd = opened.fd;
    this.position = opened.size;
    this.allocated = opened.size;
    return previous;
  }

  /**
   * Starts a new segment at once, without waiting for the write in flight: for the owner's
   * segmentVanished(), which runs inside that write. The old descriptor (an unlinked file) is closed.
   */
  reopenSegment(): void {
    const opened = this.openSegment(this.seqNo + 1);
    this.trimAndClose({ fd: this.fd, position: this.position, allocated: this.allocated });
    this.seqNo += 1;
    this.fd = opened.fd;
    this.position = opened.size;
    this.allocated = opened.size;
  }

  async close(): Promise<void> {
    while (this.inflight) await this.inflight.catch(() => undefined);
    if (this.fd < 0) return;
    const fd = this.fd;
    this.fd = -1;
    this.trimAndClose({ fd, position: this.position, allocated: this.allocated });
  }

  /** A finished segment does not need its zero-filled room. */
  private trimAndClose(segment: { fd: number; position: number; allocated: number }): void {
    try {
      if (segment.allocated > segment.position) fs.ftruncateSync(segment.fd, segment.position);
    } catch {
      // Harmless: open() treats trailing zeros as room and cuts them.
    }
    try {
      fs.closeSync(segment.fd);
    } catch {
      // Closing can report a failed deferred write-back (EIO); every batch was already synced or reported.
    }
  }

  private openSegment(seq: number): { fd: number; size: number } {
    // No O_APPEND: writes are positional so a retry can overwrite a torn tail. O_DSYNC makes the
    // write itself durable, saving a second thread-pool hop for fdatasync where the OS has it.
    const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | (this.dsync ? fs.constants.O_DSYNC : 0);
    const file = path.join(this.dir, journalName(seq));
    const created = !fs.existsSync(file);
    const fd = this.io.open(file, flags);
    try {
      // A new segment's directory entry must survive a power cut as its records will: sync the folder.
      if (created) this.io.syncDir(this.dir);
      // Segments are always new (one per open and per snapshot), so they start empty.
      return { fd, size: fs.fstatSync(fd).size };
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  private schedule(): void {
    if (this.scheduled || this.inflight) return;
    this.scheduled = true;
    // setImmediate, not a microtask: everything mutated in this tick joins the batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private flush(): Promise<void> {
    if (this.inflight || this.queued.length === 0) return this.inflight ?? Promise.resolve();
    const batch = this.queued;
    const maxLsn = this.queuedMaxLsn;
    const waiters = this.waiters;
    this.queued = [];
    this.waiters = null;
    this.inflightWaiters = waiters;
    const data = batch.length === 1 ? batch[0] : Buffer.concat(batch);
    const fd = this.fd;
    const seq = this.seqNo;
    const file = path.join(this.dir, journalName(seq));
    const run = async (): Promise<void> => {
      if (!this.guard.stillOwner()) {
        // Fenced: another process owns the store. Nothing queued is ever written (it would land
        // beside the new owner's records); every waiter is told, now and later.
        this.lost = this.guard.lostError();
        this.queued = [];
        const rejected = [waiters, this.waiters];
        this.waiters = null;
        for (const waiter of rejected) waiter?.reject(this.lost);
        return;
      }
      try {
        if (this.position + data.length > this.allocated) {
          const grow = Math.max(PREALLOCATE_BYTES, data.length);
          await this.io.write(fd, grow === PREALLOCATE_BYTES ? ZEROS : Buffer.alloc(grow), this.allocated);
          this.allocated += grow;
        }
        await this.io.write(fd, data, this.position);
        if (!this.dsync) await this.io.fdatasync(fd);
        // Synced into a file that no longer has a name (its folder was removed): not durable until
        // the owner has saved everything again in the folder's place. The look costs about as much
        // as a small commit's write, so a steady stream of commits looks at most every
        // LINK_RECHECK_MS (and the lease's heartbeat looks too): a folder removed in that window is
        // saved again from memory at the next look, so only a crash within it could lose those commits.
        if (this.segmentUnlinked(fd) && !(await this.guard.segmentVanished())) {
          throw Object.assign(new Error(`the storage folder ${this.dir} was removed`), { code: 'ENOENT' });
        }
        if (this.fd !== fd) {
          // segmentVanished() started a new segment and a snapshot holds this batch.
          this.failed = null;
          waiters?.resolve();
          this.onFlushed(batch.length);
          return;
        }
        this.position += data.length;
        this.segmentMaxLsn.set(seq, maxLsn);
        this.failed = null;
        waiters?.resolve();
        this.onFlushed(batch.length);
      } catch (error) {
        const commitError = describeIoError(error, file);
        this.failed = commitError;
        // Keep the batch, ahead of anything newer, for the next attempt.
        this.queued = batch.concat(this.queued);
        this.waiters ??= deferred();
        if (this.queuedMaxLsn < maxLsn) this.queuedMaxLsn = maxLsn;
        try {
          fs.ftruncateSync(fd, this.position);
          this.allocated = this.position;
        } catch {
          // Best effort: a torn tail is also ignored at open and overwritten by the retry.
        }
        waiters?.reject(commitError);
        this.onFailure(commitError);
      }
    };
    this.inflight = run().finally(() => {
      this.inflight = null;
      this.inflightWaiters = null;
      // Retry right away only if someone is waiting on newer records; otherwise the next
      // mutation or commit() retries, so a full disk does not become a hot loop.
      if (this.queued.length > 0 && (this.failed === null || this.waiters?.awaited)) void this.flush();
    });
    return this.inflight;
  }
}
