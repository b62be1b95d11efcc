import { createReadStream } from 'node:fs';
import type { Dirent } from 'node:fs';
import { lstat, open, readdir, readlink, realpath, stat } from 'node:fs/promises';
import type { FsEntryKind, FsStat, WorkspaceFsPort } from './fsPort';

/** Characters of one line readLines keeps (the rest of the line is skipped). */
const MAX_LINE_CHARS = 100_000;
/** Characters readLines scans at most to reach a range. */
const MAX_SCAN_BYTES = 256 * 1024 * 1024;

/** Codes meaning "nothing at this path" rather than a real failure worth surfacing. */
const MISSING = new Set(['ENOENT', 'ENOTDIR']);

function kindOf(entry: Pick<Dirent, 'isSymbolicLink' | 'isDirectory' | 'isFile'>): FsEntryKind {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  return 'other';
}

/** FsPort on node:fs/promises, for the extension host, a headless runner and the tests. */
export const nodeFs: WorkspaceFsPort = {
  realpath: (path) => realpath(path),
  async lstat(path): Promise<FsEntryKind | undefined> {
    try {
      return kindOf(await lstat(path));
    } catch (error) {
      if (MISSING.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
      throw error;
    }
  },
  readlink: (path) => readlink(path),
  async readdir(path) {
    const entries = await readdir(path, { withFileTypes: true });
    return entries.map((entry) => ({ name: entry.name, kind: kindOf(entry) }));
  },
  async stat(path): Promise<FsStat | undefined> {
    try {
      const stats = await stat(path);
      return { kind: kindOf(stats), size: stats.size, links: stats.nlink };
    } catch (error) {
      if (MISSING.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
      throw error;
    }
  },
  async readText(path, maxBytes) {
    const handle = await open(path, 'r');
    try {
      const size = (await handle.stat()).size;
      const want = Math.max(0, Math.min(size, maxBytes));
      const buffer = Buffer.alloc(want);
      let read = 0;
      while (read < want) {
        const { bytesRead } = await handle.read(buffer, read, want - read, read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      let end = read;
      // Cut back to a whole UTF-8 character: drop a trailing partial sequence.
      if (read < size) {
        let i = end - 1;
        while (i >= 0 && i > end - 4 && (buffer[i] & 0xc0) === 0x80) i -= 1;
        if (i >= 0 && buffer[i] >= 0xc0) {
          const need = buffer[i] >= 0xf0 ? 4 : buffer[i] >= 0xe0 ? 3 : 2;
          if (end - i < need) end = i;
        }
      }
      return { text: buffer.subarray(0, end).toString('utf8'), truncated: read < size, size };
    } finally {
      await handle.close();
    }
  },
  async readLines(path, startLine, endLine) {
    // By hand, not readline: a file with no newline for gigabytes (a sparse file, a minified
    // bundle) would be one line held whole in memory. A line is kept up to MAX_LINE_CHARS, and the
    // scan gives up after MAX_SCAN_BYTES.
    const out: string[] = [];
    let n = 1;
    let current = '';
    let scanned = 0;
    const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1024 * 1024 });
    try {
      for await (const chunk of stream as AsyncIterable<string>) {
        scanned += chunk.length;
        let from = 0;
        for (let nl = chunk.indexOf('\n'); ; nl = chunk.indexOf('\n', from)) {
          const piece = chunk.slice(from, nl < 0 ? undefined : nl);
          if (n >= startLine && current.length < MAX_LINE_CHARS) current += piece.slice(0, MAX_LINE_CHARS - current.length);
          if (nl < 0) break;
          if (n >= startLine) out.push(current.endsWith('\r') ? current.slice(0, -1) : current);
          current = '';
          n += 1;
          from = nl + 1;
          if (n > endLine) return out;
        }
        if (scanned > MAX_SCAN_BYTES) {
          // Inside the range: what was read of it (its last line cut); before it: out of reach.
          if (n >= startLine) return [...out, current];
          throw new Error(`line ${startLine} is not within the first ${MAX_SCAN_BYTES} bytes, which is as far as a read goes`);
        }
      }
      if (n >= startLine && current) out.push(current);
      return out;
    } finally {
      stream.destroy();
    }
  },
};
