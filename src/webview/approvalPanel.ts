import type { ApprovalHostMessage, ApprovalView, ApprovalWebviewMessage } from '../shared/approvalProtocol';
import { showInvisible } from '../shared/visibleText';
import { h, keepingFocus } from './dom';

/** How a decided card says what happened. */
const STATUS_LABELS: Record<string, string> = {
  applied: '✓ Applied',
  partially_applied: '✓ Partly applied',
  rejected: '✗ Rejected',
  stale: '! Not applied: files changed',
  reverted: '↶ Reverted',
};

/** What an approval asks about, for the names of its buttons: "the edit to src/greet.js". */
export function approvalSubject(approval: Pick<ApprovalView, 'kind' | 'files' | 'command'>): string {
  if (approval.kind === 'edits') {
    const paths = approval.files.map((f) => (f.newPath ? `${f.path} → ${f.newPath}` : f.path));
    return paths.length === 1 ? `the edit to ${paths[0]}` : `the edits to ${paths.length} files: ${paths.join(', ')}`;
  }
  if (approval.kind === 'task') return `running task ${approval.command ?? ''}`.trim();
  if (approval.kind === 'mcp') return `the MCP call ${approval.command ?? ''}`.trim();
  return `running ${approval.command ?? 'the command'}`;
}

/**
 * Proposed changes waiting for the user: one card per change set (or command), with per-file
 * +/− counts, Open diff, per-file accept/reject, Approve, and Reject with an optional reason.
 */
export class ApprovalPanel {
  private readonly approvals = new Map<string, ApprovalView>();
  /** The view each card was last drawn from, to leave a card alone when nothing on it changed. */
  private readonly drawn = new Map<string, string>();

  constructor(
    private readonly root: HTMLElement,
    private readonly post: (message: ApprovalWebviewMessage) => void,
  ) {}

  init(approvals: ApprovalView[]): void {
    this.approvals.clear();
    for (const approval of approvals) this.approvals.set(approval.id, approval);
    const cards = approvals.map((approval) => this.cardFor(approval));
    for (const id of [...this.drawn.keys()]) if (!this.approvals.has(id)) this.drawn.delete(id);
    keepingFocus(this.root, 'data-approval-id', () => this.root.replaceChildren(...cards));
  }

  /** Applies an approval message; false if the message is not the panel's. */
  onMessage(message: { type: string }): boolean {
    const m = message as ApprovalHostMessage;
    if (m.type === 'approvalPatch') {
      this.approvals.set(m.approval.id, m.approval);
      const existing = this.find(m.approval.id);
      const card = this.cardFor(m.approval);
      if (!existing) this.root.appendChild(card);
      else if (existing !== card) keepingFocus(this.root, 'data-approval-id', () => existing.replaceWith(card));
      return true;
    }
    if (m.type === 'approvalRemoved') {
      this.approvals.delete(m.id);
      this.drawn.delete(m.id);
      this.find(m.id)?.remove();
      return true;
    }
    return false;
  }

  /**
   * The card for `approval`: the one on screen when it shows the same thing (a refresh of the whole
   * sidebar, or a repeated patch, must not take a click or a half-typed reason from under the
   * person), else a new one that keeps the reject reason typed into the old.
   */
  private cardFor(approval: ApprovalView): HTMLElement {
    const existing = this.find(approval.id);
    const drawn = JSON.stringify(approval);
    if (existing instanceof HTMLElement && this.drawn.get(approval.id) === drawn) return existing;
    this.drawn.set(approval.id, drawn);
    const card = this.card(approval);
    const typed = existing?.querySelector<HTMLElement & { value: string }>('.reject-reason')?.value;
    const reason = card.querySelector<HTMLElement & { value: string }>('.reject-reason');
    if (typed && reason) reason.value = typed;
    return card;
  }

  private find(id: string): Element | null {
    return this.root.querySelector(`[data-approval-id="${CSS.escape(id)}"]`);
  }

  /**
   * A decided approval as one line of history ("✓ Applied src/greet.js [Revert]"): what the person
   * decided stays visible without pushing what waits for them out of view. The reason it asked is
   * the row's tooltip.
   */
  private row(approval: ApprovalView): HTMLElement {
    const paths = approval.files.map((f) => (f.newPath ? `${f.path} → ${f.newPath}` : f.path)).join(', ');
    const what = paths || approval.command || approval.title;
    const row = h(
      'div',
      {
        class: `approval-card approval-row status-${approval.status}`,
        'data-approval-id': approval.id,
        'data-status': approval.status,
        ...(approval.reason ? { title: approval.reason } : {}),
      },
      h('span', { class: 'approval-status' }, STATUS_LABELS[approval.status] ?? approval.status),
      h('span', { class: 'approval-row-what' }, showInvisible(approval.choreId ? `[${approval.choreId}] ${what}` : what)),
    );
    if (approval.kind === 'edits' && (approval.status === 'applied' || approval.status === 'partially_applied')) {
      const revert = h('vscode-button', { class: 'revert', secondary: true, 'aria-label': `Revert ${approvalSubject(approval)}` }, 'Revert');
      revert.addEventListener('click', () => this.post({ type: 'approval.revert', id: approval.id }));
      row.appendChild(revert);
    }
    return row;
  }

  private card(approval: ApprovalView): HTMLElement {
    const pending = approval.status === 'pending';
    if (!pending) return this.row(approval);
    const files = h(
      'ul',
      { class: 'approval-files' },
      ...approval.files.map((file) => {
        const openDiff = h('a', { href: '#', class: 'open-diff', 'data-path': file.path }, 'Open diff');
        openDiff.addEventListener('click', (e) => {
          e.preventDefault();
          this.post({ type: 'approval.openDiff', id: approval.id, path: file.path });
        });
        const rejected = file.decision === 'reject';
        const toggle = h('a', { href: '#', class: 'toggle-file' }, rejected ? 'include' : 'exclude');
        toggle.addEventListener('click', (e) => {
          e.preventDefault();
          this.post({ type: 'approval.decideFile', id: approval.id, path: file.path, decision: rejected ? 'accept' : 'reject' });
        });
        return h(
          'li',
          { class: `approval-file${rejected ? ' rejected' : ''}`, 'data-path': file.path },
          h('span', { class: 'file-kind' }, file.kind),
          h('span', { class: 'file-path' }, showInvisible(file.newPath ? `${file.path} → ${file.newPath}` : file.path)),
          h('span', { class: 'file-counts' }, `+${file.added} −${file.removed}`),
          file.sensitive ? h('span', { class: 'file-sensitive', title: file.sensitive }, '⚠') : null,
          file.kind === 'delete' || !pending ? null : openDiff,
          pending && approval.files.length > 1 ? toggle : null,
        );
      }),
    );
    const card = h(
      'div',
      { class: `approval-card status-${approval.status}`, 'data-approval-id': approval.id, 'data-status': approval.status },
      h('div', { class: 'approval-title' }, showInvisible(approval.choreId ? `[${approval.choreId}] ${approval.title}` : approval.title)),
      pending ? null : h('div', { class: 'approval-status' }, STATUS_LABELS[approval.status] ?? approval.status),
      approval.command ? h('pre', { class: 'approval-command' }, showInvisible(approval.command)) : null,
      approval.files.length > 0 ? files : null,
      approval.reason ? h('div', { class: 'approval-reason' }, showInvisible(approval.reason)) : null,
    );
    if (approval.kind === 'edits' && (approval.status === 'applied' || approval.status === 'partially_applied')) {
      const revert = h('vscode-button', { class: 'revert', secondary: true }, 'Revert');
      revert.addEventListener('click', () => this.post({ type: 'approval.revert', id: approval.id }));
      card.appendChild(h('div', { class: 'approval-buttons' }, revert));
    }
    if (pending) {
      const reason = h('vscode-textfield', { class: 'reject-reason', placeholder: 'Reason (optional, told to the task)' }) as HTMLElement & { value: string };
      // Named for what they decide: with several cards, "Approve" alone does not say which.
      const subject = approvalSubject(approval);
      const approve = h('vscode-button', { class: 'approve', 'aria-label': `Approve ${subject}` }, 'Approve');
      approve.addEventListener('click', () => this.post({ type: 'approval.approve', id: approval.id }));
      const reject = h('vscode-button', { class: 'reject', secondary: true, 'aria-label': `Reject ${subject}` }, 'Reject');
      reject.addEventListener('click', () => this.post({ type: 'approval.reject', id: approval.id, reason: reason.value?.trim() || undefined }));
      card.appendChild(h('div', { class: 'approval-buttons' }, approve, reject, reason));
    }
    return card;
  }
}
