/**
 * Which files a run's patch may change when it becomes a draft pull request. The apply job reads
 * the paths from the patch itself (not from the manifest's list) and refuses the files that steer
 * CI, agents or the editor (the host's sensitive paths: workflows, Tasklane's own definitions,
 * CODEOWNERS, agent instructions, `.vscode/`, `.devcontainer/`, hooks, `.npmrc`…), unless the chore declares them in `outputs.pullRequest.paths`. Odd paths (absolute, `..`,
 * quoted, control characters) and symbolic links are refused outright.
 */
import { applyPatch, parsePatch } from 'diff';
import type { StructuredPatch } from 'diff';
import { sensitiveReason } from '../core/approval/paths/sensitivePaths';

/** One file of the patch and what it becomes. */
export interface PatchFile {
  path: string;
  kind: 'created' | 'changed' | 'deleted';
  patch: StructuredPatch;
}

/** Splits the patch by file; throws with a reason when it cannot be read as a plain text patch. */
export function patchFiles(patch: string): PatchFile[] {
  if (/^(old|new) mode |^new file mode 120000|^GIT binary patch|^rename (from|to) |^copy (from|to) /m.test(patch))
    throw new Error('the patch changes modes, links, binary files or renames, which a draft pull request from Tasklane does not carry');
  const files = parsePatch(patch).filter((f) => f.hunks.length > 0 || f.oldFileName || f.newFileName);
  return files.map((f) => {
    const oldName = f.oldFileName ?? '/dev/null';
    const newName = f.newFileName ?? '/dev/null';
    const kind: PatchFile['kind'] = oldName === '/dev/null' ? 'created' : newName === '/dev/null' ? 'deleted' : 'changed';
    const raw = kind === 'deleted' ? oldName : newName;
    const path = raw.replace(/^[ab]\//, '');
    if (kind === 'changed' && oldName.replace(/^a\//, '') !== path) throw new Error(`the patch renames ${oldName} to ${newName}`);
    const problem = pathProblem(path);
    if (problem) throw new Error(`the patch names the path "${path.slice(0, 80)}", which ${problem}`);
    return { path, kind, patch: f };
  });
}

function pathProblem(path: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f"\\]/.test(path)) return 'has quotes, backslashes or control characters';
  if (path.startsWith('/') || path.split('/').some((part) => part === '..' || part === '.' || part === '')) return 'is not a plain relative path';
  if (path.split('/')[0] === '.git') return 'is inside .git';
  return undefined;
}

/**
 * Why a patch path may not be in a pull request (undefined: it may). `declared` are
 * `outputs.pullRequest.paths`. The protected paths are the host's sensitive paths, one list
 * (`sensitiveReason`, case-folded as a case-insensitive checkout merges `.Agents/` into
 * `.agents/`): what the editor asks a person about is what a reviewer is warned about here.
 */
export function protectedPathProblem(
  path: string,
  declared: readonly string[] = [],
  kind: 'pullRequest' | 'pushToPullRequest' = 'pullRequest',
): string | undefined {
  const why = sensitiveReason(path);
  if (!why) return undefined;
  if (declared.some((d) => matchesDeclared(path, d))) return undefined;
  const what = kind === 'pullRequest' ? "a chore's pull request" : "a chore's commit to a pull request";
  return `${path} is protected: ${why}; ${what} may change it only when outputs.${kind}.paths lists it`;
}

/** A declared path: exact, or a folder ending in `/**`. */
function matchesDeclared(path: string, declared: string): boolean {
  return declared.endsWith('/**') ? path.startsWith(declared.slice(0, -2)) : path === declared;
}

/** The file's content after its hunks, from its content before (undefined: it did not exist). */
export function applyFilePatch(file: PatchFile, before: string | undefined, where = 'the default branch'): string | null {
  if (file.kind === 'deleted') return null;
  const result = applyPatch(before ?? '', file.patch);
  if (result === false) throw new Error(`the patch of ${file.path} does not apply to ${where}`);
  return result;
}
