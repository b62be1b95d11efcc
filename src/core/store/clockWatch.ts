/**
 * Notices the wall clock stepping against the monotonic one (docs/STORAGE.md "Time that jumps").
 * Trigger times and chore schedules are wall-clock times (they must survive a restart), while the
 * timers that wait for them are monotonic. A wall clock set back an hour (a corrected RTC, a
 * time-zone fix gone wrong) would otherwise leave work queued "now" waiting an hour; a clock set
 * forward and back again would make a nightly chore fire under the wrong night's name.
 */
export class ClockWatch {
  private wall: number | undefined;
  private mono = 0;

  /**
   * @param monotonic a clock that never steps (performance.now in production; a test's own).
   * @param toleranceMs disagreement smaller than this is ordinary drift and scheduling delay.
   */
  constructor(
    private readonly monotonic: () => number,
    private readonly toleranceMs = 2_000,
  ) {}

  /**
   * How far the wall clock jumped since the last look, against the monotonic time that passed:
   * negative when it was set back, positive when set forward, 0 within the tolerance.
   */
  step(wallNow: number): number {
    const mono = this.monotonic();
    const expected = this.wall === undefined ? wallNow : this.wall + (mono - this.mono);
    this.wall = wallNow;
    this.mono = mono;
    const step = wallNow - expected;
    return Math.abs(step) > this.toleranceMs ? step : 0;
  }
}

export const performanceClock = (): number => performance.now();
