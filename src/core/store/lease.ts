import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LEASE_FILE } from './storeFiles';

/**
 * One writer per store folder. Two extension hosts on the same workspace storage (two windows on
 * one folder, or a reload racing the old host's shutdown) would interleave journal appends and
 * corrupt each other, so the first one holds a lease file with its pid and a heartbeat and the
 * second opens read-only and says who owns the store (docs/STORAGE.md "One owner").
 *
 * - Liveness on this machine is the owner's process itself, not the age of its heartbeat: its pid
 *   is running and started when the lease says (Linux's /proc start time tells a reused pid
 *   apart). A live owner that is frozen (a debugger, a suspended laptop, a clock stepped forward)
 *   is never taken over. The heartbeat's wall-clock age decides only where the process cannot be
 *   looked at: an owner on another host (a shared folder), or a platform without /proc.
 * - A takeover happens under an exclusive lock file (`lease.json.takeover`, created with O_EXCL):
 *   of two windows that find the same dead owner at once, one takes the store, and the other sees
 *   a live owner when it looks again under the lock.
 * - Each owner has an epoch, one more than any before it: the journal stamps every record with
 *   it and the writer checks the lease before each write (fencing), so an owner that lost the
 *   store cannot write over its successor, and replay discards what it wrote anyway.
 *
 * Times here are wall-clock (Date.now), not the injected Clock: the lease is compared across
 * processes, so a fake clock in one of them must not make the other look stale.
 */

/** What the lease file says. */
export interface LeaseInfo {
  pid: number;
  ownerId: string;
  hostname: string;
  /** Wall-clock ms of the last heartbeat. */
  heartbeatAt: number;
  /** The owner's fencing token: higher than every owner's before it. 0 in leases written before epochs. */
  epoch: number;
  /** The owner process's start time (Linux: clock ticks after boot), to tell a reused pid apart. */
  pidStart?: string;
}

/** A process's start time from /proc (Linux), or undefined where that cannot be read. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Field 22 (starttime); the command name in field 2 may hold spaces, so count after its ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

const OWN_START = processStart(process.pid);

/**
 * The lease's timers: the pause between the two looks at a lease that seems dead, and the
 * heartbeat. Real timers by default; a test passes its own to drive both explicitly (no sleeps).
 */
export interface LeaseTimers {
  pause(ms: number): Promise<void>;
  /** Calls `tick` every `ms` until cancelled, without keeping the process alive. */
  every(ms: number, tick: () => void): { cancel(): void };
}

export const realLeaseTimers: LeaseTimers = {
  pause: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    // Housekeeping must not keep a CLI or test process alive.
    timer.unref();
    return { cancel: () => clearInterval(timer) };
  },
};

export interface LeaseOptions {
  ownerId: string;
  /** How often the owner rewrites its heartbeat. Default 5 s. */
  heartbeatMs?: number;
  /** A heartbeat older than this is stale even if the pid exists (pid reuse). Default 30 s. */
  staleMs?: number;
  /** Wait before the second look at a lease that seems dead. Default 250 ms. */
  recheckMs?: number;
  /** Called when another process took the lease over (we looked stale): stop writing. */
  onLost?: (holder: LeaseInfo | null) => void;
  /** Called at each heartbeat, before it is written (the store checks its folder is still there). */
  onTick?: () => void;
  /** Default: real timers. */
  timers?: LeaseTimers;
}

/** Thrown by an open asked to refuse (`whenInUse: 'throw'`) when a live process owns the store. */
export class StoreInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LeaseInfo,
  ) {
    super(`Tasklane's storage (${dir}) is in use by another process (${describeOwner(holder)}).`);
    this.name = 'StoreInUseError';
  }

  get owner(): string {
    return describeOwner(this.holder);
  }
}

function describeOwner(holder: LeaseInfo): string {
  return `pid ${holder.pid}${holder.hostname ? ` on ${holder.hostname}` : ''}`;
}

export type LeaseResult = { kind: 'owner'; lease: LeaseHolder; tookOverFrom: LeaseInfo | null } | { kind: 'readOnly'; holder: LeaseInfo };

export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else; still alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readLease(dir: string): LeaseInfo | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dir, LEASE_FILE), 'utf8')) as Partial<LeaseInfo>;
    if (typeof parsed.pid !== 'number' || typeof parsed.ownerId !== 'string' || typeof parsed.heartbeatAt !== 'number') return null;
    return {
      pid: parsed.pid,
      ownerId: parsed.ownerId,
      hostname: String(parsed.hostname ?? ''),
      heartbeatAt: parsed.heartbeatAt,
      epoch: typeof parsed.epoch === 'number' ? parsed.epoch : 0,
      ...(typeof parsed.pidStart === 'string' ? { pidStart: parsed.pidStart } : {}),
    };
  } catch {
    return null;
  }
}

function sameLease(a: LeaseInfo | null, b: LeaseInfo | null): boolean {
  return a?.ownerId === b?.ownerId && a?.heartbeatAt === b?.heartbeatAt && a?.pid === b?.pid;
}

/** The owner is running (see the top of this file for why the heartbeat's age rarely decides). */
function ownerIsLive(info: LeaseInfo, staleMs: number): boolean {
  const sameHost = info.hostname === os.hostname();
  if (sameHost && !isPidAlive(info.pid)) return false;
  if (sameHost && info.pidStart !== undefined) {
    const start = processStart(info.pid);
    if (start !== undefined) return start === info.pidStart;
  }
  return (!sameHost || isPidAlive(info.pid)) && Date.now() - info.heartbeatAt < staleMs;
}

const TAKEOVER_SUFFIX = '.takeover';

/** The longest a writer goes between two looks at the lease while it keeps writing. */
const FENCE_RECHECK_MS = 200;

/**
 * Runs `fn` holding the takeover lock (created with O_EXCL), or returns undefined when another
 * process holds it. A lock left by a process that died mid-takeover is removed.
 */
function underTakeoverLock<T>(file: string, fn: () => T): T | undefined {
  const lock = `${file}${TAKEOVER_SUFFIX}`;
  try {
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, pidStart: OWN_START }), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    try {
      const holder = JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid?: number; pidStart?: string };
      const alive = typeof holder.pid === 'number' && isPidAlive(holder.pid) && (holder.pidStart === undefined || processStart(holder.pid) === holder.pidStart);
      if (!alive) fs.rmSync(lock, { force: true });
    } catch {
      // Half-written by a taker that is writing it now, or already gone: look again next round.
    }
    return undefined;
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

export async function acquireLease(dir: string, options: LeaseOptions): Promise<LeaseResult> {
  const staleMs = options.staleMs ?? 30_000;
  const recheckMs = options.recheckMs ?? 250;
  const file = path.join(dir, LEASE_FILE);
  const mine = (epoch: number): LeaseInfo => ({
    pid: process.pid,
    ownerId: options.ownerId,
    hostname: os.hostname(),
    heartbeatAt: Date.now(),
    epoch,
    ...(OWN_START !== undefined ? { pidStart: OWN_START } : {}),
  });

  for (let round = 0; round < 8; round++) {
    try {
      // The epoch is provisional here: the owner raises it above the journal's (see LeaseHolder.raiseEpoch).
      fs.writeFileSync(file, JSON.stringify(mine(1)), { flag: 'wx' });
      return { kind: 'owner', lease: new LeaseHolder(dir, options, 1), tookOverFrom: null };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const first = readLease(dir);
    if (first && ownerIsLive(first, staleMs)) return { kind: 'readOnly', holder: first };
    // Looks dead (pid gone, or a half-written file). Look again after a pause: a live owner that
    // was just slow will have rewritten the file by then.
    await (options.timers ?? realLeaseTimers).pause(recheckMs);
    const second = readLease(dir);
    if (!sameLease(first, second) || (second && ownerIsLive(second, staleMs))) continue;
    const taken = underTakeoverLock(file, () => {
      // Under the lock, the lease must still be the dead one both looks saw: a taker that got
      // here first has written a live lease of its own.
      if (!sameLease(first, readLease(dir))) return undefined;
      const epoch = (first?.epoch ?? 0) + 1;
      const temp = `${file}.${process.pid}.${options.ownerId}.tmp`;
      fs.writeFileSync(temp, JSON.stringify(mine(epoch)));
      fs.renameSync(temp, file);
      return epoch;
    });
    if (taken !== undefined) return { kind: 'owner', lease: new LeaseHolder(dir, options, taken), tookOverFrom: first };
  }
  const holder = readLease(dir);
  return { kind: 'readOnly', holder: holder ?? { pid: 0, ownerId: 'unknown', hostname: '', heartbeatAt: 0, epoch: 0 } };
}

/** The owner's side: heartbeats, notices a takeover, fences writes, releases on close. */
export class LeaseHolder {
  private timer: { cancel(): void } | null = null;
  private lost = false;
  /** When stillMine() last read the lease (monotonic ms); -Infinity: never. */
  private lastLook = -Infinity;

  constructor(
    private readonly dir: string,
    private readonly options: LeaseOptions,
    private currentEpoch: number,
  ) {
    this.timer = (options.timers ?? realLeaseTimers).every(options.heartbeatMs ?? 5_000, () => this.heartbeat());
  }

  get isLost(): boolean {
    return this.lost;
  }

  /** This owner's fencing token: every journal record it writes carries it. */
  get epoch(): number {
    return this.currentEpoch;
  }

  /**
   * Raises the epoch above every earlier owner's (`floor`: the highest the journal and the
   * manifest know), rewriting the lease. A lease deleted by a clean close forgets its epoch; the
   * journal does not.
   */
  raiseEpoch(floor: number): void {
    if (floor < this.currentEpoch) return;
    this.currentEpoch = floor + 1;
    this.write(readLease(this.dir));
  }

  /**
   * Before each journal write: is the store still this owner's? A takeover is reported once (as
   * a heartbeat would) and the write refused. A missing lease file (someone deleted it; a taker
   * would have written its own) is written again.
   */
  stillMine(force = false): boolean {
    if (this.lost) return false;
    // Reading the lease costs more than a small commit's write; under a steady stream of commits it
    // is read at most every FENCE_RECHECK_MS. What the fence is for is an owner that was frozen and
    // wakes up: its first write after the freeze comes long after its last look, so it looks again.
    // (A steadily writing owner heartbeats and is live; a takeover cannot begin under it, and what
    // it might write in between is discarded at replay by the epochs.)
    const now = performance.now();
    if (!force && now - this.lastLook < FENCE_RECHECK_MS) return true;
    this.lastLook = now;
    const current = readLease(this.dir);
    if (current === null) {
      this.write(null);
      return true;
    }
    if (current.ownerId === this.options.ownerId) return true;
    this.loseTo(current);
    return false;
  }

  /** Rewrites the heartbeat; returns false (and reports) if someone else owns the file now. */
  heartbeat(): boolean {
    if (this.lost) return false;
    this.options.onTick?.();
    const current = readLease(this.dir);
    if (current && current.ownerId !== this.options.ownerId) {
      this.loseTo(current);
      return false;
    }
    this.write(current);
    return true;
  }

  release(): void {
    this.stop();
    if (this.lost) return;
    if (readLease(this.dir)?.ownerId === this.options.ownerId) {
      try {
        fs.unlinkSync(path.join(this.dir, LEASE_FILE));
      } catch {
        // Already gone: nothing to release.
      }
    }
  }

  private loseTo(holder: LeaseInfo | null): void {
    this.lost = true;
    this.stop();
    this.options.onLost?.(holder);
  }

  private write(current: LeaseInfo | null): void {
    const file = path.join(this.dir, LEASE_FILE);
    const temp = `${file}.${process.pid}.${this.options.ownerId}.tmp`;
    const info: LeaseInfo = {
      ...(current ?? { pid: process.pid, ownerId: this.options.ownerId, hostname: os.hostname(), ...(OWN_START !== undefined ? { pidStart: OWN_START } : {}) }),
      heartbeatAt: Date.now(),
      epoch: this.currentEpoch,
    };
    try {
      fs.writeFileSync(temp, JSON.stringify(info));
      fs.renameSync(temp, file);
    } catch {
      // A missed heartbeat is harmless: the owner's process, not its heartbeat, says it is alive.
    }
  }

  private stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }
}
