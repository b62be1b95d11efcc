import { ENGLISH } from './translator';
import type { Translator } from './translator';

/**
 * What became of a decided change set, in words: the one place they are written. The core's
 * `describeOutcome` (src/core/approval/changes/changeSetReview.ts) passes nothing and gets English,
 * because its text goes to the model and the transcript, which stay English on purpose; the
 * approval card passes `vscode.l10n`. The set's `reason` (the person's own words when rejecting,
 * or the core's English account of the files that changed on disk) and `problems` (the language
 * servers' diagnostics) are values, not Tasklane's words to translate.
 */
export interface DecidedChangeSet {
  status: 'pending' | 'approved' | 'rejected' | 'applied' | 'stale' | 'partially_applied' | 'reverted';
  files: ReadonlyArray<{ path: string; newPath?: string; kind: string; decision?: 'accept' | 'reject' }>;
  reason?: string;
  problems?: string;
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
      return changeSet.reason === undefined
        ? l10n.t('The change was not applied: files changed on disk.')
        : l10n.t('The change was not applied: {0}.', changeSet.reason);
    case 'reverted':
      return l10n.t('The change was applied, then reverted by the user: {0} are back as they were before it.', applied);
    case 'pending':
      return l10n.t("The change is pending; wait for the user's decision.");
    case 'approved':
      return l10n.t("The change is approved; wait for the user's decision.");
  }
}
