/**
 * Checkpoints: undoing applied change sets. Every applied set keeps its per-file before/after text
 * in the approvals store, so a task's edits (or one set's) can be reverted as ONE workspace edit.
 *
 * Sets compose: when several applied sets touched a file, the revert restores the content from
 * before the first of them, and expects the disk to hold what the last of them wrote. A file that
 * holds anything else changed since (the person or another task edited it): the whole revert is
 * refused and those files are named, so nothing half-reverts and no later work is lost.
 */
import type { ChangeSet, FileChange } from './changeSet';
import { toFileChange } from './proposeChangeSet';

/** Statuses of sets whose edits are on disk (and so can be reverted). */
export const APPLIED_STATUSES = ['applied', 'partially_applied'] as const;

/**
 * The sets among `sets` a revert would undo: applied (wholly or partly) with at least one file the
 * person kept. planRevert undoes exactly these, and RevertibleTasks (revertibleTasks.ts) offers
 * Revert edits from them: one reading of "something applied is left to undo".
 */
export function revertibleSets(sets: readonly ChangeSet[]): ChangeSet[] {
  return sets.filter((s) => (APPLIED_STATUSES as readonly string[]).includes(s.status) && s.files.some((f) => f.decision !== 'reject'));
}

/** What a revert does, or why it cannot. */
export type RevertPlan = { ok: true; changes: FileChange[]; files: string[] } | { ok: false; changed: string[]; reason: string };

/** How one applied file change moved one path: content before and after (null: absent). */
interface Effect {
  path: string;
  before: string | null;
  after: string | null;
}

function effects(file: FileChange): Effect[] {
  switch (file.kind) {
    case 'create':
      return [{ path: file.path, before: null, after: file.after }];
    case 'delete':
      return [{ path: file.path, before: file.before, after: null }];
    case 'modify':
      return [{ path: file.path, before: file.before, after: file.after }];
    case 'rename':
      return [
        { path: file.path, before: file.before, after: null },
        { path: file.newPath as string, before: null, after: file.after },
      ];
  }
}

/**
 * Plans the revert of `sets` (any order; they are replayed by creation time). `read` gives the
 * workspace as it is now (unsaved editor text included, like the approval's staleness check).
 */
export async function planRevert(sets: readonly ChangeSet[], read: (relativePath: string) => Promise<string | null>): Promise<RevertPlan> {
  const applied = revertibleSets(sets).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  const paths = new Map<string, { original: string | null; expected: string | null }>();
  for (const set of applied) {
    for (const file of set.files) {
      if (file.decision === 'reject') continue; // excluded by the person: never applied
      for (const effect of effects(file)) {
        const seen = paths.get(effect.path);
        if (seen) seen.expected = effect.after;
        else paths.set(effect.path, { original: effect.before, expected: effect.after });
      }
    }
  }
  if (paths.size === 0) return { ok: false, changed: [], reason: 'there are no applied edits to revert' };

  const changed: string[] = [];
  for (const [path, { expected }] of paths) {
    if ((await read(path)) !== expected) changed.push(path);
  }
  if (changed.length > 0) {
    return {
      ok: false,
      changed,
      reason: `${changed.join(', ')} changed since Tasklane applied the edit${changed.length > 1 ? 's' : ''}; nothing was reverted (undo or save those changes first, or revert by hand)`,
    };
  }

  const changes: FileChange[] = [];
  for (const [path, { original, expected }] of paths) {
    if (original === expected) continue;
    if (original === null) changes.push(toFileChange({ path, kind: 'delete', before: expected, after: null }));
    else if (expected === null) changes.push(toFileChange({ path, kind: 'create', before: null, after: original }));
    else changes.push(toFileChange({ path, kind: 'modify', before: expected, after: original }));
  }
  // Deletions before creations: a revert of a rename frees the new name before re-creating the old one.
  changes.sort((a, b) => (a.kind === 'delete' ? 0 : 1) - (b.kind === 'delete' ? 0 : 1));
  return { ok: true, changes, files: changes.map((c) => c.path) };
}
