import * as vscode from 'vscode';
import { forLabel } from '../../core/security/surfaceText';
import type { ApprovalView } from '../../shared/approvalProtocol';
import { showInvisible } from '../../shared/visibleText';
import type { ConsentDialogs } from '../consentDialog';
import { notice } from '../notice';

/** Something that owns approvals (change sets, commands) the palette commands can decide. */
export interface ApprovalOwner {
  owns(id: string): Promise<boolean>;
  /** Its approvals as the sidebar shows them (the pending ones are offered in the pick). */
  list(): Promise<ApprovalView[]>;
  approve(id: string): Promise<unknown>;
  reject(id: string, reason?: string): Promise<unknown>;
}

/**
 * `tasklane.approve` / `tasklane.reject` (docs/DESIGN.md §9): an approval id, or, without one, an
 * explicit pick of the pending approvals (commands and change sets, each named with what it runs
 * or touches, invisible characters shown escaped). Never silently "the oldest": a command queued
 * at night by a chore must not run when the person meant the diff in front of them. Reject from
 * the palette (no arguments) asks for an optional reason, which the task is told; a caller
 * passing an id passes the reason second. Each returns what its owner's decision returned
 * (undefined when there was nothing to decide or the pick was dismissed). The owners exist once
 * the store is open; the commands wait for them (`ready`).
 */
export function registerApprovalCommands(ready: Promise<readonly ApprovalOwner[]>, dialogs: ConsentDialogs): vscode.Disposable[] {
  const idOf = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

  /** The approval meant; `cut` when the picked item could not show all of what would run or change. */
  async function target(id: string | undefined, verb: 'approve' | 'reject'): Promise<{ owner: ApprovalOwner; id: string; cut?: boolean } | undefined> {
    const owners = await ready;
    if (id) {
      for (const owner of owners) if (await owner.owns(id)) return { owner, id };
      // One whole sentence per verb: a translation never holds an English verb as a value.
      const missing = verb === 'approve' ? notice`Tasklane: there is no approval ${id} to approve.` : notice`Tasklane: there is no approval ${id} to reject.`;
      void vscode.window.showInformationMessage(missing);
      return undefined;
    }
    const items: Array<vscode.QuickPickItem & { owner: ApprovalOwner; id: string; createdAt: number; cut: boolean }> = [];
    for (const owner of owners) {
      for (const view of await owner.list()) {
        if (view.status !== 'pending') continue;
        const what =
          view.command !== undefined ? `Run: ${view.command}` : `Edit: ${view.files.map((f) => (f.newPath ? `${f.path} → ${f.newPath}` : f.path)).join(', ')}`;
        const detail = forLabel(what);
        items.push({
          owner,
          id: view.id,
          createdAt: view.createdAt,
          // A pick shows one bounded line: a longer command is confirmed in full before it is approved.
          cut: detail.endsWith('…') && !what.endsWith('…'),
          // The model's title and command line, the repository's paths and chore id: one bounded line each.
          label: forLabel(view.title),
          detail,
          description: view.choreId ? vscode.l10n.t('chore {0}', forLabel(view.choreId)) : undefined,
        });
      }
    }
    if (items.length === 0) {
      const none =
        verb === 'approve'
          ? notice`Tasklane: nothing is waiting for approval, so there is nothing to approve.`
          : notice`Tasklane: nothing is waiting for approval, so there is nothing to reject.`;
      void vscode.window.showInformationMessage(none);
      return undefined;
    }
    items.sort((a, b) => a.createdAt - b.createdAt);
    const picked = await vscode.window.showQuickPick(items, {
      title:
        verb === 'approve'
          ? vscode.l10n.t('Tasklane: which approval do you want to approve?')
          : vscode.l10n.t('Tasklane: which approval do you want to reject?'),
      placeHolder: vscode.l10n.t('Each item says what would run or change'),
      matchOnDetail: true,
      ignoreFocusOut: true,
    });
    return picked ? { owner: picked.owner, id: picked.id, cut: picked.cut } : undefined;
  }

  return [
    vscode.commands.registerCommand('tasklane.approve', async (id?: unknown) => {
      const given = idOf(id);
      const found = await target(given, 'approve');
      if (!found) return undefined;
      // An id from a caller (another extension, an agent tool, a link) is never a decision by
      // itself: the person sees what would run or change and says yes. Nor is a pick whose line
      // could not hold all of it (issue 40: a pick shows at most LABEL_CHARS characters). Not pending any more:
      // the owner refuses it, nothing to ask.
      if (given || found.cut) {
        const view = (await found.owner.list()).find((v) => v.id === found.id && v.status === 'pending');
        if (view && !(await confirmApproval(dialogs, view))) return undefined;
      }
      return found.owner.approve(found.id);
    }),
    vscode.commands.registerCommand('tasklane.reject', async (id?: unknown, reason?: unknown) => {
      const found = await target(idOf(id), 'reject');
      if (!found) return undefined;
      let why = typeof reason === 'string' ? reason : undefined;
      if (id === undefined && reason === undefined) {
        why = await vscode.window.showInputBox({
          title: vscode.l10n.t('Tasklane: reject the proposed change'),
          prompt: vscode.l10n.t('Why? (optional; the task is told, so it can do better)'),
          ignoreFocusOut: true,
        });
        if (why === undefined) return undefined; // Escape: the user changed their mind
      }
      return found.owner.reject(found.id, why);
    }),
  ];
}

/** What an approval would run or change, in full, for the confirmation (invisible characters shown). */
export function approvalDetail(view: ApprovalView): string {
  const lines = [
    ...(view.command !== undefined ? [vscode.l10n.t('Runs: {0}', showInvisible(view.command))] : []),
    ...(view.files.length
      ? [
          vscode.l10n.t('Changes:'),
          ...view.files.map((f) => {
            const what = `${showInvisible(f.path)}${f.newPath ? ` → ${showInvisible(f.newPath)}` : ''} (+${f.added} −${f.removed})${f.sensitive ? `: ${f.sensitive}` : ''}`;
            return `  ${fileLine(f.kind, what)}${f.decision === 'reject' ? ` ${vscode.l10n.t('(left out)')}` : ''}`;
          }),
          vscode.l10n.t('Open the diff from the card in the Tasklane sidebar to read each change.'),
        ]
      : []),
    ...(view.reason ? [vscode.l10n.t('Why it asks: {0}', showInvisible(view.reason))] : []),
    ...(view.choreId ? [vscode.l10n.t('Proposed by the chore {0}.', view.choreId)] : []),
  ];
  return lines.join('\n');
}

/** One file's line of the detail: each kind of change its own message, so none is a bare English verb. */
function fileLine(kind: ApprovalView['files'][number]['kind'], what: string): string {
  switch (kind) {
    case 'create':
      return vscode.l10n.t('create {0}', what);
    case 'modify':
      return vscode.l10n.t('modify {0}', what);
    case 'delete':
      return vscode.l10n.t('delete {0}', what);
    case 'rename':
      return vscode.l10n.t('rename {0}', what);
  }
}

/** Asks the person to approve `view` (a pending change set, command, task or MCP call). */
export function confirmApproval(dialogs: ConsentDialogs, view: ApprovalView): Promise<boolean> {
  return dialogs.confirm(vscode.l10n.t('Approve: {0}?', showInvisible(view.title)), approvalDetail(view), vscode.l10n.t('Approve'), `approval-${view.id}`);
}
