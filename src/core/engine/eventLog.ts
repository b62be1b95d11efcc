/**
 * Per-session append-only event streams (one JSON line per event, `<dir>/<id>.jsonl`), read from
 * the tail and paged backwards by seq. Events never live in the database (docs/DESIGN.md §5): appends
 * cost O(event), and `flush()` fdatasyncs every stream touched since the last flush, so a turn pays
 * one sync per stream however many events it wrote.
 *
 * Cost does not grow with history (docs/STORAGE.md, "Event streams"): nothing is read at
 * construction; a stream's first use reads only its last line (to learn its seq and cut a torn
 * tail); a page is found by scanning backwards from the end or from a remembered page boundary.
 * A file is open only while it is read, or between an append and the flush that syncs it, so open
 * descriptors stay bounded by the streams written in one turn, not by the number of sessions.
 *
 * An append is one synchronous write of its lines (no sync; the turn's flush syncs): a few
 * microseconds, where an asynchronous write costs the host's thread a thread-pool round trip. A
 * write that fails part-way is cut back at once, and a crash mid-write leaves a torn last line
 * that the next open cuts. The lines of each stream's recent events are kept in memory (bounded
 * per stream and in all), so a task's turn rebuilds its history without reading its file again.
 */
import * as fs from 'node:fs/promises';
import { closeSync, fdatasync, ftruncateSync, mkdirSync, openSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import type { TaskEvent, TaskEventKind } from './types';
import { lastNewlineBefore, parseSeq, readPage, recentPage, type Stream } from './eventPages';

/** Streams whose size and seq are remembered (a few numbers each); older ones are re-read on use. */
const META_CACHE = 512;
/** Characters of recent lines kept per stream: more than a task's history window (taskTurn.ts). */
const RECENT_CHARS = 256 * 1024;
/** Characters of recent lines kept over all streams; the least recently written give theirs up first. */
const RECENT_TOTAL_CHARS = 8 * 1024 * 1024;

export class EventStreams {
  private readonly streams = new Map<string, Promise<Stream>>();
  private madeDir = false;
  /** Streams with an open file (written since the last flush). */
  private readonly written = new Set<Stream>();
  /** Appends waiting for their stream's first read, which a flush called meanwhile must cover. */
  private readonly appending = new Set<Promise<unknown>>();
  /** Streams keeping recent lines, least recently written first, and their characters in all. */
  private readonly keeping = new Set<Stream>();
  private keptChars = 0;

  /**
   * `redact` is applied to every event's data before it is written or returned (security/redact.ts):
   * what a tool read (a `.env`, a key) is not kept in plain text in the stream, the trace or the
   * model's history built from it.
   */
  constructor(
    private readonly dir: string,
    private readonly redact: (data: Record<string, unknown>) => Record<string, unknown> = (data) => data,
    /** How bytes reach a stream's file; tests replace it to make the disk fill part-way. */
    private readonly writeBytes: (fd: number, bytes: Buffer, offset: number, length: number) => number = writeSync,
  ) {}

  private file(id: string): string {
    if (!/^[A-Za-z0-9_.-]+$/.test(id)) throw new Error(`Invalid stream id '${id}'.`);
    return path.join(this.dir, `${id}.jsonl`);
  }

  private open(id: string): Promise<Stream> {
    const file = this.file(id);
    let stream = this.streams.get(id);
    if (stream) {
      // Most recently used last, so eviction drops the coldest.
      this.streams.delete(id);
      this.streams.set(id, stream);
      return stream;
    }
    stream = this.load(file);
    this.streams.set(id, stream);
    stream.catch(() => this.streams.delete(id));
    void this.evict();
    return stream;
  }

  private async evict(): Promise<void> {
    if (this.streams.size <= META_CACHE) return;
    for (const [id, pending] of this.streams) {
      if (this.streams.size <= META_CACHE) return;
      const stream = await pending.catch(() => undefined);
      if (!stream || stream.fd !== undefined || stream.dirty || stream.busy > 0) continue;
      if (this.streams.get(id) !== pending) continue;
      this.streams.delete(id);
      this.forget(stream);
    }
  }

  /** Learns size and last seq from the file's tail; a torn last line (crash mid-append) is cut off. */
  private async load(file: string): Promise<Stream> {
    const stream: Stream = {
      size: 0,
      count: 0,
      anchors: new Map(),
      dirty: false,
      recent: [],
      recentFrom: 1,
      recentChars: 0,
      tail: Promise.resolve(),
      busy: 0,
    };
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return stream;
      throw error;
    }
    let fileSize: number;
    try {
      fileSize = (await handle.stat()).size;
      let end = fileSize;
      // Walk back over lines that are not whole JSON events (a torn append has no newline).
      while (end > 0) {
        const lastNl = await lastNewlineBefore(handle, end);
        if (lastNl < 0) {
          end = 0;
          break;
        }
        const lineStart = (await lastNewlineBefore(handle, lastNl)) + 1;
        const buffer = Buffer.alloc(lastNl - lineStart);
        await handle.read(buffer, 0, buffer.length, lineStart);
        const seq = parseSeq(buffer);
        if (seq !== undefined) {
          stream.size = lastNl + 1;
          stream.count = seq;
          stream.anchors.set(seq, lineStart);
          break;
        }
        end = lineStart;
      }
      if (end === 0) stream.size = 0;
    } finally {
      await handle.close();
    }
    if (stream.size < fileSize) await fs.truncate(file, stream.size);
    stream.recentFrom = stream.count + 1;
    return stream;
  }

  /** Appends one event; resolves with it (seq assigned) once written (not yet synced). */
  async append(id: string, kind: TaskEventKind, data: Record<string, unknown>, at: number): Promise<TaskEvent> {
    const [event] = await this.appendMany(id, [{ kind, data, at }]);
    return event;
  }

  /** Appends events in one write (bulk import, benchmarks); seqs are assigned in order. */
  async appendMany(id: string, items: ReadonlyArray<{ kind: TaskEventKind; data: Record<string, unknown>; at: number }>): Promise<TaskEvent[]> {
    const file = this.file(id);
    const opening = this.open(id);
    // A flush called before the stream's first read finishes must still cover this append.
    const written = opening.then((stream) => this.write(file, stream, items));
    this.appending.add(written);
    void written.then(
      () => this.appending.delete(written),
      () => this.appending.delete(written),
    );
    return written;
  }

  /** One synchronous write of the events' lines; a write that fails part-way is cut back. */
  private write(file: string, stream: Stream, items: ReadonlyArray<{ kind: TaskEventKind; data: Record<string, unknown>; at: number }>): TaskEvent[] {
    if (!this.madeDir) {
      mkdirSync(this.dir, { recursive: true });
      this.madeDir = true;
    }
    const events = items.map((item, i): TaskEvent => ({ seq: stream.count + 1 + i, at: item.at, kind: item.kind, data: this.redact(item.data) }));
    const lines = events.map((e) => JSON.stringify(e));
    const bytes = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
    if (stream.fd === undefined) {
      stream.fd = openSync(file, 'a');
      this.written.add(stream);
    }
    try {
      for (let offset = 0; offset < bytes.length;) offset += this.writeBytes(stream.fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      // A full disk can take part of the lines: cut them off, or later lines would follow garbage.
      try {
        ftruncateSync(stream.fd, stream.size);
      } catch {
        // The next open cuts a torn tail anyway.
      }
      throw error;
    }
    stream.size += bytes.length;
    stream.count += events.length;
    stream.dirty = true;
    this.keep(stream, lines);
    return events;
  }

  /** Adds lines (the newest of the stream) to its kept recent lines, within both bounds. */
  private keep(stream: Stream, lines: readonly string[]): void {
    for (const line of lines) {
      stream.recent.push(line);
      stream.recentChars += line.length;
      this.keptChars += line.length;
    }
    let drop = 0;
    while (stream.recentChars > RECENT_CHARS && drop < stream.recent.length) {
      stream.recentChars -= stream.recent[drop].length;
      this.keptChars -= stream.recent[drop].length;
      drop++;
    }
    if (drop) {
      stream.recent.splice(0, drop);
      stream.recentFrom += drop;
    }
    this.keeping.delete(stream);
    this.keeping.add(stream);
    for (const other of this.keeping) {
      if (this.keptChars <= RECENT_TOTAL_CHARS) break;
      if (other !== stream) this.forget(other);
    }
  }

  /** Drops a stream's recent lines (its pages are read from the file again). */
  private forget(stream: Stream): void {
    this.keptChars -= stream.recentChars;
    stream.recentFrom = stream.count + 1;
    stream.recent = [];
    stream.recentChars = 0;
    this.keeping.delete(stream);
  }

  /** Number of events in the stream. */
  async count(id: string): Promise<number> {
    const stream = await this.open(id);
    return queue(stream, async () => stream.count);
  }

  /** Up to `limit` events with seq < beforeSeq (default: the tail), oldest first. */
  async read(id: string, options: { beforeSeq?: number; limit: number }): Promise<TaskEvent[]> {
    const file = this.file(id);
    const stream = await this.open(id);
    return recentPage(stream, options) ?? queue(stream, () => readPage(file, stream, options));
  }

  /**
   * The last `limit` events matching `match`, oldest first, reading back a page at a time and at
   * most `maxEvents` events (a transcript tail without parsing the whole stream).
   */
  async tail(id: string, kind: TaskEventKind, limit: number, maxEvents: number): Promise<TaskEvent[]> {
    const file = this.file(id);
    const stream = await this.open(id);
    const found: TaskEvent[] = [];
    // Lines are `{"seq":…,"at":…,"kind":"<kind>",…}`: other kinds are skipped before JSON.parse.
    const marker = `"kind":${JSON.stringify(kind)}`;
    let before = stream.count + 1;
    let read = 0;
    while (found.length < limit && read < maxEvents && before > 1) {
      const limitNow = Math.min(200, maxEvents - read);
      const end = before;
      const page =
        recentPage(stream, { beforeSeq: end, limit: limitNow }, marker) ??
        (await queue(stream, () => readPage(file, stream, { beforeSeq: end, limit: limitNow }, marker)));
      read += Math.min(limitNow, end - 1);
      before = Math.max(1, end - limitNow);
      found.unshift(...page.filter((e) => e.kind === kind));
    }
    return found.slice(-limit);
  }

  /** fdatasyncs every stream written since the last flush (appends called before it included), then closes its file. */
  async flush(): Promise<void> {
    if (this.appending.size) await Promise.allSettled([...this.appending]);
    const written = [...this.written];
    this.written.clear();
    await Promise.all(written.map((stream) => closeStream(stream)));
  }

  /** Syncs and closes one stream's file (a task ended); it reopens on the next use. */
  async release(id: string): Promise<void> {
    const pending = this.streams.get(id);
    if (!pending) return;
    const stream = await pending.catch(() => undefined);
    if (!stream) return;
    this.written.delete(stream);
    await closeStream(stream);
  }

  async close(): Promise<void> {
    await this.flush();
  }
}

/** Runs `fn` after everything queued on the stream; the stream counts as busy meanwhile. */
function queue<T>(stream: Stream, fn: () => Promise<T>): Promise<T> {
  stream.busy++;
  const run = stream.tail.then(fn).finally(() => {
    stream.busy--;
  });
  stream.tail = run.catch(() => undefined);
  return run;
}

async function closeStream(stream: Stream): Promise<void> {
  const fd = stream.fd;
  if (fd === undefined) return;
  // Detached first: an append from here on opens the file again and is synced by a later flush.
  const dirty = stream.dirty;
  stream.fd = undefined;
  stream.dirty = false;
  try {
    if (dirty) await new Promise<void>((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
  } finally {
    closeSync(fd);
  }
}

/** Append-only text file (EVENT.md, TASK_HISTORY.md, MEMORY.md notes), writes serialised. */
export class AppendFile {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly header = '',
  ) {}

  append(text: string): Promise<void> {
    const run = this.tail.then(async () => {
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      let prefix = '';
      if (this.header) {
        const exists = await fs.stat(this.file).then(
          () => true,
          () => false,
        );
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
