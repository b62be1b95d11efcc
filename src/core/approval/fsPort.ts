/**
 * The little the path guard needs to know about the file system. A port (not node:fs directly)
 * so a headless runner, a remote file system or a test can supply its own; nodeFs.ts is the
 * Node implementation.
 */

/** What `lstat` reports about one path, without following a final symbolic link. */
export type FsEntryKind = 'file' | 'directory' | 'symlink' | 'other';

/** File-system queries used to resolve a requested path to where a write would really land. */
export interface FsPort {
  /** The canonical path of an existing path (all symbolic links resolved). Rejects if it does not exist. */
  realpath(path: string): Promise<string>;
  /** The kind of the entry at `path` without following it, or undefined when nothing is there (or a parent is not a directory). */
  lstat(path: string): Promise<FsEntryKind | undefined>;
  /** The raw target text of the symbolic link at `path` (relative targets are relative to the link's directory). */
  readlink(path: string): Promise<string>;
}
