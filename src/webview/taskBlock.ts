import type { ApprovalView } from '../shared/approvalProtocol';
import type { TaskView } from '../shared/protocol';
import type { StepView } from '../shared/threadProtocol';
import { taskState } from '../shared/taskState';
import { pauseWords, stateIcon, stateWord } from './stateIcon';
import { renderBlockApproval, restoreReasons, typedReasons } from './blockApproval';
import { clear, h, keepingFocus } from './dom';
import { renderStreamedBlock } from './replyView';
import { StepList } from './stepRows';
import type { NestedBlock } from './stepRows';
import { renderCounters, renderTodos } from './taskCard';
import type { Request } from './requests';
import type { TaskCardActions } from './taskCard';
import { offeredGestures } from './taskGestures';
import type { OfferedGesture } from './taskGestures';
import { word } from './words';

/** What the view store says of a block beyond its task (viewStore.ts `blockView`): the gestures offered, and what one in flight does. */
export interface BlockExtras {
  offered?: readonly OfferedGesture[];
  /** What a decision in flight is doing (the line under what waits). */
  decision?: string;
  /** Why the host refused the last decision on a pending approval, by approval id (said on that approval). */
  refusals?: Readonly<Record<string, string>>;
  /** What a gesture in flight is doing, or why the host refused it. */
  notice?: string;
}

/** What a block needs from around it. */
export interface TaskBlockActions {
  request: Request;
  /** Opens the task's details (the raw trace). */
  openDetails(taskId: string): void;
  /** The task's own gestures (the same as its card's): Stop, Continue, Cancel (of a paused or a running task), Reply, Revert edits. */
  task?: Omit<TaskCardActions, 'openTrace'>;
  /** The block of a task this one started, drawn in the step that started it (the Thread's). */
  nested?: NestedBlock;
  /** Keep the step rows undrawn until `steps.draw()` (the Thread draws them when the block nears the view). */
  held?: boolean;
  /**
   * Approve or Reject pressed on the block: the view store shows it at once and asks the host
   * (thread.ts). Without it the block only shows what waits (a block drawn for its rows alone).
   */
  decide?(approval: ApprovalView, decision: 'approve' | 'reject', reason?: string): void;
}

/** A task that has ended: its block is drawn folded (header, counters, summary) until opened. */
const ended = (task: TaskView) => ['completed', 'error', 'cancelled'].includes(task.status);

/**
 * A task in the thread that started it: its name and state, counters, todos, a row per step, what
 * it waits for from the person (Approve / Reject right there), and its summary once it ends. It
 * updates in place: the step rows and the Details button stay the same elements across updates.
 * A task that had ended when its block was drawn shows its rows only once opened ("Show N steps");
 * one at work, or waiting for the person, is open with its latest rows (see StepList).
 */
export class TaskBlock {
  readonly element: HTMLElement;
  readonly steps: StepList;
  private readonly head: HTMLElement;
  private readonly progress: HTMLElement;
  private readonly waiting: HTMLElement;
  private readonly summary: HTMLElement;
  /** Says the task's edits were reverted (the summary above it still describes them). */
  private readonly reverted: HTMLElement;
  private readonly notice: HTMLElement;
  /** What a gesture on the block (Stop, Cancel…) is doing, or why it was not done. */
  private readonly gestureLine: HTMLElement;
  private readonly buttons: HTMLElement;
  private readonly details: HTMLElement;
  /** Where the task's words while it works stream (streamView.ts; the last turn's stay until the next speaks). */
  readonly said: HTMLElement;
  /** The summary drawn (a patch with the same one leaves it alone). */
  private summaryShown: string | undefined;
  /** What the waiting part shows (`[]`: nothing, as it is made). */
  private waitingShown = '[]';
  private buttonsShown = '';
  /** The person folded the rows: the block's state does not open them again. */
  private foldedByPerson = false;

  constructor(
    private task: TaskView,
    private readonly actions: TaskBlockActions,
  ) {
    this.steps = new StepList(actions.nested, { held: actions.held, folded: ended(task), taskName: () => this.task.name });
    this.steps.toggle.addEventListener('click', () => (this.foldedByPerson = !this.steps.isOpen));
    this.head = h('div', { class: 'block-head' });
    this.progress = h('div', { class: 'block-progress' });
    this.waiting = h('div', { class: 'block-waiting', role: 'group', 'aria-label': word('blockWaitingGroup'), hidden: true });
    this.summary = h('div', { class: 'block-summary md' });
    this.reverted = h('div', { class: 'block-reverted', role: 'status', hidden: true }, word('blockEditsReverted'));
    this.notice = h('div', { class: 'block-notice', role: 'status', hidden: true });
    this.gestureLine = h('div', { class: 'block-notice block-gesture', role: 'status', hidden: true });
    this.details = h('vscode-button', { class: 'open-details', secondary: true, 'aria-label': word('taskDetailsOf', task.name) }, word('taskDetails'));
    this.details.addEventListener('click', () => this.actions.openDetails(this.task.id));
    this.buttons = h('div', { class: 'block-buttons task-buttons' }, this.details);
    this.said = h('div', { class: 'block-said-area', 'aria-live': 'polite' });
    this.element = h(
      'article',
      { class: 'task-block', 'data-role': 'task', 'data-task-id': task.id },
      this.head,
      this.progress,
      this.steps.toggle,
      this.steps.earlier,
      this.steps.element,
      this.said,
      this.waiting,
      this.notice,
      this.gestureLine,
      this.summary,
      this.reverted,
      this.buttons,
    );
    this.update(task, []);
  }

  get taskId(): string {
    return this.task.id;
  }

  /** The session lane the task works in (its turns stream there). */
  get sessionId(): string {
    return this.task.sessionId;
  }

  /** Redraws what `task` and its pending approvals say; the step rows are left alone. */
  update(task: TaskView, pending: readonly ApprovalView[], extras: BlockExtras = {}): void {
    this.task = task;
    // A task waits for an approval only while one is pending here: once the person decided, the
    // task is at work on it (applying, or told) until its turn clears the flag, and saying
    // "waiting for you" with nothing to act on would be false (the status bar already agrees).
    const state = taskState(pending.length ? task : { ...task, waitingForApproval: undefined });
    this.element.setAttribute('data-state', state);
    this.element.setAttribute('aria-label', word('blockLabel', task.name, stateWord(state)));
    clear(this.head);
    this.head.append(stateIcon(state), h('span', { class: 'block-name' }, task.name), h('span', { class: 'block-state' }, stateWord(state)));
    clear(this.progress);
    this.progress.append(renderCounters(task), renderTodos(task) ?? '');
    if (task.paused && task.pauseReason) this.progress.append(h('div', { class: 'pause-reason' }, pauseWords(task.pauseReason)));
    // The summary is written for the person, often with `code` in it: rendered (safely) as a reply is.
    if (this.summaryShown !== task.finalSummary) {
      this.summaryShown = task.finalSummary;
      this.summary.replaceChildren(task.finalSummary ? renderStreamedBlock(task.finalSummary) : '');
    }
    this.summary.hidden = !task.finalSummary;
    // The summary was written when the edits stood ("Added greetAll … passed"); once the host reads
    // every applied set as reverted (`editsReverted`), the block says so rather than let it stand.
    this.reverted.hidden = !task.editsReverted;
    // An ended task's summary says where it got: the words it said while it worked go with its end
    // ("running npm run build" above "done" would no longer be true). A turn's end keeps them.
    if (ended(task)) this.said.replaceChildren();
    this.showPending(pending, extras.refusals ?? {});
    this.showButtons(task, extras.offered ?? offeredGestures(task));
    this.notice.textContent = extras.decision ?? '';
    this.notice.hidden = extras.decision === undefined;
    this.gestureLine.textContent = extras.notice ?? '';
    this.gestureLine.hidden = !extras.notice;
    // A task at work again, or one that waits for an approval, shows its latest rows.
    if (!this.steps.isOpen && !this.foldedByPerson && (!ended(task) || pending.length > 0)) this.steps.setOpen(true);
  }

  /**
   * The gestures the task's state allows. A task is patched after every action: while the same
   * buttons apply they stay the same elements, so a Cancel pressed as an action ends is not lost.
   */
  private showButtons(task: TaskView, offered: readonly OfferedGesture[]): void {
    const gestures = this.actions.task;
    if (!gestures) return;
    const list: Array<[label: string, cls: string, run: () => void, secondary: boolean]> = offered.map((o) => [
      o.label,
      o.cls,
      () => gestures.gesture(task.id, o.gesture),
      o.secondary,
    ]);
    // Reply (the composer answers this task) after Stop or Continue, before Cancel.
    if (task.status === 'running' && !task.paused) {
      const at = list.findIndex(([, cls]) => cls === 'cancel-task');
      list.splice(at < 0 ? list.length : at, 0, [word('gestureReply'), 'reply-task', () => gestures.replyTo(task.id), true]);
    }
    const shown = list.map(([label, cls]) => `${cls}:${label}`).join('|');
    if (shown === this.buttonsShown) return;
    this.buttonsShown = shown;
    const elements = list.map(([label, cls, run, secondary]) => {
      const b = h('vscode-button', { class: cls, secondary, 'aria-label': word('gestureOfTask', label, task.name) }, label);
      b.addEventListener('click', run);
      return b;
    });
    keepingFocus(this.buttons, 'class', () => this.buttons.replaceChildren(...elements, this.details));
  }

  /**
   * What the task's latest turn said, as the host kept it (a page made afresh, e.g. after a window
   * reload, has no stream to take it from): shown like the words that streamed, rendered, unless
   * the live stream already put words here (they are newer) or the task has ended (its summary
   * says where it got; a stale "Proposing the edit…" beside "done" would not be true).
   */
  showSaid(text: string): void {
    if (this.said.childElementCount > 0 || ended(this.task)) return;
    this.said.append(h('div', { class: 'msg msg-assistant block-said', 'data-role': 'said' }, h('div', { class: 'msg-text md' }, renderStreamedBlock(text))));
  }

  /** Adds or patches a step row; true when the block changed. */
  step(step: StepView): boolean {
    return this.steps.upsert(step);
  }

  /** The task's steps so far (the page asked for when the block was drawn); builds only the rows shown. */
  page(steps: readonly StepView[]): boolean {
    return this.steps.page(steps);
  }

  /** The first pending approval's element, to bring into view when it appears. */
  get pendingElement(): HTMLElement | null {
    return this.waiting.querySelector('.block-approval');
  }

  private showPending(pending: readonly ApprovalView[], refusals: Readonly<Record<string, string>>): void {
    const shown = JSON.stringify(pending.map((a) => [a.id, a.status, a.files, a.command, refusals[a.id]]));
    if (shown === this.waitingShown) return;
    this.waitingShown = shown;
    // A redraw (a file excluded, a patch) keeps the reason the person was typing.
    const typed = typedReasons(this.waiting);
    keepingFocus(this.waiting, 'data-approval-id', () => this.waiting.replaceChildren(...pending.map((a) => this.approval(a, refusals[a.id]))));
    restoreReasons(this.waiting, typed);
    this.waiting.hidden = pending.length === 0;
  }

  /** A pending approval in the thread (blockApproval.ts); a decision goes to the view store through the Thread. */
  private approval(approval: ApprovalView, refused: string | undefined): HTMLElement {
    return renderBlockApproval(approval, refused, {
      request: this.actions.request,
      decide: (decision, reason) => this.actions.decide?.(approval, decision, reason),
    });
  }
}
