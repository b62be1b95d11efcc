/**
 * What every benchmark group shares: one JSON line per figure on stdout (bench/run.mjs), progress
 * on stderr (so stdout stays machine-readable), the sample statistics, and the logger that times a
 * turn from the loop's claim line.
 */
import type { LogTag, Logger } from '../src/core/ports';

/** Writes one figure as a JSON line on stdout. */
export const emitLine = (figure: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(figure)}\n`);

/** A progress writer for one group: `[group] message` on stderr. */
export const progressFor =
  (group: string) =>
  (message: string): void =>
    void process.stderr.write(`[${group}] ${message}\n`);

/** `n` rounded to `digits` decimals. */
export const round = (n: number, digits = 3): number => Math.round(n * 10 ** digits) / 10 ** digits;

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The sample at or above 95 % of the others. */
export const p95 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];

/**
 * Times each trigger from the loop's `claimed …` log line (`claimedAt`, performance.now()); the
 * caller reads it in the agent's settle hook. Errors go to stderr with the group's prefix.
 */
export class ClaimTimingLogger implements Logger {
  claimedAt = 0;
  constructor(private readonly group: string) {}
  trace(): void {}
  info(tag: LogTag, message: string): void {
    if (tag === 'TRIGGER' && message.startsWith('claimed ')) this.claimedAt = performance.now();
  }
  warn(): void {}
  error(_tag: LogTag, message: string, error?: unknown): void {
    process.stderr.write(`[${this.group}] error: ${message} ${(error as Error | undefined)?.message ?? ''}\n`);
  }
}
