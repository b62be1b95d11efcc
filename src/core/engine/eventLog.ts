/**
 * Per-session append-only event streams (one JSON line per event, `<dir>/<id>.jsonl`), readable
 * from the tail and paged backwards by seq. Events never live in the database (docs/DESIGN.md §5):
 * appends cost O(event), and `flush()` fdatasyncs every stream touched since the last flush, so a
 * turn pays one sync per stream however many events it wrote.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { TaskEvent, TaskEventKind } from './types';

interface Stream {
  handle: fs.FileHandle;
  size: number;
  /** Byte offset of each line; index = seq - 1. */
  offsets: number[];
  dirty: boolean;
  /** Serialises appends so offsets match the file. */
  tail: Promise<unknown>;
}

export class EventStreams {
  private readonly streams = new Map<string, Promise<Stream>>();

  /**
   * `redact` is applied to every event's data before it is written or returned (security/redact.ts):
   * what a tool read (a `.env`, a key) is not kept in plain text in the stream, the trace or the
   * model's history built from it.
   */
  constructor(
    private readonly dir: string,
    private readonly redact: (data: Record<string, unknown>) => Record<string, unknown> = (data) => data,
  ) {}

  private file(id: string): string {
    if (!/^[A-Za-z0-9_.-]+$/.test(id)) throw new Error(`Invalid stream id '${id}'.`);
    return path.join(this.dir, `${id}.jsonl`);
  }

  private open(id: string): Promise<Stream> {
    let stream = this.streams.get(id);
    if (!stream) {
      stream = this.load(id);
      this.streams.set(id, stream);
      stream.catch(() => this.streams.delete(id));
    }
    return stream;
  }

  private async load(id: string): Promise<Stream> {
    await fs.mkdir(this.dir, { recursive: true });
    const handle = await fs.open(this.file(id), 'a+');
    const buffer = await handle.readFile();
    const offsets: number[] = [];
    let start = 0;
    let good = 0;
    while (start < buffer.length) {
      const end = buffer.indexOf(0x0a, start);
      // A torn last record (crash mid-append) has no newline: drop it, keep everything before.
      if (end < 0) break;
      try {
        JSON.parse(buffer.subarray(start, end).toString('utf8'));
      } catch {
        break;
      }
      offsets.push(start);
      start = end + 1;
      good = start;
    }
    if (good < buffer.length) await handle.truncate(good);
    return { handle, size: good, offsets, dirty: false, tail: Promise.resolve() };
  }

  /** Appends one event; resolves with it (seq assigned) once written (not yet synced). */
  async append(id: string, kind: TaskEventKind, data: Record<string, unknown>, at: number): Promise<TaskEvent> {
    const stream = await this.open(id);
    const run = stream.tail.then(async () => {
      const event: TaskEvent = { seq: stream.offsets.length + 1, at, kind, data: this.redact(data) };
      const line = Buffer.from(`${JSON.stringify(event)}\n`, 'utf8');
      await stream.handle.write(line, 0, line.length, stream.size);
      stream.offsets.push(stream.size);
      stream.size += line.length;
      stream.dirty = true;
      return event;
    });
    stream.tail = run.catch(() => undefined);
    return run;
  }

  /** Number of events in the stream. */
  async count(id: string): Promise<number> {
    return (await this.open(id)).offsets.length;
  }

  /** Up to `limit` events with seq < beforeSeq (default: the tail), oldest first. */
  async read(id: string, options: { beforeSeq?: number; limit: number }): Promise<TaskEvent[]> {
    const stream = await this.open(id);
    await stream.tail;
    const endIndex = Math.min(stream.offsets.length, Math.max(0, (options.beforeSeq ?? stream.offsets.length + 1) - 1));
    const startIndex = Math.max(0, endIndex - Math.max(0, options.limit));
    if (endIndex <= startIndex) return [];
    const from = stream.offsets[startIndex];
    const to = endIndex < stream.offsets.length ? stream.offsets[endIndex] : stream.size;
    const buffer = Buffer.alloc(to - from);
    await stream.handle.read(buffer, 0, buffer.length, from);
    return buffer.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as TaskEvent);
  }

  /** fdatasyncs every stream written since the last flush. */
  async flush(): Promise<void> {
    await Promise.all(
      [...this.streams.values()].map(async (pending) => {
        const stream = await pending.catch(() => undefined);
        if (!stream?.dirty) return;
        await stream.tail;
        stream.dirty = false;
        await stream.handle.datasync();
      }),
    );
  }

  /** Closes one stream's file (a task ended); it reopens on the next read. */
  async release(id: string): Promise<void> {
    const pending = this.streams.get(id);
    if (!pending) return;
    this.streams.delete(id);
    const stream = await pending.catch(() => undefined);
    if (!stream) return;
    await stream.tail;
    if (stream.dirty) await stream.handle.datasync();
    await stream.handle.close();
  }

  async close(): Promise<void> {
    await Promise.all([...this.streams.keys()].map((id) => this.release(id)));
  }
}

/** Append-only text file (EVENT.md, TASK_HISTORY.md, MEMORY.md notes), writes serialised. */
export class AppendFile {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(readonly file: string, private readonly header = '') {}

  append(text: string): Promise<void> {
    const run = this.tail.then(async () => {
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      let prefix = '';
      if (this.header) {
        const exists = await fs.stat(this.file).then(() => true, () => false);
        if (!exists) prefix = this.header;
      }
      await fs.appendFile(this.file, prefix + text, 'utf8');
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Waits for queued appends. */
  async settled(): Promise<void> {
    await this.tail;
  }
}
