/**
 * The little the path guard needs to know about the file system. A port (not node:fs directly)
 * so a headless runner, a remote file system or a test can supply its own; nodeFs.ts is the
 * Node implementation.
 */
import type { BoundedText } from '../../ports';

export type { BoundedText };

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

/** What `stat` reports (following symbolic links): enough to bound a read and spot a hard link. */
export interface FsStat {
  kind: FsEntryKind;
  /** Bytes. */
  size: number;
  /** How many directory entries name this inode; above 1 on a regular file means a hard link. */
  links: number;
}

/**
 * The file system the guarded workspace reads through: FsPort plus listing, stat and bounded
 * reads. Listing reports symbolic links as links (never follows them), so a walk cannot be led
 * out of the workspace.
 */
export interface WorkspaceFsPort extends FsPort {
  /** The entries of a directory, each with its lstat kind. */
  readdir(path: string): Promise<Array<{ name: string; kind: FsEntryKind }>>;
  /** stat (following links), or undefined when nothing is there. */
  stat(path: string): Promise<FsStat | undefined>;
  /** Reads at most `maxBytes` from the start of the file. */
  readText(path: string, maxBytes: number): Promise<BoundedText>;
  /** Lines `startLine`..`endLine` (1-based) of the file, streamed from its start and no further than `endLine`. Optional. */
  readLines?(path: string, startLine: number, endLine: number): Promise<string[]>;
}
