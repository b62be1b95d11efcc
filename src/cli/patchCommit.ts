/**
 * A run's patch turned into tree entries on a commit of GitHub's (the default branch's head for a
 * draft pull request, a pull request's head for a push to it), shared by draftPull.ts and
 * pushToPull.ts: protected paths are left out file by file, each file keeps the mode that commit's
 * tree gives it (a new one is 100644: the patch carries no mode, patchRules.ts refuses mode
 * lines), and a file that is a link or a submodule there is left out, its content not being text.
 */
import type { GithubApi } from './githubApi';
import { applyFilePatch, patchFiles, protectedPathProblem } from './patchRules';
import type { PatchFile } from './patchRules';

/** A base-tree mode whose content is not a text file a patch may rewrite. */
const NOT_TEXT: Readonly<Record<string, string>> = { '120000': 'a symbolic link', '160000': 'a submodule', '040000': 'a folder' };

/**
 * The patch's files split into those that may go and why the others may not; `refused` when no
 * file may (the patch cannot be read, or every file is protected). `kind` names the output whose
 * `paths` would allow a protected file.
 */
export function planPatch(
  patch: string,
  declaredPaths: readonly string[],
  kind: 'pullRequest' | 'pushToPullRequest',
): { kept: PatchFile[]; leftOut: string[] } | { refused: string } {
  let files: PatchFile[];
  try {
    files = patchFiles(patch);
  } catch (error) {
    return { refused: error instanceof Error ? error.message : String(error) };
  }
  const blocked = files.map((f) => protectedPathProblem(f.path, declaredPaths, kind));
  if (blocked.every((p) => p !== undefined)) return { refused: blocked.join('; ') };
  return { kept: files.filter((_, i) => blocked[i] === undefined), leftOut: blocked.filter((p): p is string => p !== undefined) };
}

/**
 * The tree entries of `kept` on `base` (blobs written), each with its mode there; a file that is
 * not text there is added to `leftOut` instead. Throws when a file's hunks do not apply.
 */
export async function patchEntries(
  writer: GithubApi,
  base: { sha: string; tree: string },
  kept: readonly PatchFile[],
  leftOut: string[],
  where: string,
): Promise<Array<{ path: string; sha: string | null; mode: string }>> {
  const modes = await baseModes(
    writer,
    base.tree,
    kept.map((f) => f.path),
  );
  const entries: Array<{ path: string; sha: string | null; mode: string }> = [];
  for (const file of kept) {
    const mode = modes.get(file.path);
    if (mode && NOT_TEXT[mode]) {
      leftOut.push(`${file.path} is ${NOT_TEXT[mode]} on ${where}, not a file a patch may rewrite`);
      continue;
    }
    const after = applyFilePatch(file, file.kind === 'created' ? undefined : await writer.fileAt(file.path, base.sha), where);
    entries.push({ path: file.path, sha: after === null ? null : await writer.createBlob(after), mode: mode ?? '100644' });
  }
  return entries;
}

/**
 * The mode of each path on the base tree (absent: not there), read one tree level at a time along
 * the paths' folders: exact for any repository size, where a recursive listing may be truncated.
 */
async function baseModes(api: GithubApi, root: string, paths: readonly string[]): Promise<Map<string, string>> {
  const modes = new Map<string, string>();
  const levels = new Map<string, Promise<Map<string, { mode: string; sha: string }>>>();
  const level = (dir: string, sha: string) => {
    let found = levels.get(dir);
    if (!found) {
      found = api.treeEntries(sha).then((entries) => new Map(entries.map((e) => [e.path, { mode: e.mode, sha: e.sha }])));
      levels.set(dir, found);
    }
    return found;
  };
  for (const path of paths) {
    const parts = path.split('/');
    let sha: string | undefined = root;
    let dir = '';
    for (let i = 0; sha && i < parts.length; i++) {
      const entry = (await level(dir, sha)).get(parts[i]);
      if (!entry) break;
      if (i === parts.length - 1) modes.set(path, entry.mode);
      // A link or a submodule on the way is not a folder to walk into: the path itself is new.
      sha = entry.mode === '040000' ? entry.sha : undefined;
      dir = dir ? `${dir}/${parts[i]}` : parts[i];
    }
  }
  return modes;
}
