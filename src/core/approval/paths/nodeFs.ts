import type { Dirent } from 'node:fs';
import { lstat, open, readdir, readlink, realpath, stat } from 'node:fs/promises';
import type { FsEntryKind, FsStat, WorkspaceFsPort } from './fsPort';

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
};
