import * as assert from 'node:assert/strict';
import type { ApprovalHostMessage, ApprovalView } from '../../../src/shared/approvalProtocol';
import { parseParams } from '../../../src/shared/sidebarSchemas';
import { ApprovalPanel, REVIEW_EMPTY_TEXT } from '../../../src/webview/approvalPanel';
import { useDom } from './support/dom';
import { fakeHost } from './support/requests';

const approval = (id: string, status: ApprovalView['status'], path: string, createdAt: number): ApprovalView => ({
  id,
  taskId: `t-${id}`,
  sessionId: `s-${id}`,
  kind: 'edits',
  title: 'Edit 1 file',
  status,
  files: [{ path, kind: 'modify', added: 6, removed: 1 }],
  reason: 'edits need approval',
  createdAt,
});

/** The Review section lists only what waits for the person (issue 21): decided approvals leave it. */
describe('webview: the Review section lists only what is pending', () => {
  useDom();

  const setUp = () => {
    const root = document.createElement('section');
    document.body.appendChild(root);
    const host = fakeHost();
    const panel = new ApprovalPanel(root, host.request);
    const send = (message: ApprovalHostMessage) => panel.onMessage(message);
    const shown = () => [...root.querySelectorAll<HTMLElement>('[data-approval-id]')].map((card) => card.dataset.approvalId);
    const empty = () => root.querySelector<HTMLElement>('.review-empty');
    return { root, host, panel, send, shown, empty };
  };

  it('draws the pending approvals newest first, across sessions, and none of the decided ones', () => {
    const { root, panel, send, shown, empty } = setUp();
    panel.init([
      approval('a', 'applied', 'src/a.js', 1),
      approval('b', 'pending', 'src/b.js', 2),
      approval('c', 'rejected', 'src/c.js', 3),
      approval('d', 'pending', 'src/d.js', 4),
      approval('e', 'reverted', 'src/e.js', 5),
    ]);
    assert.deepEqual(shown(), ['d', 'b']);
    assert.equal(root.querySelectorAll('[data-status]:not([data-status="pending"])').length, 0);
    assert.equal(empty(), null, 'no empty state while something waits');
    assert.equal(root.querySelector('[data-approval-id="d"] .approve')?.getAttribute('aria-label'), 'Approve the edit to src/d.js');

    // A new proposal goes on top; one older than the newest goes in its place.
    send({ type: 'approvalPatch', approval: approval('f', 'pending', 'src/f.js', 6) });
    send({ type: 'approvalPatch', approval: approval('g', 'pending', 'src/g.js', 3) });
    assert.deepEqual(shown(), ['f', 'd', 'g', 'b']);
  });

  it('a decided approval leaves; with nothing waiting it says so and offers the history', () => {
    const { host, panel, send, shown, empty } = setUp();
    panel.init([approval('a', 'pending', 'src/a.js', 1), approval('b', 'pending', 'src/b.js', 2)]);
    send({ type: 'approvalPatch', approval: approval('b', 'applied', 'src/b.js', 2) });
    assert.deepEqual(shown(), ['a']);
    assert.equal(empty(), null);
    send({ type: 'approvalPatch', approval: approval('a', 'rejected', 'src/a.js', 1) });
    assert.deepEqual(shown(), []);
    assert.equal(empty()?.textContent, `${REVIEW_EMPTY_TEXT} Open history`);

    empty()?.querySelector<HTMLElement>('.review-history')?.click();
    assert.deepEqual(host.calls(), [{ method: 'command', params: { command: 'showHistory' } }]);
    assert.doesNotThrow(() => parseParams('command', host.calls()[0]?.params), 'the host accepts the history request');

    // Something new waits again: the empty state goes.
    send({ type: 'approvalPatch', approval: approval('c', 'pending', 'src/c.js', 3) });
    assert.deepEqual(shown(), ['c']);
    assert.equal(empty(), null);
    send({ type: 'approvalRemoved', id: 'c' });
    assert.ok(empty(), 'removed: the empty state is back');
  });

  it('opens empty when only decided approvals are known', () => {
    const { panel, shown, empty } = setUp();
    panel.init([approval('a', 'applied', 'src/a.js', 1)]);
    assert.deepEqual(shown(), []);
    assert.ok(empty());
  });
});
