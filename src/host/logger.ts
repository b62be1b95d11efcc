import type * as vscode from 'vscode';
import type { Logger, LogTag } from '../core/ports';

/**
 * The one logger: lines in the "Tasklane" LogOutputChannel, each carrying a tag of docs/DESIGN.md §9
 * ([TRIGGER], [REACT], [WORKFLOW: …], [ACTION], [CHAT], [TASK], [CHORE]). The channel adds the
 * timestamp and level; the user picks the level in the Output view.
 */
export function createLogger(channel: vscode.LogOutputChannel): Logger {
  const line = (tag: LogTag, message: string) => `[${tag}] ${message}`;
  return {
    trace: (tag, message) => channel.trace(line(tag, message)),
    info: (tag, message) => channel.info(line(tag, message)),
    warn: (tag, message) => channel.warn(line(tag, message)),
    error: (tag, message, error) => channel.error(line(tag, error === undefined ? message : `${message}: ${describe(error)}`)),
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? error.message;
  return String(error);
}
