import type { Logger, LogTag } from '../../src/core/ports';

/** Keeps log lines so tests can assert on tags and messages. */
export class MemoryLogger implements Logger {
  readonly lines: string[] = [];

  trace(tag: LogTag, message: string): void {
    this.lines.push(`trace [${tag}] ${message}`);
  }
  info(tag: LogTag, message: string): void {
    this.lines.push(`info [${tag}] ${message}`);
  }
  warn(tag: LogTag, message: string): void {
    this.lines.push(`warn [${tag}] ${message}`);
  }
  error(tag: LogTag, message: string, error?: unknown): void {
    this.lines.push(`error [${tag}] ${message}${error ? `: ${(error as Error).message ?? String(error)}` : ''}`);
  }
}
