import type { WorkspacePort } from '../ports';
import type { FsPort } from './fsPort';
import type { PathGuardOptions } from './pathGuard';
import { resolveWorkspacePath } from './pathGuard';

/**
 * The read actions' workspace, behind the same path guard as edits: reads inside the workspace
 * are automatic, anything that resolves outside it (`..`, absolute paths, symbolic links out) is
 * refused with a message the model can act on. Without it a `read_file ../../.ssh/id_rsa` or a
 * link out of the repository would hand files outside the workspace to the model.
 */
export function guardReads(inner: WorkspacePort, root: string, fs: FsPort, options: PathGuardOptions = {}): WorkspacePort {
  const inside = async (requested: string): Promise<string> => {
    const resolved = await resolveWorkspacePath(root, requested, fs, options);
    if (!resolved.ok) throw new Error(resolved.reason);
    return resolved.relativePath || '.';
  };
  return {
    readFile: async (relativePath) => inner.readFile(await inside(relativePath)),
    listFiles: async (relativeDir, listOptions) => inner.listFiles(await inside(relativeDir || '.'), listOptions),
    searchText: async (query, searchOptions) => {
      // The include glob is matched under the root; a `..` or an absolute glob would reach past it.
      const include = searchOptions?.include;
      if (include && (include.split(/[\\/]/).includes('..') || /^([a-zA-Z]:)?[\\/]/.test(include))) {
        throw new Error(`The include glob ${include} reaches outside the workspace; use a glob relative to the workspace root, such as src/**/*.ts.`);
      }
      return inner.searchText(query, searchOptions);
    },
  };
}
