/**
 * The requests the view store asks for on a task's block (viewStore.ts `Ask`): a gesture's (Stop,
 * Cancel, Continue, Revert edits) and a decision's (Approve, Reject). Each reply comes back to the
 * store as an event (a gesture's outcome, a decision's refusal with the host's words), and the
 * block is redrawn from the store; the page (sidebarApp.ts) only wires this to its store.
 */
import type { DecideAsk } from './approvalStore';
import type { Request } from './requests';
import { failureText } from './requests';
import { GESTURE_METHOD } from './taskGestures';
import type { Ask, StoreEvent } from './viewStore';

/** What the block requests need from the page. */
export interface BlockAskDeps {
  request: Request;
  /** Applies an event to the store. */
  dispatch(event: StoreEvent): void;
  /** Redraws a task's block and card from the store. */
  taskShown(taskId: string): void;
}

/** Makes a block's request for the store; its reply settles it there. */
export function askForBlock(ask: Extract<Ask, { method: 'gesture' | 'decide' }>, deps: BlockAskDeps): void {
  if (ask.method === 'decide') askDecision(ask, deps);
  else askGesture(ask, deps);
}

/** A gesture's reply settles it in the store (a refusal rolls it back, saying why). */
function askGesture(ask: Extract<Ask, { method: 'gesture' }>, { request, dispatch, taskShown }: BlockAskDeps): void {
  const { taskId, requestId } = ask;
  const reply = ask.gesture === 'revert' ? request('approval.revertTask', { id: taskId }) : request(GESTURE_METHOD[ask.gesture], { taskId });
  const settle = (event: StoreEvent) => {
    dispatch(event);
    taskShown(taskId);
  };
  reply.then(
    () => settle({ type: 'gestureDone', taskId, requestId }),
    (error: unknown) => settle({ type: 'gestureRefused', taskId, requestId, error: failureText(error) }),
  );
}

/** A decision: the host's approval patch settles it; its refusal puts the approval back with the reason. */
function askDecision({ approvalId, taskId, decision, reason }: DecideAsk, { request, dispatch, taskShown }: BlockAskDeps): void {
  const id = approvalId;
  const reply = decision === 'approve' ? request('approval.approve', { id }) : request('approval.reject', reason ? { id, reason } : { id });
  reply.catch((error: unknown) => {
    dispatch({ type: 'refused', approvalId, reason: failureText(error) });
    taskShown(taskId);
  });
}
