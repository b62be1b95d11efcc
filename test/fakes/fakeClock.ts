import type { Clock } from '../../src/core/ports';

/**
 * A clock that moves only when told; due timers fire in time order during `advance`. A callback
 * that returns a promise (the work the timer started, as the chore scheduler's and a chore run's
 * deadline do) is awaited before the next timer fires, so `advance` resolves once that work is
 * done: a test needs no yielding to let it finish. Work a callback only wakes (the trigger store's
 * consumer) is waited for with its own signal (the engine harness's `idle`).
 */
export class FakeClock implements Clock {
  private timers: Array<{ at: number; seq: number; callback: () => void | Promise<unknown>; cancelled: boolean }> = [];
  private seq = 0;

  constructor(private current = Date.UTC(2026, 0, 5, 9, 0, 0)) {}

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void | Promise<unknown>, ms: number): { cancel(): void } {
    const timer = { at: this.current + Math.max(0, ms), seq: this.seq++, callback, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** How many timers are armed and not cancelled. */
  pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward, firing due timers one by one and awaiting the work each returns. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers.splice(this.timers.indexOf(due), 1);
      this.current = Math.max(this.current, due.at);
      await due.callback();
    }
    this.current = target;
  }

  /** Jumps without firing timers, as when a laptop wakes from sleep. */
  jump(ms: number): void {
    this.current += ms;
  }
}
