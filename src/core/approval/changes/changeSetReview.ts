import { hashContent } from './changeSet';
import type { ChangeSet, ChangeSetStatus, FileChange, FileDecision } from './changeSet';
import { EditError, toFileChange } from './proposeChangeSet';
import { classifyEdits } from '../paths/sensitivePaths';
import type { EditClassification, EditPolicyOptions } from '../paths/sensitivePaths';
import type { WorkspaceReader } from '../../ports';
import { changeOutcomeWords } from '../../../shared/changeOutcomeWords';
import type { StaleFile } from '../../../shared/changeOutcomeWords';

/**
 * What happens to a proposed change set between the proposal and the disk: per-file decisions,
 * the user's edits to the proposed side, the staleness check and the status transitions. Every
 * function returns a new ChangeSet and leaves its argument untouched, so a caller can store the
 * result and an observer never sees half a transition.
 */

const TRANSITIONS: Record<ChangeSetStatus, readonly ChangeSetStatus[]> = {
  pending: ['approved', 'rejected', 'stale'],
  approved: ['applied', 'partially_applied', 'stale'],
  rejected: [],
  applied: ['reverted'],
  stale: [],
  partially_applied: ['reverted'],
  reverted: [],
};

/** A file that changed on disk since it was proposed (its one definition is beside the words for it). */
export type { StaleFile };

/** Moves a change set to another status, refusing transitions the lifecycle does not allow. */
export function transition(changeSet: ChangeSet, to: ChangeSetStatus, reason?: string): ChangeSet {
  if (!TRANSITIONS[changeSet.status].includes(to)) {
    throw new Error(
      `Change set ${changeSet.id} is ${changeSet.status} and cannot become ${to}; only a pending set can be decided and only an approved one applied`,
    );
  }
  return { ...changeSet, status: to, ...(reason !== undefined ? { reason } : {}) };
}

/** Records the user's accept/reject for one file of a pending set (path or, for a rename, newPath). */
export function decideFile(changeSet: ChangeSet, path: string, decision: FileDecision): ChangeSet {
  const index = findFile(changeSet, path);
  return { ...changeSet, files: changeSet.files.map((f, i) => (i === index ? { ...f, decision } : f)) };
}

/**
 * Replaces the proposed content of one file with the user's edit of the diff editor's proposed
 * side; the line counts follow. A deletion has no proposed side to edit.
 */
export function editProposedContent(changeSet: ChangeSet, path: string, after: string): ChangeSet {
  const index = findFile(changeSet, path);
  const file = changeSet.files[index];
  if (file.kind === 'delete') throw new EditError(`${file.path} is proposed for deletion; reject that file instead of editing it`);
  const updated: FileChange = { ...toFileChange({ ...file, after }), ...(file.decision !== undefined ? { decision: file.decision } : {}) };
  return { ...changeSet, files: changeSet.files.map((f, i) => (i === index ? updated : f)) };
}

/** The files an approval applies: all but those the user rejected. */
export function filesToApply(changeSet: ChangeSet): FileChange[] {
  return changeSet.files.filter((f) => f.decision !== 'reject');
}

/**
 * Compares the disk with the proposal for every file that would be applied: the source's content
 * hash, and for renames that the new path is still free. Any entry means nothing may be applied.
 */
export async function findStaleFiles(changeSet: ChangeSet, files: WorkspaceReader): Promise<StaleFile[]> {
  const stale: StaleFile[] = [];
  for (const file of filesToApply(changeSet)) {
    const now = await files.read(file.path);
    if (hashContent(now) !== file.beforeHash) {
      stale.push({ path: file.path, change: file.before === null ? 'created' : now === null ? 'deleted' : 'modified' });
    }
    if (file.kind === 'rename' && file.newPath !== undefined && (await files.read(file.newPath)) !== null) {
      stale.push({ path: file.newPath, change: 'created' });
    }
  }
  return stale;
}

/** The outcome of approving: the set to store, and either the files to apply or why nothing may be. */
export type ApprovalOutcome = { ok: true; changeSet: ChangeSet; apply: FileChange[] } | { ok: false; changeSet: ChangeSet; stale: StaleFile[] };

/**
 * Approves a pending set after the staleness check. Stale: the set becomes 'stale' with a reason
 * naming the files, and nothing is to be applied. Every file rejected: the set becomes 'rejected'.
 * Otherwise 'approved' with the files to apply (as one WorkspaceEdit, then markApplied).
 */
export async function approveChangeSet(changeSet: ChangeSet, files: WorkspaceReader): Promise<ApprovalOutcome> {
  if (changeSet.status !== 'pending') transition(changeSet, 'approved');
  const apply = filesToApply(changeSet);
  if (apply.length === 0) return { ok: true, changeSet: transition(changeSet, 'rejected', 'every file was rejected'), apply };
  const stale = await findStaleFiles(changeSet, files);
  if (stale.length > 0) {
    const list = stale.map((s) => `${s.path} (${s.change})`).join(', ');
    const reason = `nothing was applied because these files changed on disk since the proposal: ${list}; read them again and propose the edit anew`;
    // The reason is the model's (with its advice); `staleFiles` lets the card and the thread word it.
    return { ok: false, changeSet: { ...transition(changeSet, 'stale', reason), staleFiles: stale }, stale };
  }
  return { ok: true, changeSet: transition(changeSet, 'approved'), apply };
}

/**
 * The reason a rejection carries when the person gave none: words for the model, which the
 * thread does not repeat to the person (src/host/stepPresenter.ts reads it as "no reason").
 */
export const NO_REJECT_REASON = 'the user rejected the change without a reason';

/** Rejects a pending set; the reason (the user's words, optional) is passed on to the task. */
export function rejectChangeSet(changeSet: ChangeSet, reason?: string): ChangeSet {
  return transition(changeSet, 'rejected', reason?.trim() ? reason.trim() : NO_REJECT_REASON);
}

/** Marks an approved set as written: 'partially_applied' when the user rejected some files. */
export function markApplied(changeSet: ChangeSet): ChangeSet {
  const partial = changeSet.files.some((f) => f.decision === 'reject');
  return transition(changeSet, partial ? 'partially_applied' : 'applied');
}

/**
 * The edit policy for a whole set: it applies without asking only if every path it touches (both
 * sides of a rename) would. Also classify the requested spellings (classifyResolvedEdit) when
 * proposing, since the set holds only the resolved paths.
 */
export function classifyChangeSet(changeSet: ChangeSet, options: EditPolicyOptions): EditClassification {
  return classifyEdits(
    changeSet.files.flatMap((f) => (f.newPath !== undefined ? [f.path, f.newPath] : [f.path])),
    options,
  );
}

/**
 * A one-paragraph account of a decided set, written for the task that proposed it: English on
 * purpose (the model reads it). The card words the same account in the person's language from the
 * same function (src/shared/changeOutcomeWords.ts).
 */
export function describeOutcome(changeSet: ChangeSet): string {
  return changeOutcomeWords(changeSet);
}

function findFile(changeSet: ChangeSet, path: string): number {
  if (changeSet.status !== 'pending') throw new Error(`Change set ${changeSet.id} is ${changeSet.status}; only a pending set can be reviewed`);
  const index = changeSet.files.findIndex((f) => f.path === path || f.newPath === path);
  if (index === -1) throw new Error(`Change set ${changeSet.id} has no file ${path}; its files are ${changeSet.files.map((f) => f.path).join(', ')}`);
  return index;
}
