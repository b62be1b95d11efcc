import * as vscode from 'vscode';
import type { ChangeSet } from '../../core/approval/changes/changeSet';
import { classifyChangeSet, NO_REJECT_REASON } from '../../core/approval/changes/changeSetReview';
import type { EditPolicyOptions } from '../../core/approval/paths/sensitivePaths';
import { sensitiveWhy } from '../../core/approval/paths/sensitivePaths';
import { approvalReasonsWords, sensitiveWords } from '../../shared/approvalReasons';
import { changeOutcomeWords } from '../../shared/changeOutcomeWords';
import type { ApprovalView } from '../../shared/approvalProtocol';

/**
 * A proposed change set as the sidebar's approval card, worded here through vscode.l10n: its title,
 * the policy's reasons (the core reports them as codes, src/shared/approvalReasons.ts words them),
 * each file's sensitive-path note and a decided set's outcome. The core's English `reason` and
 * `describeOutcome` are for the model; the card never shows them.
 */
export function toEditApprovalView(changeSet: ChangeSet, choreId: string | undefined, policy: EditPolicyOptions): ApprovalView {
  const pending = changeSet.status === 'pending';
  const classification = classifyChangeSet(changeSet, policy);
  const asks = [...(classification.decision === 'ask' ? classification.reasons : []), ...(choreId ? [{ code: 'choreRun' } as const] : [])];
  const count = changeSet.files.length;
  return {
    id: changeSet.id,
    taskId: changeSet.taskId,
    sessionId: changeSet.sessionId,
    kind: 'edits',
    title: count === 1 ? vscode.l10n.t('Edit 1 file') : vscode.l10n.t('Edit {0} files', count),
    status: changeSet.status,
    files: changeSet.files.map((f) => {
      const why = sensitiveWhy(f.path) ?? (f.newPath !== undefined ? sensitiveWhy(f.newPath) : undefined);
      const sensitive = why && sensitiveWords(why, vscode.l10n);
      return {
        path: f.path,
        kind: f.kind,
        ...(f.newPath !== undefined ? { newPath: f.newPath } : {}),
        added: f.added,
        removed: f.removed,
        ...(f.decision ? { decision: f.decision } : {}),
        ...(sensitive ? { sensitive } : {}),
      };
    }),
    ...(pending
      ? asks.length
        ? { reason: vscode.l10n.t('Asks because: {0}', approvalReasonsWords(asks, vscode.l10n)) }
        : {}
      : { reason: outcome(changeSet) }),
    ...(choreId ? { choreId } : {}),
    createdAt: changeSet.createdAt,
  };
}

/**
 * A decided set's outcome in the person's language. A rejection without a reason carries the
 * core's English for the model (NO_REJECT_REASON); the card says "no reason given" instead. A set
 * stale because files changed on disk names them from its `staleFiles` instead of the English reason.
 */
function outcome(changeSet: ChangeSet): string {
  const { reason, ...rest } = changeSet;
  const english = reason === undefined || reason === NO_REJECT_REASON || (changeSet.status === 'stale' && changeSet.staleFiles?.length);
  return changeOutcomeWords(english ? rest : { ...rest, reason }, vscode.l10n);
}
