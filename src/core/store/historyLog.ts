import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../ports';

/**
 * Append-only JSON-lines archive for rows that leave the hot database (acked and cancelled
 * triggers). Lines are buffered and written off the commit path without their own fsync: the
 * journal already made the state change durable, and the archive is for people and history
 * views, so losing its last lines in a power cut is acceptable (see docs/STORAGE.md).
 */
export class HistoryLog {
  private buffer: string[] = [];
  private writing: Promise<void> | null = null;
  private scheduled = false;

  constructor(
    readonly file: string,
    private readonly logger: Logger,
  ) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  }

  append(entry: unknown): void {
    this.buffer.push(JSON.stringify(entry));
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.buffer.length === 0) return;
    const text = this.buffer.join('\n') + '\n';
    this.buffer = [];
    this.writing = fs.promises
      .appendFile(this.file, text)
      .catch((error: unknown) =>
        this.logger.warn('STORE', `Could not append to ${this.file}: ${(error as Error).message}. History lines were dropped; state itself is safe.`),
      )
      .finally(() => {
        this.writing = null;
      });
    await this.writing;
  }

  /**
   * Rewrites the file without the lines `drop` selects (retention), atomically (temp + rename),
   * serialised with appends so no line written meanwhile is lost. Returns how many were dropped.
   */
  async prune(drop: (entry: Record<string, unknown>) => boolean): Promise<number> {
    await this.flush();
    let dropped = 0;
    const run = (async () => {
      let text: string;
      try {
        text = await fs.promises.readFile(this.file, 'utf8');
      } catch {
        return;
      }
      const kept = text.split('\n').filter((line) => {
        if (!line) return false;
        try {
          if (drop(JSON.parse(line) as Record<string, unknown>)) {
            dropped++;
            return false;
          }
        } catch {
          // An unreadable line is kept: retention removes only what its rule selects.
        }
        return true;
      });
      if (dropped === 0) return;
      const temp = `${this.file}.prune`;
      await fs.promises.writeFile(temp, kept.length ? kept.join('\n') + '\n' : '');
      await fs.promises.rename(temp, this.file);
    })();
    this.writing = run.finally(() => {
      this.writing = null;
    });
    await this.writing;
    return dropped;
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
