import type { Clock } from '../../src/core/ports';

/**
 * How long `advance` lets the work a fired timer started run before it fires the next one. Code
 * whose timers start promise chains several awaits deep (chore scheduling, run logs) needs more
 * turns than code that reacts within one.
 */
export interface FakeClockOptions {
  /** Event-loop turns yielded after each fired timer. Default 1. */
  turnsPerTimer?: number;
  /** Event-loop turns yielded once the target time is reached. Default 0. */
  turnsAtEnd?: number;
}

/** Lets promise chains several awaits deep finish (for FakeClockOptions). */
export const SETTLE_CHAINS: FakeClockOptions = { turnsPerTimer: 20, turnsAtEnd: 20 };

/** A clock that moves only when told; due timers fire in time order during `advance`. */
export class FakeClock implements Clock {
  private timers: Array<{ at: number; seq: number; callback: () => void; cancelled: boolean }> = [];
  private seq = 0;
  private readonly turnsPerTimer: number;
  private readonly turnsAtEnd: number;

  constructor(
    private current = Date.UTC(2026, 0, 5, 9, 0, 0),
    options: FakeClockOptions = {},
  ) {
    this.turnsPerTimer = options.turnsPerTimer ?? 1;
    this.turnsAtEnd = options.turnsAtEnd ?? 0;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): { cancel(): void } {
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
      await turns(this.turnsPerTimer);
    }
    this.current = target;
    await turns(this.turnsAtEnd);
  }

  /** Jumps without firing timers, as when a laptop wakes from sleep. */
  jump(ms: number): void {
    this.current += ms;
  }
}

async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
