import type { Clock } from '../ports';

/** What `TriggerStore.next()` throws when its signal aborts. */
export class AbortError extends Error {
  constructor() {
    super('next() was aborted.');
    this.name = 'AbortError';
  }
}

/**
 * The callers of `TriggerStore.next()` waiting for work. A waiter sleeps until the earliest
 * pending trigger is due (one timer) or until `wake` (an emit, a nack, a re-arm): no polling.
 */
export class WorkWaiters {
  private readonly waiters = new Set<() => void>();

  constructor(private readonly clock: Clock) {}

  /** Resolves at `earliest` (undefined: only on `wake`), or at the next `wake`; rejects with AbortError when `signal` aborts. */
  wait(earliest: number | undefined, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let timer: { cancel(): void } | null = null;
      const done = (error?: Error): void => {
        this.waiters.delete(wakeUp);
        timer?.cancel();
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve();
      };
      const wakeUp = (): void => done();
      const onAbort = (): void => done(new AbortError());
      this.waiters.add(wakeUp);
      signal?.addEventListener('abort', onAbort);
      // One timer for the earliest future trigger; emit() wakes us sooner.
      if (earliest !== undefined) timer = this.clock.setTimeout(wakeUp, Math.max(0, earliest - this.clock.now()));
    });
  }

  /** Every waiter looks for work again. */
  wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
