import type { Clock, Logger, LogTag } from '../../../src/core/ports';
import type { Trigger, TriggerSpec, TriggerStore } from '../../../src/core/store/types';

/** A clock that only moves when the test says so; timers fire in time order during `advance`. */
export class FakeClock implements Clock {
  private timers: Array<{ at: number; seq: number; callback: () => void; cancelled: boolean }> = [];
  private seq = 0;

  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): { cancel(): void } {
    const timer = { at: this.current + Math.max(0, ms), seq: this.seq++, callback, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => { timer.cancelled = true; } };
  }

  pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward, firing due timers one by one and letting their promises settle. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers.splice(this.timers.indexOf(due), 1);
      this.current = Math.max(this.current, due.at);
      due.callback();
      await settle();
    }
    this.current = target;
    await settle();
  }

  /** Jumps without firing timers, as when a laptop wakes from sleep. */
  jump(ms: number): void {
    this.current += ms;
  }
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Records emits and honours dedup keys the way the TriggerStore contract says. */
export class FakeTriggerStore implements Pick<TriggerStore, 'emit'> {
  readonly emitted: Trigger[] = [];
  readonly byKey = new Map<string, Trigger>();
  failNext = 0;

  async emit(spec: TriggerSpec): Promise<Trigger> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('disk full');
    }
    if (spec.dedupKey && this.byKey.has(spec.dedupKey)) return this.byKey.get(spec.dedupKey)!;
    const trigger: Trigger = {
      id: `t${this.emitted.length + 1}`, source: spec.source, sessionId: spec.sessionId, payload: spec.payload ?? null,
      fireAt: spec.fireAt ?? 0, priority: spec.priority ?? 100, dedupKey: spec.dedupKey ?? null, attempts: 0,
      status: 'pending', createdAt: 0, lastError: null,
    };
    this.emitted.push(trigger);
    if (spec.dedupKey) this.byKey.set(spec.dedupKey, trigger);
    return trigger;
  }
}

export class RecordingLogger implements Logger {
  readonly lines: string[] = [];
  trace(tag: LogTag, message: string): void { this.lines.push(`trace [${tag}] ${message}`); }
  info(tag: LogTag, message: string): void { this.lines.push(`info [${tag}] ${message}`); }
  warn(tag: LogTag, message: string): void { this.lines.push(`warn [${tag}] ${message}`); }
  error(tag: LogTag, message: string): void { this.lines.push(`error [${tag}] ${message}`); }
}
