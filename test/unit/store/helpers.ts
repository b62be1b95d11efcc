import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Clock } from '../../../src/core/ports';
import type { OpenDurableDbOptions, OpenedDurableDb } from '../../../src/core/store/durableDb';
import { openDurableDb } from '../../../src/core/store/durableDb';
import type { SqlJsStatic } from '../../../src/core/store/sqlJs';
import { loadSqlJs } from '../../../src/core/store/sqlJs';

let sqlJsPromise: Promise<SqlJsStatic> | null = null;

export function sqlJs(): Promise<SqlJsStatic> {
  sqlJsPromise ??= loadSqlJs();
  return sqlJsPromise;
}

const made: string[] = [];

export function tempDir(label = 'store'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tasklane-${label}-`));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A manual clock: time moves only when a test calls advance(); timers fire in order. */
export class FakeClock implements Clock {
  private timers: Array<{ at: number; seq: number; callback: () => void; cancelled: boolean }> = [];
  private seq = 0;

  constructor(public time = 1_000_000) {}

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): { cancel(): void } {
    const timer = { at: this.time + Math.max(0, ms), seq: this.seq++, callback, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => (timer.cancelled = true) };
  }

  /** Live timers, for asserting that waiting uses one timer and no polling. */
  pendingTimers(): number[] {
    return this.timers.filter((t) => !t.cancelled).map((t) => t.at - this.time);
  }

  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => !t.cancelled && t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.time = due.at;
      due.cancelled = true;
      due.callback();
    }
    this.timers = this.timers.filter((t) => !t.cancelled);
    this.time = target;
  }
}

/** Lets pending promise callbacks and setImmediate flushes run. */
export function settle(rounds = 3): Promise<void> {
  let p = Promise.resolve();
  for (let i = 0; i < rounds; i++) p = p.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  return p;
}

/**
 * Stores a test opens, with their notices: `open` remembers each, `crash` forgets one as a killed
 * process would (no close, no final snapshot; its lease is left to be found dead), `forget` drops
 * it without touching its files, and `closeAll` (for afterEach) closes the rest and clears notices.
 */
export function openedStores(defaults: Partial<OpenDurableDbOptions> = {}) {
  const opened: OpenedDurableDb[] = [];
  const notices: string[] = [];
  const forget = (db: OpenedDurableDb): void => void opened.splice(opened.indexOf(db), 1);
  return {
    notices,
    forget,
    async open(dir: string, extra: Partial<OpenDurableDbOptions> = {}): Promise<OpenedDurableDb> {
      const db = await openDurableDb({ dir, sqlJs: await sqlJs(), onNotice: (m) => notices.push(m), lease: { recheckMs: 20 }, ...defaults, ...extra });
      opened.push(db);
      return db;
    },
    crash(db: OpenedDurableDb): void {
      forget(db);
      fs.rmSync(path.join(db.dir, 'lease.json'), { force: true });
    },
    async closeAll(): Promise<void> {
      for (const db of opened.splice(0)) await db.close().catch(() => undefined);
      notices.length = 0;
    },
  };
}
