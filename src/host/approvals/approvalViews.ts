import * as vscode from 'vscode';
import type { ChangeSet } from '../../core/approval/changes/changeSet';
import { classifyChangeSet, describeOutcome } from '../../core/approval/changes/changeSetReview';
import type { EditPolicyOptions } from '../../core/approval/paths/sensitivePaths';
import { sensitiveReason } from '../../core/approval/paths/sensitivePaths';
import type { ApprovalView } from '../../shared/approvalProtocol';

/**
 * A proposed change set as the sidebar's approval card. Its title and the frame of its reason are
 * worded here through vscode.l10n; the policy's own reasons (why a path always asks) and a decided
 * set's outcome are the core's English, written for the model and the person at once, and go in
 * as values (docs/ARCHITECTURE.md "Words and languages" says they are not covered yet).
 */
export function toEditApprovalView(changeSet: ChangeSet, choreId: string | undefined, policy: EditPolicyOptions): ApprovalView {
  const pending = changeSet.status === 'pending';
  const classification = classifyChangeSet(changeSet, policy);
  const asks = [
    ...(classification.decision === 'ask' ? [classification.reason] : []),
    ...(choreId ? [vscode.l10n.t('chore runs never write unattended')] : []),
  ];
  const count = changeSet.files.length;
  return {
    id: changeSet.id,
    taskId: changeSet.taskId,
    sessionId: changeSet.sessionId,
    kind: 'edits',
    title: count === 1 ? vscode.l10n.t('Edit 1 file') : vscode.l10n.t('Edit {0} files', count),
    status: changeSet.status,
    files: changeSet.files.map((f) => {
      const sensitive = sensitiveReason(f.path) ?? (f.newPath !== undefined ? sensitiveReason(f.newPath) : undefined);
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
    ...(pending ? (asks.length ? { reason: vscode.l10n.t('Asks because: {0}', asks.join('; ')) } : {}) : { reason: describeOutcome(changeSet) }),
    ...(choreId ? { choreId } : {}),
    createdAt: changeSet.createdAt,
  };
}
