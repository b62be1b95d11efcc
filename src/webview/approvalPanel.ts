import type { ApprovalView } from '../shared/approvalProtocol';
import type { HostMessage } from '../shared/protocol';
import { showInvisible } from '../shared/visibleText';
import { h, keepingFocus } from './dom';
import type { Request } from './requests';
import { failureText } from './requests';

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
 * The Review section's words when nothing waits: short, so they stay about one line even in a
 * narrow side bar and the thread keeps the room (at 170 px the longer sentence took five lines).
 * Where decisions went is the link's tooltip.
 */
export const REVIEW_EMPTY_TEXT = 'Nothing waits for review.';

/**
 * The Review section: what waits for the person, across sessions and chores, newest first. One
 * card per change set (or command), with per-file +/− counts, Open diff, per-file accept/reject,
 * Approve, and Reject with an optional reason. A decided approval leaves it: the decision is a
 * row in the thread of the task that asked (and in History), so what waits is never pushed out
 * of view by what is done. With nothing waiting it says so, with a way to the history.
 */
export class ApprovalPanel {
  private readonly approvals = new Map<string, ApprovalView>();
  /** The view each card was last drawn from, to leave a card alone when nothing on it changed. */
  private readonly drawn = new Map<string, string>();
  private readonly empty: HTMLElement;

  constructor(
    private readonly root: HTMLElement,
    private readonly request: Request,
  ) {
    const history = h('a', { href: '#', class: 'review-history', title: 'What you decided stays in each task’s thread, and in History' }, 'Open history');
    history.addEventListener('click', (e) => {
      e.preventDefault();
      void this.request('command', { command: 'showHistory' }).catch(() => undefined);
    });
    this.empty = h('p', { class: 'review-empty' }, `${REVIEW_EMPTY_TEXT} `, history);
  }

  init(approvals: ApprovalView[]): void {
    this.approvals.clear();
    for (const approval of approvals) if (approval.status === 'pending') this.approvals.set(approval.id, approval);
    const cards = this.newestFirst().map((approval) => this.cardFor(approval));
    for (const id of [...this.drawn.keys()]) if (!this.approvals.has(id)) this.drawn.delete(id);
    keepingFocus(this.root, 'data-approval-id', () => this.root.replaceChildren(...(cards.length ? cards : [this.empty])));
  }

  /** Applies an approval message; false if the message is not the panel's. */
  onMessage(m: HostMessage): boolean {
    if (m.type === 'approvalPatch') {
      if (m.approval.status !== 'pending') {
        this.remove(m.approval.id);
        return true;
      }
      this.approvals.set(m.approval.id, m.approval);
      const existing = this.find(m.approval.id);
      const card = this.cardFor(m.approval);
      if (!existing) this.insert(card, m.approval);
      else if (existing !== card) keepingFocus(this.root, 'data-approval-id', () => existing.replaceWith(card));
      return true;
    }
    if (m.type === 'approvalRemoved') {
      this.remove(m.id);
      return true;
    }
    return false;
  }

  /** The decision pressed on a card did not happen: the card stays, saying why. */
  private refused(id: string, reason: string): void {
    const card = this.find(id);
    if (!card) return;
    card.querySelector('.approval-refused')?.remove();
    card.appendChild(h('div', { class: 'approval-refused', role: 'status' }, `Not done: ${reason}`));
  }

  private newestFirst(): ApprovalView[] {
    return [...this.approvals.values()].sort((a, b) => b.createdAt - a.createdAt);
  }

  /** A new card, in its place among the others (newest first). */
  private insert(card: HTMLElement, approval: ApprovalView): void {
    this.empty.remove();
    const older = this.newestFirst().find((a) => a.id !== approval.id && a.createdAt <= approval.createdAt);
    const before = older ? this.find(older.id) : null;
    if (before) before.before(card);
    else this.root.appendChild(card);
  }

  private remove(id: string): void {
    this.approvals.delete(id);
    this.drawn.delete(id);
    this.find(id)?.remove();
    if (this.approvals.size === 0 && !this.empty.isConnected) this.root.appendChild(this.empty);
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

  /** A pending approval's card. */
  private card(approval: ApprovalView): HTMLElement {
    const files = h(
      'ul',
      { class: 'approval-files' },
      ...approval.files.map((file) => {
        const openDiff = h('a', { href: '#', class: 'open-diff', 'data-path': file.path }, 'Open diff');
        openDiff.addEventListener('click', (e) => {
          e.preventDefault();
          void this.request('approval.openDiff', { id: approval.id, path: file.path }).catch(() => undefined);
        });
        const rejected = file.decision === 'reject';
        const toggle = h('a', { href: '#', class: 'toggle-file' }, rejected ? 'include' : 'exclude');
        toggle.addEventListener('click', (e) => {
          e.preventDefault();
          void this.request('approval.decideFile', { id: approval.id, path: file.path, decision: rejected ? 'accept' : 'reject' }).catch(() => undefined);
        });
        return h(
          'li',
          { class: `approval-file${rejected ? ' rejected' : ''}`, 'data-path': file.path },
          h('span', { class: 'file-kind' }, file.kind),
          h('span', { class: 'file-path' }, showInvisible(file.newPath ? `${file.path} → ${file.newPath}` : file.path)),
          h('span', { class: 'file-counts' }, `+${file.added} −${file.removed}`),
          file.sensitive ? h('span', { class: 'file-sensitive', title: file.sensitive }, '⚠') : null,
          file.kind === 'delete' ? null : openDiff,
          approval.files.length > 1 ? toggle : null,
        );
      }),
    );
    const reason = h('vscode-textfield', { class: 'reject-reason', placeholder: 'Reason (optional, told to the task)' }) as HTMLElement & { value: string };
    // Named for what they decide: with several cards, "Approve" alone does not say which.
    const subject = approvalSubject(approval);
    const approve = h('vscode-button', { class: 'approve', 'aria-label': `Approve ${subject}` }, 'Approve');
    approve.addEventListener(
      'click',
      () => void this.request('approval.approve', { id: approval.id }).catch((e: unknown) => this.refused(approval.id, failureText(e))),
    );
    const reject = h('vscode-button', { class: 'reject', secondary: true, 'aria-label': `Reject ${subject}` }, 'Reject');
    reject.addEventListener(
      'click',
      () =>
        void this.request('approval.reject', { id: approval.id, reason: reason.value?.trim() || undefined }).catch((e: unknown) =>
          this.refused(approval.id, failureText(e)),
        ),
    );
    return h(
      'div',
      { class: `approval-card status-${approval.status}`, 'data-approval-id': approval.id, 'data-status': approval.status },
      h('div', { class: 'approval-title' }, showInvisible(approval.choreId ? `[${approval.choreId}] ${approval.title}` : approval.title)),
      approval.command ? h('pre', { class: 'approval-command' }, showInvisible(approval.command)) : null,
      approval.files.length > 0 ? files : null,
      approval.reason ? h('div', { class: 'approval-reason' }, showInvisible(approval.reason)) : null,
      h('div', { class: 'approval-buttons' }, approve, reject, reason),
    );
  }
}
