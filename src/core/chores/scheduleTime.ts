import type { Clock } from '../ports';
import { ClockWatch } from '../store/clockWatch';

/**
 * The time a cron schedule follows (docs/STORAGE.md "Time that jumps"). The wall clock can be set
 * forward for a while and back again (an RTC a day ahead at boot, then NTP): followed blindly, a
 * nightly chore fires at the right moment under the next night's name (and that night's real run
 * is then a duplicate), and the night it really was is logged as "missed: VS Code was closed".
 *
 * So a forward step is not believed at once: the schedule keeps following the monotonic clock from
 * where the wall clock was. A step back that undoes it ends the disagreement. A forward step that
 * lasts `acceptAfterMs` (default an hour: a clock that was wrong and got corrected forward) is
 * believed, and the occurrences it jumped over are reported as jumped over, not as missed.
 */
export class ScheduleTime {
  private readonly watch: ClockWatch;
  /** How far the wall clock is ahead of the believed time (0: they agree). */
  private ahead = 0;
  private aheadSince = 0;

  constructor(
    private readonly clock: Clock,
    private readonly monotonic: () => number,
    private readonly acceptAfterMs = 3_600_000,
  ) {
    this.watch = new ClockWatch(monotonic, 60_000);
  }

  /** The believed time now; `jumpedFrom` is set once, when a lasting forward step is believed (where the schedule was). */
  read(): { now: number; jumpedFrom?: number } {
    const wall = this.clock.now();
    const step = this.watch.step(wall);
    if (step > 0) {
      if (this.ahead === 0) this.aheadSince = this.monotonic();
      this.ahead += step;
    } else if (step < 0) {
      this.ahead = Math.max(0, this.ahead + step);
      // What is left of a disagreement within a minute is ordinary drift.
      if (this.ahead < 60_000) this.ahead = 0;
    }
    if (this.ahead > 0 && this.monotonic() - this.aheadSince >= this.acceptAfterMs) {
      const jumpedFrom = wall - this.ahead;
      this.ahead = 0;
      return { now: wall, jumpedFrom };
    }
    return { now: wall - this.ahead };
  }

  /** The believed time, without looking for a step (for arming timers between ticks). */
  peek(): number {
    return this.clock.now() - this.ahead;
  }
}
