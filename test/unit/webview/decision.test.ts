import * as assert from 'node:assert/strict';
import { useDom } from './support/dom';
import { fakeHost } from './support/requests';
import { storeThread } from './support/storeThread';
import { approvalView, taskView } from './support/views';

/** A task waiting for its one approval, as the host shows it until the task's next turn runs. */
const waitingTask = taskView({ waitingForApproval: true });
const pendingChange = approvalView();

/**
 * The review's moment 1: after Approve the block said "waiting for you" for 4–5 s with nothing to
 * act on. A decision now shows in the frame of the click, is confirmed by the host's patch, and is
 * taken back with the reason when the host refuses it. The thread draws from the view store
 * (approvalStore.ts), wired as the page wires it.
 */
describe('webview: a decision shows at once and truthfully', function () {
  useDom();
  let host: ReturnType<typeof fakeHost>;
  let block: HTMLElement;
  let thread: ReturnType<typeof storeThread>;
  const state = () => block.getAttribute('data-state');
  const approvals = () => block.querySelectorAll('.block-approval').length;
  const notice = () => block.querySelector<HTMLElement>('.block-notice')!;

  beforeEach(() => {
    host = fakeHost();
    thread = storeThread(host.request, [waitingTask]);
    block = thread.thread.block('t-1') as HTMLElement;
    thread.push({ type: 'approvalPatch', approval: pendingChange });
    assert.equal(state(), 'waiting for you');
  });

  it('Approve: in the same frame the approval leaves, the task is at work, and the host is asked', function () {
    block.querySelector<HTMLElement>('.block-approval .approve')!.click();
    // No await, no frame: what the click changed is on screen now.
    assert.equal(approvals(), 0);
    assert.equal(state(), 'working');
    assert.match(notice().textContent!, /Approved: applying the change/);
    assert.deepEqual(host.calls('approval.approve'), [{ method: 'approval.approve', params: { id: 'cs-1' } }]);
    // The task patch that still carries waitingForApproval (its turn has not run) does not bring "waiting" back.
    thread.push({ type: 'taskPatch', task: waitingTask });
    assert.equal(state(), 'working');
    thread.push({ type: 'approvalPatch', approval: { ...pendingChange, status: 'applied' } });
    assert.equal(approvals(), 0);
    assert.equal(notice().hidden, true, 'confirmed: the decision is the task’s row now');
  });

  it('a refused decision rolls back and says why', async function () {
    block.querySelector<HTMLElement>('.block-approval .reject')!.click();
    assert.equal(approvals(), 0);
    assert.deepEqual(host.calls('approval.reject'), [{ method: 'approval.reject', params: { id: 'cs-1' } }]);
    const reason = 'Change set cs-1 was decided elsewhere in the meantime (another window or the palette); nothing more was done.';
    // The refusal is the reply to the request the click made.
    host.fail('approval.reject', reason);
    await host.settled();
    assert.equal(approvals(), 1, 'the approval is back to act on');
    assert.equal(state(), 'waiting for you');
    assert.equal(block.querySelector('.block-approval .approval-refused')?.textContent, `Not done: ${reason}`, 'the approval says why');
    assert.equal(notice().hidden, true, 'no decision is in flight');
  });

  it('a refusal after the host already confirmed changes nothing', async function () {
    block.querySelector<HTMLElement>('.block-approval .approve')!.click();
    thread.push({ type: 'approvalPatch', approval: { ...pendingChange, status: 'applied' } });
    host.fail('approval.approve', 'late');
    await host.settled();
    assert.equal(approvals(), 0);
    assert.equal(state(), 'working');
  });

  it('Reject tells the task the reason typed on the block, kept across a redraw', async function () {
    const reason = () => block.querySelector<HTMLElement & { value: string }>('.block-approval .reject-reason')!;
    reason().value = '  the README is fine as it is ';
    // The host patches the approval (a file decided from the diff editor): the block redraws.
    thread.push({ type: 'approvalPatch', approval: { ...pendingChange, reason: 'edits need approval (again)' } });
    assert.equal(reason().value, '  the README is fine as it is ', 'the typed reason was lost when the approval redrew');
    block.querySelector<HTMLElement>('.block-approval .reject')!.click();
    assert.equal(approvals(), 0);
    assert.deepEqual(host.calls('approval.reject'), [{ method: 'approval.reject', params: { id: 'cs-1', reason: 'the README is fine as it is' } }]);
    await host.settled();
  });

  it('after a decision focus moves to the next approval that waits, else to the composer', function () {
    const composer = document.createElement('textarea');
    const tasks = [waitingTask, taskView({ id: 't-2', sessionId: 't-2', name: 'Fix tests', waitingForApproval: true })];
    const two = storeThread(fakeHost().request, tasks, { focusAfterDecision: () => composer.focus() });
    document.body.append(two.thread.block('t-1')!, two.thread.block('t-2')!, composer);
    two.push({ type: 'approvalPatch', approval: pendingChange });
    two.push({ type: 'approvalPatch', approval: approvalView({ id: 'cs-2', taskId: 't-2', sessionId: 't-2', createdAt: 2 }) });
    const first = document.querySelector<HTMLElement>('[data-approval-id="cs-1"] .approve')!;
    first.focus();
    first.click();
    assert.equal(document.activeElement, document.querySelector('[data-approval-id="cs-2"] .approve'), 'the next Approve has the focus');
    (document.activeElement as HTMLElement).click();
    assert.equal(document.activeElement, composer, 'nothing else waits: the composer has the focus');
  });
});
