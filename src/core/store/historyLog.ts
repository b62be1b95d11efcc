import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../ports';

/**
 * Append-only JSON-lines archive for rows that leave the hot database (acked and cancelled
 * triggers). Lines are buffered and written after the commit, without their own fsync: the
 * journal already made the state change durable, and the archive is for people and history
 * views, so losing its last lines in a power cut is acceptable (see docs/STORAGE.md).
 *
 * The lines of one tick go out in one synchronous append (open, write, close: tens of
 * microseconds without a sync), not as three thread-pool round trips per batch, each of which
 * costs the extension host's thread more than the write itself.
 */
export class HistoryLog {
  private buffer: string[] = [];
  /** A retention rewrite in progress: appends wait in the buffer until its rename is done. */
  private pruning: Promise<void> | null = null;
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
      this.writeBuffered();
    });
  }

  /** Writes every buffered line now (after a rewrite in progress). */
  async flush(): Promise<void> {
    while (this.pruning) await this.pruning.catch(() => undefined);
    this.writeBuffered();
  }

  private writeBuffered(): void {
    if (this.pruning || this.buffer.length === 0) return;
    const text = this.buffer.join('\n') + '\n';
    this.buffer = [];
    try {
      fs.appendFileSync(this.file, text);
    } catch (error) {
      this.logger.warn('STORE', `Could not append to ${this.file}: ${(error as Error).message}. History lines were dropped; state itself is safe.`);
    }
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
    this.pruning = run.finally(() => {
      this.pruning = null;
      // Lines acked during the rewrite go into the new file.
      this.writeBuffered();
    });
    await this.pruning;
    return dropped;
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
