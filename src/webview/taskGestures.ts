/**
 * The person's gestures on a task's block (Stop, Cancel, Continue, Revert edits), shown at once
 * and reconciled with the host, as Approve and Reject are (viewStore.ts `approvalStep`). Pure: the
 * view store keeps the gesture in flight per task, the block draws the task as `shownTask` says
 * and offers what `offeredGestures` lists. The host's word wins: a task patch that shows the
 * gesture took effect (or that the task ended) settles it, a refusal rolls it back and the block
 * says why, and after the request's success the next patch is the truth whatever it says.
 */
import type { TaskView } from '../shared/protocol';
import type { WebviewWordKey } from '../shared/webviewWords';
import { word } from './words';

export type TaskGesture = 'stop' | 'cancel' | 'continue' | 'revert';

/** A gesture made on a block whose outcome the host has not told yet. */
export interface GestureInFlight {
  gesture: TaskGesture;
  /** The request that carries it: only its own reply settles it (a later gesture replaces it). */
  requestId: string;
  /** The host said it was done; the next patch of the task is the truth. */
  acked?: boolean;
}

/** The request each gesture is (its params are the task's id). */
export const GESTURE_METHOD = {
  stop: 'task.stop',
  cancel: 'task.cancel',
  continue: 'task.continue',
  revert: 'approval.revertTask',
} as const satisfies Record<TaskGesture, string>;

const ENDED = new Set(['completed', 'error', 'cancelled']);
export const isEnded = (task: Pick<TaskView, 'status'>): boolean => ENDED.has(task.status);

/**
 * The task as its block shows it while `inFlight` waits for the host: what the gesture will make
 * of it, in the frame of the click. Revert changes no state (the block only drops its button).
 */
export function shownTask(task: TaskView, inFlight: GestureInFlight | undefined): TaskView {
  if (!inFlight || isEnded(task)) return task;
  switch (inFlight.gesture) {
    case 'stop':
      return task.paused ? task : { ...task, stopping: true };
    case 'cancel': {
      const { waitingForApproval: _w, stopping: _s, pauseReason: _p, ...rest } = task;
      return { ...rest, status: 'cancelled', paused: false, waitingForUser: false };
    }
    case 'continue': {
      const { stopping: _s, pauseReason: _p, ...rest } = task;
      return { ...rest, status: 'running', paused: false };
    }
    case 'revert':
      return task;
  }
}

/** Whether the host's `task` shows that `gesture` took effect (so nothing is left to reconcile). */
export function gestureTookEffect(gesture: TaskGesture, task: TaskView): boolean {
  if (isEnded(task)) return true;
  switch (gesture) {
    case 'stop':
      return task.stopping === true || task.paused;
    case 'continue':
      return !task.paused && !task.stopping;
    case 'cancel':
    case 'revert':
      // Cancel takes effect as the task's end; a revert changes files, not the task (its reply says).
      return false;
  }
}

/** One gesture a block offers: its label, the class the page and the tests find it by, and whether it is secondary. */
export interface OfferedGesture {
  gesture: TaskGesture;
  label: string;
  cls: string;
  secondary: boolean;
}

/** Each gesture's button, its label as a word key (looked up when offered: the words arrive with the page). */
const OFFER: Record<TaskGesture, Omit<OfferedGesture, 'label'> & { label: WebviewWordKey }> = {
  continue: { gesture: 'continue', label: 'gestureContinue', cls: 'continue-task', secondary: false },
  stop: { gesture: 'stop', label: 'gestureStop', cls: 'stop-task', secondary: true },
  cancel: { gesture: 'cancel', label: 'gestureCancel', cls: 'cancel-task', secondary: true },
  revert: { gesture: 'revert', label: 'gestureRevert', cls: 'revert-task', secondary: true },
};

/**
 * The gestures a block offers for the task as shown: Continue and Cancel when paused; Stop and
 * Cancel while it works (Continue instead of Stop once Stop was pressed: it takes the Stop back);
 * Cancel while it waits for the person (answering is what moves it); Revert edits once it is no
 * longer working, and only while the host says it has applied edits left to undo (`revertible`:
 * not after a reject, a Cancel that withdrew its proposal, or a revert). The gesture in flight is not offered again (one click, one request).
 */
export function offeredGestures(task: TaskView, inFlight?: GestureInFlight): OfferedGesture[] {
  const list: TaskGesture[] = [];
  if (task.paused) list.push('continue', 'cancel');
  else if (task.status === 'running') {
    const waits = task.waitingForUser || task.waitingForApproval;
    if (task.stopping) list.push('continue');
    else if (!waits) list.push('stop');
    list.push('cancel');
  }
  if (task.revertible && (task.status !== 'running' || task.paused)) list.push('revert');
  return list.filter((g) => g !== inFlight?.gesture).map((g) => ({ ...OFFER[g], label: word(OFFER[g].label) }));
}

/** What a block says of its gesture in flight (undefined: nothing). */
export function gestureNotice(task: TaskView, inFlight: GestureInFlight | undefined): string | undefined {
  if (!inFlight) return task.stopping ? word('gestureStopping') : undefined;
  switch (inFlight.gesture) {
    case 'stop':
      return word('gestureStopping');
    case 'cancel':
      return word('gestureCancelling');
    case 'continue':
      return undefined;
    case 'revert':
      return word('gestureReverting');
  }
}
