import { ENGLISH } from './translator';
import type { Translator } from './translator';

/**
 * What became of a decided change set, in words: the one place they are written. The core's
 * `describeOutcome` (src/core/approval/changes/changeSetReview.ts) passes nothing and gets English,
 * because its text goes to the model and the transcript, which stay English on purpose; the
 * approval card passes `vscode.l10n`. The set's `reason` (the person's own words when rejecting,
 * or the core's English account of why it went stale) and `problems` (the language servers'
 * diagnostics) are values, not Tasklane's words to translate. A stale set's `staleFiles` are data:
 * the card drops the English `reason` and words the files here (so does the thread's row,
 * src/host/stepEventRows.ts); the core keeps the `reason`, which has the advice for the model.
 */
/** A file that changed on disk since it was proposed (core/approval/changes/changeSetReview.ts finds them). */
export interface StaleFile {
  /** The workspace-relative path that differs. */
  path: string;
  /** What differs: the file was edited, created where none was, or deleted. */
  change: 'modified' | 'created' | 'deleted';
}

export function isStaleFile(value: unknown): value is StaleFile {
  const file = value as Partial<StaleFile> | null;
  return typeof file === 'object' && file !== null && typeof file.path === 'string' && ['modified', 'created', 'deleted'].includes(file.change ?? '');
}

/** The files that changed on disk, each with what happened to it: "src/a.ts (modified), b.ts (deleted)". */
export function staleFilesWords(files: readonly StaleFile[], l10n: Translator = ENGLISH): string {
  const one = (f: StaleFile): string =>
    f.change === 'created' ? l10n.t('{0} (created)', f.path) : f.change === 'deleted' ? l10n.t('{0} (deleted)', f.path) : l10n.t('{0} (modified)', f.path);
  return files.map(one).join(', ');
}

export interface DecidedChangeSet {
  status: 'pending' | 'approved' | 'rejected' | 'applied' | 'stale' | 'partially_applied' | 'reverted';
  files: ReadonlyArray<{ path: string; newPath?: string; kind: string; decision?: 'accept' | 'reject' }>;
  reason?: string;
  problems?: string;
  staleFiles?: readonly StaleFile[];
}

/** A one-paragraph account of a decided set; its problems follow on the next line. */
export function changeOutcomeWords(changeSet: DecidedChangeSet, l10n: Translator = ENGLISH): string {
  const outcome = decisionWords(changeSet, l10n);
  return changeSet.problems ? `${outcome}\n${changeSet.problems}` : outcome;
}

function decisionWords(changeSet: DecidedChangeSet, l10n: Translator): string {
  const name = (f: DecidedChangeSet['files'][number]): string => (f.kind === 'rename' ? `${f.path} → ${f.newPath}` : f.path);
  const applied = changeSet.files
    .filter((f) => f.decision !== 'reject')
    .map(name)
    .join(', ');
  const rejected = changeSet.files
    .filter((f) => f.decision === 'reject')
    .map(name)
    .join(', ');
  switch (changeSet.status) {
    case 'applied':
      return l10n.t('The change was approved and applied: {0}.', applied);
    case 'partially_applied':
      return l10n.t('The change was partly approved. Applied: {0}. Rejected by the user: {1}.', applied, rejected);
    case 'rejected':
      return changeSet.reason === undefined
        ? l10n.t('The change was rejected: no reason given. Nothing was written.')
        : l10n.t('The change was rejected: {0}. Nothing was written.', changeSet.reason);
    case 'stale':
      if (changeSet.reason !== undefined) return l10n.t('The change was not applied: {0}.', changeSet.reason);
      return changeSet.staleFiles?.length
        ? l10n.t('The change was not applied: these files changed on disk since the proposal: {0}.', staleFilesWords(changeSet.staleFiles, l10n))
        : l10n.t('The change was not applied: files changed on disk.');
    case 'reverted':
      return l10n.t('The change was applied, then reverted by the user: {0} are back as they were before it.', applied);
    case 'pending':
      return l10n.t("The change is pending; wait for the user's decision.");
    case 'approved':
      return l10n.t("The change is approved; wait for the user's decision.");
  }
}
