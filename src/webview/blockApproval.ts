import type { ApprovalFileView, ApprovalView } from '../shared/approvalProtocol';
import type { WebviewWordKey } from '../shared/webviewWords';
import { showInvisible } from '../shared/visibleText';
import { approvalSubject } from './approvalSubject';
import { h } from './dom';
import type { Request } from './requests';
import { word } from './words';

/** The word for what an edit does to a file. */
const FILE_KIND_WORDS: Record<ApprovalFileView['kind'], WebviewWordKey> = {
  create: 'fileKindCreate',
  modify: 'fileKindModify',
  delete: 'fileKindDelete',
  rename: 'fileKindRename',
};

/** What a pending approval's element needs from its block. */
export interface BlockApprovalActions {
  request: Request;
  /** Approve, or Reject with the reason typed (empty: none). */
  decide(decision: 'approve' | 'reject', reason?: string): void;
}

type TextField = HTMLElement & { value: string };

/**
 * A pending approval in its task's block, the one place it is shown in the Chat view (what waits
 * in other conversations is reached from the status bar, the view's badge and the
 * `tasklane.approve` quick pick, not repeated here): what is proposed, per file its kind, +/−
 * counts, Open diff and (with several files) exclude/include, why it asks, Approve and Reject
 * named for what they decide, and a reason for a rejection that the task is told. `refused` is
 * why the host refused the last decision made on it (it waits again), said on it.
 */
export function renderBlockApproval(approval: ApprovalView, refused: string | undefined, actions: BlockApprovalActions): HTMLElement {
  const several = approval.files.length > 1;
  const files = approval.files.map((file) => {
    const diff = h(
      'a',
      { href: '#', class: 'open-diff', 'data-path': file.path, 'aria-label': word('approvalOpenDiffOf', file.path) },
      word('approvalOpenDiff'),
    );
    diff.addEventListener('click', (e) => {
      e.preventDefault();
      void actions.request('approval.openDiff', { id: approval.id, path: file.path }).catch(() => undefined);
    });
    const excluded = file.decision === 'reject';
    const toggle = h(
      'a',
      { href: '#', class: 'toggle-file', 'aria-label': excluded ? word('approvalIncludeFile', file.path) : word('approvalExcludeFile', file.path) },
      excluded ? word('approvalInclude') : word('approvalExclude'),
    );
    toggle.addEventListener('click', (e) => {
      e.preventDefault();
      void actions.request('approval.decideFile', { id: approval.id, path: file.path, decision: excluded ? 'accept' : 'reject' }).catch(() => undefined);
    });
    return h(
      'li',
      { class: `approval-file${excluded ? ' rejected' : ''}`, 'data-path': file.path },
      h('span', { class: 'file-kind' }, word(FILE_KIND_WORDS[file.kind])),
      h('span', { class: 'file-path' }, showInvisible(file.newPath ? `${file.path} → ${file.newPath}` : file.path)),
      h('span', { class: 'file-counts' }, `+${file.added} −${file.removed}`),
      file.sensitive ? h('span', { class: 'file-sensitive', title: file.sensitive }, '⚠') : null,
      file.kind === 'delete' ? null : diff,
      several ? toggle : null,
    );
  });
  const subject = approvalSubject(approval);
  const reason = h('vscode-textfield', {
    class: 'reject-reason',
    placeholder: word('approvalReasonPlaceholder'),
    'aria-label': word('approvalWhyReject', subject),
  }) as TextField;
  const approve = h('vscode-button', { class: 'approve', 'aria-label': word('approvalApproveNamed', subject) }, word('approvalApprove'));
  approve.addEventListener('click', () => actions.decide('approve'));
  const reject = h('vscode-button', { class: 'reject', secondary: true, 'aria-label': word('approvalRejectNamed', subject) }, word('approvalReject'));
  reject.addEventListener('click', () => actions.decide('reject', reason.value?.trim() || undefined));
  return h(
    'div',
    { class: 'block-approval', 'data-approval-id': approval.id, 'data-status': approval.status },
    h(
      'div',
      { class: 'block-approval-title' },
      word('approvalWaitingTitle', showInvisible(approval.choreId ? `[${approval.choreId}] ${approval.title}` : approval.title)),
    ),
    approval.command ? h('pre', { class: 'approval-command' }, showInvisible(approval.command)) : null,
    files.length ? h('ul', { class: 'approval-files' }, ...files) : null,
    approval.reason ? h('div', { class: 'approval-reason' }, showInvisible(approval.reason)) : null,
    refused ? h('div', { class: 'approval-refused', role: 'status' }, refused) : null,
    h('div', { class: 'approval-buttons' }, approve, reject, reason),
  );
}

/** The reasons typed into `root`'s approvals, by approval id, to keep across a redraw. */
export function typedReasons(root: HTMLElement): Map<string, string> {
  const typed = new Map<string, string>();
  for (const el of root.querySelectorAll<HTMLElement>('[data-approval-id]')) {
    const value = el.querySelector<TextField>('.reject-reason')?.value;
    if (value) typed.set(el.dataset.approvalId ?? '', value);
  }
  return typed;
}

/** Puts reasons kept by `typedReasons` back into the redrawn approvals. */
export function restoreReasons(root: HTMLElement, typed: ReadonlyMap<string, string>): void {
  for (const [id, value] of typed) {
    const field = root.querySelector<TextField>(`[data-approval-id="${CSS.escape(id)}"] .reject-reason`);
    if (field) field.value = value;
  }
}
