/**
 * The archive: ended work leaves the hot database for append-only, checksummed segment files, so
 * the hot database (which sql.js holds in memory) stays the size of the live work. Layout, move
 * protocol and recovery: docs/STORAGE.md, "The archive".
 *
 * A move is one synchronous step per batch: select ready rows, append their frames to the kind's
 * current segment, fdatasync, then delete the rows and advance the kind's watermark in one
 * journaled transaction. Nothing else runs in between (one thread), so a row cannot change after it
 * was copied. A crash before the transaction is durable leaves the rows in both places; `recover()`
 * (run at open, before any move) reads the frames past the watermark and deletes those rows from
 * the hot database, so each record ends up in exactly one place. A torn last frame (crash mid-write)
 * belongs to a batch whose rows were never deleted: it is cut off.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock, Logger } from '../ports';
import { decodeColumn, DurableRowError } from './decodeRow';
import type { DamagedRange } from './journalFormat';
import { encodeFrame, frameIsValid, walkFrames } from './journalFormat';
import type { ArchivedRecord } from './archiveFormat';
import { ARCHIVE_PAYLOAD_PREFIX, decode, readRange, syncDir, watermarkSchema } from './archiveFormat';
import { ARCHIVE_KINDS, CHORE_RUNS_BEYOND_KEPT, DEFAULT_ARCHIVE_AGES, RULES } from './archiveRules';
import type { ArchiveAges, ArchiveKind } from './archiveRules';
import type { DurableDb, Row } from './types';

export { ARCHIVE_KINDS, DEFAULT_ARCHIVE_AGES } from './archiveRules';
export type { ArchiveAges, ArchiveKind } from './archiveRules';
export type { ArchivedRecord } from './archiveFormat';

export const SEGMENT_BYTES = 32 * 1024 * 1024;

interface Segment {
  file: string;
  size: number;
}

export interface ArchiveOptions {
  /** The hot database; a read-only one (another window owns the store) is never moved from. */
  db: DurableDb & { readonly readOnly?: boolean };
  /** The archive folder (`<store>/archive`). */
  dir: string;
  clock: Clock;
  logger: Logger;
  ages?: () => Partial<ArchiveAges>;
  /** More text to make a session findable by (its transcript tail); the hot row has only its name. */
  sessionText?: (sessionId: string) => string;
  /** Ended chore runs kept hot per chore whatever their age (the engine: `CHORE_RUNS_KEPT_HOT`); default 0. */
  choreRunsKeptHot?: number;
  /** Rows that just left the hot database (the engine drops archived sessions from memory). */
  onMoved?: (kind: ArchiveKind, ids: string[]) => void;
}

/** What recovery did at open. */
export interface ArchiveRecovery {
  /** Rows found both archived and hot (a crash between the archive write and the delete): now only archived. */
  deduplicated: number;
  /** Bytes of torn frames cut off the end of a segment. */
  tornBytes: number;
}

export interface ArchiveStats {
  kind: ArchiveKind;
  files: number;
  bytes: number;
  records: number;
  /** Places where a segment is damaged (each cost the record there; the rest are read). */
  damaged: number;
  hotRows: number;
}

export class Archive {
  private readonly segments = new Map<ArchiveKind, Segment>();
  /** Damaged ranges already logged (file:offset), so each is said once. */
  private readonly reportedDamage = new Set<string>();

  constructor(private readonly options: ArchiveOptions) {}

  private kindDir(kind: ArchiveKind): string {
    return path.join(this.options.dir, kind);
  }

  /** Segment files of a kind, oldest first (names sort by month, then number). */
  files(kind: ArchiveKind): string[] {
    const dir = this.kindDir(kind);
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return [];
    }
    return names
      .filter((n) => /^\d{4}-\d{2}-\d{3}\.arc$/.test(n))
      .sort()
      .map((n) => path.join(dir, n));
  }

  private watermark(kind: ArchiveKind): { f: string; o: number } | undefined {
    const [row] = this.options.db.query('SELECT value FROM meta WHERE key = ?', [`archive:${kind}`]);
    if (!row) return undefined;
    try {
      return decodeColumn(watermarkSchema, 'archive watermark', `archive:${kind}`, 'value', row.value);
    } catch (error) {
      if (!(error instanceof DurableRowError)) throw error;
      // Without it every archived file is read once more: slower, never wrong (a copy is deduplicated).
      this.options.logger.error('STORE', error.message);
      return undefined;
    }
  }

  /**
   * Makes every record live in exactly one place after a crash: rows archived past the watermark
   * are deleted from the hot database, a torn last frame is cut off. Run before any move.
   */
  recover(): ArchiveRecovery {
    const report: ArchiveRecovery = { deduplicated: 0, tornBytes: 0 };
    if (this.options.db.readOnly) return report;
    for (const kind of ARCHIVE_KINDS) {
      const files = this.files(kind);
      if (files.length === 0) continue;
      const mark = this.watermark(kind);
      const firstIndex = mark
        ? Math.max(
            0,
            files.findIndex((f) => path.basename(f) === mark.f),
          )
        : 0;
      const ids: string[] = [];
      let endFile = files[files.length - 1];
      let endOffset = 0;
      for (let i = firstIndex; i < files.length; i++) {
        // Only what lies past the watermark is read: recovery costs O(last batch), not O(archive).
        const from = mark && i === firstIndex && path.basename(files[i]) === mark.f ? mark.o : 0;
        const size = fs.statSync(files[i]).size;
        const bytes = readRange(files[i], Math.min(from, size), size);
        // Past damage too: cutting at the first bad frame would delete the good records after it.
        const valid = walkFrames(
          bytes,
          0,
          (start, end) => {
            ids.push((JSON.parse(bytes.toString('utf8', start, end)) as { id: string }).id);
          },
          true,
          this.resync(files[i]),
        );
        if (valid < bytes.length) {
          if (i === files.length - 1) {
            fs.truncateSync(files[i], Math.min(from, size) + valid);
            report.tornBytes += bytes.length - valid;
          } else {
            this.options.logger.warn(
              'STORE',
              `Archive segment ${path.basename(files[i])} has ${bytes.length - valid} unreadable bytes at ${Math.min(from, size) + valid}; the records before them are kept.`,
            );
          }
        }
        endFile = files[i];
        endOffset = i === files.length - 1 ? Math.min(from, size) + valid : size;
      }
      const table = RULES[kind].table;
      const end = { f: path.basename(endFile), o: endOffset };
      // A clean shutdown leaves the watermark at the end already: nothing to write, so a start
      // after one costs no journal record.
      if (ids.length === 0 && mark?.f === end.f && mark.o === end.o) continue;
      this.options.db.transaction((tx) => {
        for (const id of ids) report.deduplicated += tx.mutate(`DELETE FROM ${table} WHERE id = ?`, [id]).changes;
        tx.mutate('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [
          `archive:${kind}`,
          JSON.stringify(end),
        ]);
      });
    }
    if (report.deduplicated || report.tornBytes) {
      this.options.logger.info(
        'STORE',
        `Archive recovery: ${report.deduplicated} rows were already archived (removed from the hot database), ${report.tornBytes} torn bytes cut.`,
      );
    }
    return report;
  }

  private segment(kind: ArchiveKind, now: number): Segment {
    const month = new Date(now).toISOString().slice(0, 7);
    let segment = this.segments.get(kind);
    if (!segment) {
      const last = this.files(kind).pop();
      if (last) segment = { file: last, size: fs.statSync(last).size };
    }
    if (!segment || !path.basename(segment.file).startsWith(month) || segment.size >= SEGMENT_BYTES) {
      const same = segment && path.basename(segment.file).startsWith(month) ? Number(path.basename(segment.file).slice(8, 11)) + 1 : 0;
      fs.mkdirSync(this.kindDir(kind), { recursive: true });
      segment = { file: path.join(this.kindDir(kind), `${month}-${String(same).padStart(3, '0')}.arc`), size: 0 };
    }
    this.segments.set(kind, segment);
    return segment;
  }

  /** Rows of a kind ready to move at `now` (oldest first), without moving them. */
  ready(kind: ArchiveKind, limit: number, now = this.options.clock.now()): Row[] {
    const ages = { ...DEFAULT_ARCHIVE_AGES, ...this.options.ages?.() };
    const cutoff = now - ages[RULES[kind].age];
    const kept = kind === 'chore_run' ? (this.options.choreRunsKeptHot ?? 0) : 0;
    if (kept > 0) return this.options.db.query(CHORE_RUNS_BEYOND_KEPT, [cutoff, kept, limit]);
    return this.options.db.query(RULES[kind].select, [cutoff, limit]);
  }

  /** Moves up to `limit` ready rows of a kind; returns how many moved. Synchronous on purpose (see top). */
  moveBatch(kind: ArchiveKind, limit: number): number {
    const { db, clock } = this.options;
    if (db.readOnly) return 0;
    const now = clock.now();
    const rows = this.ready(kind, limit, now);
    if (rows.length === 0) return 0;
    const rule = RULES[kind];
    const frames = rows.map((row) => {
      const meta = rule.describe(row);
      const extra = kind === 'session' ? this.options.sessionText?.(String(row.id)) : undefined;
      const text = (extra ? `${meta.text}\n${extra}` : meta.text).toLowerCase();
      return encodeFrame(Buffer.from(JSON.stringify({ k: kind, id: String(row.id), s: meta.sessionId, tk: meta.taskId, t: meta.at, q: text, d: row }), 'utf8'));
    });
    const bytes = Buffer.concat(frames);
    const segment = this.segment(kind, now);
    const created = segment.size === 0 && !fs.existsSync(segment.file);
    const fd = fs.openSync(segment.file, created ? 'w' : 'r+');
    try {
      // Positional write at the known good end: a failed earlier write's garbage is overwritten.
      fs.writeSync(fd, bytes, 0, bytes.length, segment.size);
      fs.ftruncateSync(fd, segment.size + bytes.length);
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (created) syncDir(path.dirname(segment.file));
    segment.size += bytes.length;
    const ids = rows.map((row) => String(row.id));
    db.transaction((tx) => {
      for (const id of ids) tx.mutate(`DELETE FROM ${rule.table} WHERE id = ?`, [id]);
      tx.mutate('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [
        `archive:${kind}`,
        JSON.stringify({ f: path.basename(segment.file), o: segment.size }),
      ]);
    });
    this.options.onMoved?.(kind, ids);
    return rows.length;
  }

  /**
   * Archived records of `kinds` whose search text contains `query` (case-insensitive), newest
   * first. Scans raw segment bytes for the query and parses only the frames it hits.
   */
  search(query: string, options: { kinds?: ArchiveKind[]; limit?: number } = {}): ArchivedRecord[] {
    const needle = query.trim().toLowerCase();
    if (!needle) return [];
    return this.scan(options.kinds ?? ['session', 'task'], JSON.stringify(needle).slice(1, -1), (r) => r.text.includes(needle), options.limit ?? 50);
  }

  /** Every archived record of a kind, in archive order (oldest segment first). Reads all its segments. */
  records(kind: ArchiveKind): ArchivedRecord[] {
    const found: ArchivedRecord[] = [];
    for (const file of this.files(kind)) {
      const bytes = fs.readFileSync(file);
      walkFrames(
        bytes,
        0,
        (start, end) => {
          const record = decode(bytes.toString('utf8', start, end));
          if (record) found.push(record);
        },
        true,
        this.resync(file),
      );
    }
    return found;
  }

  /**
   * Reads past damage: a frame that does not check out costs that record only; reading resumes at
   * the next frame that does, and the damaged range is logged once per file and range.
   */
  private resync(file: string): { prefix: Buffer; onDamage: (range: DamagedRange) => void } {
    return {
      prefix: ARCHIVE_PAYLOAD_PREFIX,
      onDamage: (range) => {
        const key = `${file}:${range.start}`;
        if (this.reportedDamage.has(key)) return;
        this.reportedDamage.add(key);
        this.options.logger.warn(
          'STORE',
          `Archive segment ${path.basename(file)} is damaged at bytes ${range.start}–${range.end} (the record there is unreadable); the records after it are read.`,
        );
      },
    };
  }

  /** The archived record of a kind with this id (a run link to a run that left the hot store), newest segment first. */
  byId(kind: ArchiveKind, id: string): ArchivedRecord | undefined {
    return this.scan([kind], `"id":${JSON.stringify(id)}`, (r) => r.id === id, 1)[0];
  }

  /** Archived records of a session or a task (export, history view), oldest first. */
  bySession(sessionId: string, kinds: ArchiveKind[] = ARCHIVE_KINDS.slice()): ArchivedRecord[] {
    return this.scan(kinds, `"s":${JSON.stringify(sessionId)}`, (r) => r.sessionId === sessionId, Infinity).reverse();
  }

  byTask(taskId: string, kinds: ArchiveKind[] = ARCHIVE_KINDS.slice()): ArchivedRecord[] {
    return this.scan(kinds, `"tk":${JSON.stringify(taskId)}`, (r) => r.taskId === taskId, Infinity).reverse();
  }

  private scan(kinds: ArchiveKind[], needleText: string, keep: (r: ArchivedRecord) => boolean, limit: number): ArchivedRecord[] {
    const needle = Buffer.from(needleText, 'utf8');
    const found: ArchivedRecord[] = [];
    const files = kinds.flatMap((kind) => this.files(kind)).sort((a, b) => path.basename(b).localeCompare(path.basename(a)));
    for (const file of files) {
      const bytes = fs.readFileSync(file);
      const hits: number[] = [];
      for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) hits.push(at);
      if (hits.length === 0) continue;
      let inFile: ArchivedRecord[] = [];
      let h = 0;
      let damaged = false;
      const end = walkFrames(
        bytes,
        0,
        (start, end, frameStart) => {
          if (hits[h] >= end) return true;
          while (h < hits.length && hits[h] < end) h++;
          if (!frameIsValid(bytes, frameStart)) return !(damaged = true);
          const record = decode(bytes.toString('utf8', start, end));
          if (record && keep(record)) inFile.push(record);
          return h < hits.length;
        },
        false,
      );
      // The fast walk trusts length fields; where it met damage (or stopped short of a hit) the
      // file is read again, every frame checked, past the damage.
      if (damaged || (h < hits.length && end < bytes.length)) {
        inFile = [];
        walkFrames(
          bytes,
          0,
          (start, end) => {
            const record = decode(bytes.toString('utf8', start, end));
            if (record && keep(record)) inFile.push(record);
          },
          true,
          this.resync(file),
        );
      }
      found.push(...inFile.reverse());
      if (found.length >= limit) break;
    }
    return found.sort((a, b) => b.at - a.at).slice(0, limit);
  }

  /** Per kind: segment files, bytes, archived records and rows still hot. */
  stats(): ArchiveStats[] {
    return ARCHIVE_KINDS.map((kind) => {
      let bytes = 0;
      let records = 0;
      let damaged = 0;
      const files = this.files(kind);
      for (const file of files) {
        const content = fs.readFileSync(file);
        bytes += content.length;
        const resync = this.resync(file);
        walkFrames(content, 0, () => void records++, true, { ...resync, onDamage: (range) => (damaged++, resync.onDamage(range)) });
      }
      const [hot] = this.options.db.query(`SELECT COUNT(*) AS n FROM ${RULES[kind].table}`);
      return { kind, files: files.length, bytes, records, damaged, hotRows: Number(hot?.n ?? 0) };
    });
  }
}
