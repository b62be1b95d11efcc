import type { DurableDb } from './types';

/**
 * The waiters of `TriggerStore.drained(now)`. The store calls `check` after every call that can
 * settle work (ack, nack, rearm, cancel); with no waiter that is one size test, so the hot path
 * pays nothing. A waiter is looked at again only then: no timer, no polling.
 */
export class DrainWaiters {
  private readonly waiters = new Set<{ now: number; resolve: () => void; reject: (error: Error) => void }>();
  private failed: Error | undefined;

  constructor(private readonly db: Pick<DurableDb, 'query'>) {}

  /** Resolves at once when no trigger is claimed and none is due at `now`, else at the first `check` that finds it so. */
  wait(now: number): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.drainedAt(now)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => this.waiters.add({ now, resolve, reject }));
  }

  /** Resolves the waiters whose condition holds now. */
  check(): void {
    if (this.waiters.size === 0) return;
    for (const waiter of [...this.waiters]) {
      if (!this.drainedAt(waiter.now)) continue;
      this.waiters.delete(waiter);
      waiter.resolve();
    }
  }

  /** The store closed: nothing will settle any more, so every waiter, now and later, fails with `error`. */
  fail(error: Error): void {
    this.failed = error;
    for (const waiter of this.waiters) waiter.reject(error);
    this.waiters.clear();
  }

  private drainedAt(now: number): boolean {
    return this.db.query(`SELECT 1 FROM triggers WHERE status = 'claimed' OR (status = 'pending' AND fire_at <= ?) LIMIT 1`, [now]).length === 0;
  }
}
