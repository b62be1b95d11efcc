import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LEASE_FILE } from './storeFiles';

/**
 * One writer per store folder. Two extension hosts on the same workspace storage (two windows on
 * one folder, or a reload racing the old host's shutdown) would interleave journal appends and
 * corrupt each other, so the first one holds a lease file with its pid and a heartbeat and the
 * second opens read-only and says who owns the store.
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
}

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
  /** Default: real timers. */
  timers?: LeaseTimers;
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
    return { pid: parsed.pid, ownerId: parsed.ownerId, hostname: String(parsed.hostname ?? ''), heartbeatAt: parsed.heartbeatAt };
  } catch {
    return null;
  }
}

function sameLease(a: LeaseInfo | null, b: LeaseInfo | null): boolean {
  return a?.ownerId === b?.ownerId && a?.heartbeatAt === b?.heartbeatAt && a?.pid === b?.pid;
}

export async function acquireLease(dir: string, options: LeaseOptions): Promise<LeaseResult> {
  const staleMs = options.staleMs ?? 30_000;
  const recheckMs = options.recheckMs ?? 250;
  const file = path.join(dir, LEASE_FILE);
  const mine = (): LeaseInfo => ({ pid: process.pid, ownerId: options.ownerId, hostname: os.hostname(), heartbeatAt: Date.now() });

  for (let round = 0; round < 5; round++) {
    try {
      fs.writeFileSync(file, JSON.stringify(mine()), { flag: 'wx' });
      return { kind: 'owner', lease: new LeaseHolder(dir, options), tookOverFrom: null };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const first = readLease(dir);
    const looksLive = (info: LeaseInfo | null) => !!info && isPidAlive(info.pid) && Date.now() - info.heartbeatAt < staleMs;
    if (first && looksLive(first)) return { kind: 'readOnly', holder: first };
    // Looks dead (pid gone, heartbeat stale, or a half-written file). Look again after a pause:
    // a live owner that was just slow will have heartbeated or rewritten the file by then.
    await (options.timers ?? realLeaseTimers).pause(recheckMs);
    const second = readLease(dir);
    if (!sameLease(first, second) || (second && looksLive(second))) continue;
    const temp = `${file}.${process.pid}.${options.ownerId}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(mine()));
    fs.renameSync(temp, file);
    // Two takers can race through rename; the file's final content decides who won.
    const after = readLease(dir);
    if (after?.ownerId === options.ownerId) return { kind: 'owner', lease: new LeaseHolder(dir, options), tookOverFrom: first };
  }
  const holder = readLease(dir);
  return { kind: 'readOnly', holder: holder ?? { pid: 0, ownerId: 'unknown', hostname: '', heartbeatAt: 0 } };
}

/** The owner's side: heartbeats, notices a takeover, releases on close. */
export class LeaseHolder {
  private timer: { cancel(): void } | null = null;
  private lost = false;

  constructor(
    private readonly dir: string,
    private readonly options: LeaseOptions,
  ) {
    this.timer = (options.timers ?? realLeaseTimers).every(options.heartbeatMs ?? 5_000, () => this.heartbeat());
  }

  get isLost(): boolean {
    return this.lost;
  }

  /** Rewrites the heartbeat; returns false (and reports) if someone else owns the file now. */
  heartbeat(): boolean {
    if (this.lost) return false;
    const current = readLease(this.dir);
    if (current?.ownerId !== this.options.ownerId) {
      this.lost = true;
      this.stop();
      this.options.onLost?.(current);
      return false;
    }
    const file = path.join(this.dir, LEASE_FILE);
    const temp = `${file}.${process.pid}.${this.options.ownerId}.tmp`;
    try {
      fs.writeFileSync(temp, JSON.stringify({ ...current, heartbeatAt: Date.now() }));
      fs.renameSync(temp, file);
    } catch {
      // A missed heartbeat is harmless unless it persists for staleMs; the next tick retries.
    }
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

  private stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }
}
