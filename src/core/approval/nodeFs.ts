import { lstat, readlink, realpath } from 'node:fs/promises';
import type { FsEntryKind, FsPort } from './fsPort';

/** Codes meaning "nothing at this path" rather than a real failure worth surfacing. */
const MISSING = new Set(['ENOENT', 'ENOTDIR']);

/** FsPort on node:fs/promises, for the extension host, a headless runner and the tests. */
export const nodeFs: FsPort = {
  realpath: (path) => realpath(path),
  async lstat(path): Promise<FsEntryKind | undefined> {
    try {
      const stats = await lstat(path);
      if (stats.isSymbolicLink()) return 'symlink';
      if (stats.isDirectory()) return 'directory';
      if (stats.isFile()) return 'file';
      return 'other';
    } catch (error) {
      if (MISSING.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
      throw error;
    }
  },
  readlink: (path) => readlink(path),
};
