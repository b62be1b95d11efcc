import * as path from 'node:path';

/** Whether `inner` is `outer` or a path under it. */
function within(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Where Export Session's folder dialog starts: the person's Downloads folder, else their home,
 * else the temporary folder; never a folder inside the workspace, where an export would be one
 * more change in the repository (an SCM badge, a file to keep out of a commit).
 */
export function defaultExportFolder(home: string, tmp: string, workspaceFolders: readonly string[], exists: (folder: string) => boolean): string {
  const candidates = [path.join(home, 'Downloads'), home, tmp];
  return candidates.find((c) => exists(c) && !workspaceFolders.some((w) => within(c, w))) ?? tmp;
}
