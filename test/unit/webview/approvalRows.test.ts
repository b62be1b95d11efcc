import * as assert from 'node:assert/strict';
import type { ApprovalView } from '../../../src/shared/approvalProtocol';
import type { WebviewMessage } from '../../../src/shared/protocol';
import { ApprovalPanel } from '../../../src/webview/approvalPanel';
import { useDom } from './support/dom';

const approval = (id: string, status: ApprovalView['status'], path: string): ApprovalView => ({
  id,
  taskId: 't-1',
  sessionId: 't-1',
  kind: 'edits',
  title: 'Edit 1 file',
  status,
  files: [{ path, kind: 'modify', added: 6, removed: 1 }],
  reason: 'edits need approval',
  createdAt: 1,
});

/** The Review section: what waits for the person is a card; each decided approval, one line of history. */
describe('webview: decided approvals are one-line rows', () => {
  useDom();

  it('draws decided approvals as rows with their outcome and files, and the pending one as its card', () => {
    const root = document.createElement('section');
    document.body.appendChild(root);
    const posted: WebviewMessage[] = [];
    const panel = new ApprovalPanel(root, (m) => posted.push(m));
    panel.init([
      approval('a', 'applied', 'src/a.js'),
      approval('b', 'rejected', 'src/b.js'),
      approval('c', 'reverted', 'src/c.js'),
      approval('d', 'pending', 'src/d.js'),
    ]);
    const rows = [...root.querySelectorAll<HTMLElement>('.approval-row')];
    assert.deepEqual(
      rows.map((r) => r.textContent),
      ['✓ Appliedsrc/a.jsRevert', '✗ Rejectedsrc/b.js', '↶ Revertedsrc/c.js'],
    );
    assert.equal(rows[0]?.title, 'edits need approval', 'the reason it asked stays as the tooltip');
    assert.equal(rows[0]?.querySelector('.revert')?.getAttribute('aria-label'), 'Revert the edit to src/a.js');
    // Nothing of a full card on a decided row.
    assert.equal(root.querySelectorAll('.approval-row .approval-files, .approval-row .approval-reason, .approval-row .approve').length, 0);
    const pending = root.querySelector<HTMLElement>('.approval-card[data-status="pending"]');
    assert.ok(pending && !pending.classList.contains('approval-row'));
    assert.equal(pending.querySelector('.approve')?.getAttribute('aria-label'), 'Approve the edit to src/d.js');

    // Once decided, the card becomes a row in place.
    const patch = { type: 'approvalPatch', approval: approval('d', 'applied', 'src/d.js') };
    panel.onMessage(patch);
    assert.equal(root.querySelectorAll('.approval-row').length, 4);
    rows[0]?.querySelector<HTMLElement>('.revert')?.click();
    assert.deepEqual(posted, [{ type: 'approval.revert', id: 'a' }]);
  });
});
