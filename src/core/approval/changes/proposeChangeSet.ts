import { randomUUID } from 'node:crypto';
import type { Clock, WorkspaceReader } from '../../ports';
import { hashContent } from './changeSet';
import type { ChangeSet, EditOperation, FileChange } from './changeSet';
import { countLineChanges } from './lineDiff';

/** What proposeChangeSet needs from outside. */
export interface ProposeDeps {
  /** The workspace as VS Code shows it (unsaved changes included); the proposal never writes. */
  files: WorkspaceReader;
  clock: Clock;
  /** Change-set ids; default random UUIDs. */
  newId?: () => string;
  /** Treat paths differing only in case as the same file (Windows, macOS). */
  caseInsensitive?: boolean;
}

/** What the task proposes. */
export interface ProposeInput {
  taskId: string;
  sessionId: string;
  operations: readonly EditOperation[];
}

/** An edit the model asked for that cannot be proposed; the message says what to do instead. */
export class EditError extends Error {
  override readonly name = 'EditError';
}

/** A file's state while the operations are replayed over the disk. */
interface Slot {
  /** Spelling to show (the latest one used for this file). */
  path: string;
  content: string | null;
  /** Key of the disk file this content came from: itself, another file (renamed here) or null (new). */
  origin: string | null;
}

/**
 * Turns edit operations into one pending change set. Operations apply in order over a virtual
 * copy of the files, so several operations on one file compose: `before` is the file on disk,
 * `after` the result of all of them. Paths must already be resolved and checked by
 * resolveWorkspacePath (pass its `relativePath`). Throws EditError with a message for the model
 * when an operation cannot apply; nothing is proposed then.
 */
export async function proposeChangeSet(input: ProposeInput, deps: ProposeDeps): Promise<ChangeSet> {
  if (input.operations.length === 0) throw new EditError('No edit operations were given; describe at least one file change');
  const keyOf = (path: string): string => {
    const clean = cleanPath(path);
    return deps.caseInsensitive ? clean.toLowerCase() : clean;
  };
  const disk = new Map<string, { path: string; content: string | null }>();
  const slots = new Map<string, Slot>();

  const slot = async (path: string): Promise<Slot> => {
    const key = keyOf(path);
    let found = slots.get(key);
    if (found === undefined) {
      const content = await deps.files.read(cleanPath(path));
      disk.set(key, { path: cleanPath(path), content });
      found = { path: cleanPath(path), content, origin: content === null ? null : key };
      slots.set(key, found);
    }
    return found;
  };
  const renamedAway = (key: string): boolean => [...slots.entries()].some(([k, s]) => k !== key && s.origin === key);
  /** Creating where a file was deleted earlier in the set is a rewrite of that file. */
  const originForNew = (path: string): string | null => {
    const key = keyOf(path);
    if (disk.get(key)?.content == null) return null;
    if (renamedAway(key)) {
      throw new EditError(`${path} was renamed earlier in this change set; create the new ${path} in a separate change set after this one is approved`);
    }
    return key;
  };

  for (const operation of input.operations) {
    const target = await slot(operation.path);
    target.path = cleanPath(operation.path);
    switch (operation.op) {
      case 'create_file':
        if (target.content !== null) {
          throw new EditError(`${operation.path} already exists; use write_file to replace it or replace_in_file to change part of it`);
        }
        target.origin = originForNew(operation.path);
        target.content = operation.content;
        break;
      case 'write_file':
        if (target.content === null) target.origin = originForNew(operation.path);
        target.content = operation.content;
        break;
      case 'replace_in_file':
        if (target.content === null) {
          throw new EditError(
            `${operation.path} does not exist${disk.get(keyOf(operation.path))?.content != null ? ' any more (deleted or renamed earlier in this change set)' : ''}; use create_file to create it`,
          );
        }
        target.content = applyReplacements(operation.path, target.content, operation.edits);
        break;
      case 'delete_file':
        if (target.content === null) throw new EditError(`${operation.path} does not exist, so there is nothing to delete; list the folder to check the name`);
        target.content = null;
        target.origin = null;
        break;
      case 'rename_file': {
        if (target.content === null) throw new EditError(`${operation.path} does not exist, so it cannot be renamed; list the folder to check the name`);
        if (keyOf(operation.newPath) === keyOf(operation.path)) {
          throw new EditError(
            `${operation.path} and ${operation.newPath} are the same file; case-only renames are not supported, rename through a temporary name in two change sets`,
          );
        }
        const destination = await slot(operation.newPath);
        if (destination.content !== null) {
          throw new EditError(`${operation.newPath} already exists; choose another name, or delete it in a separate change set first`);
        }
        if (disk.get(keyOf(operation.newPath))?.content != null) {
          throw new EditError(
            `${operation.newPath} is deleted or renamed earlier in this change set; to replace it, use write_file on ${operation.newPath} and delete_file on ${operation.path}`,
          );
        }
        destination.path = cleanPath(operation.newPath);
        destination.content = target.content;
        destination.origin = target.origin;
        target.content = null;
        target.origin = null;
        break;
      }
    }
  }

  const files: FileChange[] = [];
  for (const [key, current] of slots) {
    const original = disk.get(key) as { path: string; content: string | null };
    if (current.content !== null) {
      if (current.origin === null) {
        files.push(toFileChange({ path: current.path, kind: 'create', before: null, after: current.content }));
      } else if (current.origin === key) {
        if (current.content !== original.content)
          files.push(toFileChange({ path: current.path, kind: 'modify', before: original.content, after: current.content }));
      } else {
        const source = disk.get(current.origin) as { path: string; content: string | null };
        files.push(toFileChange({ path: source.path, kind: 'rename', newPath: current.path, before: source.content, after: current.content }));
      }
    } else if (original.content !== null && !renamedAway(key)) {
      files.push(toFileChange({ path: original.path, kind: 'delete', before: original.content, after: null }));
    }
  }
  if (files.length === 0) throw new EditError('These edits leave every file as it was; there is nothing to approve');

  return {
    id: (deps.newId ?? randomUUID)(),
    taskId: input.taskId,
    sessionId: input.sessionId,
    createdAt: deps.clock.now(),
    status: 'pending',
    files,
  };
}

/** Fills in hash and line counts for one file change. */
export function toFileChange(file: Pick<FileChange, 'path' | 'kind' | 'before' | 'after'> & { newPath?: string }): FileChange {
  const { added, removed } = countLineChanges(file.before, file.after);
  return { ...file, beforeHash: hashContent(file.before), added, removed };
}

/** `/` separators, no `./` or empty segments; `..` is refused (the path guard should have removed it). */
function cleanPath(path: string): string {
  const segments = path
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  if (segments.length === 0) throw new EditError(`${JSON.stringify(path)} is not a file path; give a path relative to the workspace root, e.g. src/index.ts`);
  if (segments.includes('..')) throw new EditError(`${path} contains ..; give a path relative to the workspace root without ..`);
  return segments.join('/');
}

/**
 * Applies exact-text replacements in order. Each old text must occur exactly once, so the model
 * cannot edit the wrong copy of a repeated line. A file with CRLF line ends also accepts old text
 * written with LF (models rarely reproduce \r), and the new text then gets CRLF too.
 */
export function applyReplacements(path: string, content: string, edits: ReadonlyArray<{ oldText: string; newText: string }>): string {
  let text = content;
  edits.forEach((edit, index) => {
    const label = edits.length > 1 ? `oldText of edit ${index + 1} of ${edits.length}` : 'oldText';
    if (edit.oldText === '') throw new EditError(`${label} for ${path} is empty; quote the exact text to replace, or use write_file to replace the whole file`);
    let oldText = edit.oldText;
    let newText = edit.newText;
    let count = countOccurrences(text, oldText);
    if (count === 0 && text.includes('\r\n') && !oldText.includes('\r')) {
      const crlfOld = oldText.replace(/\n/g, '\r\n');
      const crlfCount = countOccurrences(text, crlfOld);
      if (crlfCount > 0) {
        oldText = crlfOld;
        newText = newText.replace(/\r?\n/g, '\r\n');
        count = crlfCount;
      }
    }
    if (count === 0) {
      throw new EditError(`${label} was not found in ${path}; read the file again and retry with an exact excerpt (whitespace and indentation must match)`);
    }
    if (count > 1) {
      throw new EditError(`${label} occurs ${count} times in ${path}; include more surrounding lines so it matches exactly once`);
    }
    const at = text.indexOf(oldText);
    // Slicing, not String.replace: `$&` and friends in the new text must stay literal.
    text = text.slice(0, at) + newText + text.slice(at + oldText.length);
  });
  return text;
}

/** Occurrences, overlapping ones included: "aa" occurs twice in "aaa", which is ambiguous too. */
function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + 1)) count += 1;
  return count;
}
