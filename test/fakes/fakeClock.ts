import type { Clock } from '../../src/core/ports';

/** A clock that moves only when told; due timers fire in time order during `advance`. */
export class FakeClock implements Clock {
  private timers: Array<{ at: number; seq: number; callback: () => void; cancelled: boolean }> = [];
  private seq = 0;

  constructor(private current = Date.UTC(2026, 0, 5, 9, 0, 0)) {}

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): { cancel(): void } {
    const timer = { at: this.current + Math.max(0, ms), seq: this.seq++, callback, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => { timer.cancelled = true; } };
  }

  /** Moves time forward, firing due timers one by one. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers.splice(this.timers.indexOf(due), 1);
      this.current = Math.max(this.current, due.at);
      due.callback();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.current = target;
  }
}
