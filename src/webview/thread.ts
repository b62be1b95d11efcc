import type { ApprovalView } from '../shared/approvalProtocol';
import type { HostMessage, TaskView } from '../shared/protocol';
import type { NearView } from './nearView';
import type { Request } from './requests';
import { failureText } from './requests';
import { TaskBlock } from './taskBlock';

/** What an approved request does next, in the person's words. */
function approvalWhat(approval: ApprovalView): string {
  return approval.command ? 'running it' : 'applying the change';
}
import type { BlockExtras, TaskBlockActions } from './taskBlock';

/** What the thread needs from the page around it. */
export interface ThreadDeps {
  request: Request;
  /** A block's steps arrived (a sub-task's block may be drawn now). */
  stepsArrived?(): void;
  /** The task as the sidebar knows it now (undefined: not known, e.g. long ended). */
  task(taskId: string): TaskView | undefined;
  openDetails(taskId: string): void;
  /** The task's gestures (Stop, Continue, Cancel, Reply, Revert edits), shown on its block. */
  taskActions?: TaskBlockActions['task'];
  /** What the view store says of a block beyond its task: the gestures it offers, a gesture's line (viewStore.ts `blockView`). */
  extras?(taskId: string): BlockExtras;
  /** Runs a change to the transcript, keeping its end in view if it was (StreamView.follow). */
  follow(change: () => void): void;
  /**
   * When given, a block's step rows are drawn only once the block comes near the visible part of
   * the transcript (a long thread opens at the cost of what is in view); without, at once.
   */
  nearView?: NearView;
  /** Where focus goes when a decision took the focused button away and nothing else waits in the thread (the composer). */
  focusAfterDecision?(): void;
  /**
   * A decision pressed here, or its refusal, told to the view store before the block redraws, so the
   * block's state word (blockView) sees the approval leave or come back in the same frame.
   */
  decisionChanged?(approvalId: string, change: 'decide' | 'refused'): void;
}

/**
 * The tasks drawn in the conversations that started them: one block per task, kept across
 * redraws of the transcript (a session switch re-attaches the same element), fed with the task's
 * patches, its step rows and the approvals that wait on it. A block asks the host for its steps
 * once, when it is first drawn; steps of tasks not drawn are not kept (the page brings them).
 * A task that a task started is drawn inside its starter's block, in the step that started it, so
 * the whole tree of work stays in the conversation where the person asked.
 */
export class Thread {
  private readonly blocks = new Map<string, TaskBlock>();
  /** Tasks a drawn step started before the task itself was known: the block whose step waits for it. */
  private readonly awaiting = new Map<string, TaskBlock>();
  /** Pending approvals by id: the thread is the one place the Chat view shows them. */
  private readonly pending = new Map<string, ApprovalView>();
  /**
   * Approvals the person decided here whose outcome the host has not told yet: shown decided at
   * once (within the frame of the click), put back with the reason if the host refuses.
   */
  private readonly deciding = new Map<string, ApprovalView>();

  constructor(private readonly deps: ThreadDeps) {}

  /** The block of `taskId`, made (and its steps asked for) on first use; undefined for an unknown task. */
  block(taskId: string): HTMLElement | undefined {
    const kept = this.blocks.get(taskId);
    if (kept) return kept.element;
    const task = this.deps.task(taskId);
    if (!task) return undefined;
    const block: TaskBlock = new TaskBlock(task, {
      request: this.deps.request,
      openDetails: (id) => this.deps.openDetails(id),
      ...(this.deps.taskActions ? { task: this.deps.taskActions } : {}),
      held: this.deps.nearView !== undefined,
      decide: (approval, decision, reason) => this.decide(approval, decision, reason),
      nested: (childId) => {
        const child = this.block(childId);
        if (!child) this.awaiting.set(childId, block);
        return child;
      },
    });
    block.update(task, this.pendingOf(taskId), this.deps.extras?.(taskId));
    this.blocks.set(taskId, block);
    this.deps.nearView?.watch(block.element, () => this.change(block, () => block.steps.draw(), true));
    this.deps.request('thread.loadSteps', { taskId }).then(
      ({ steps }) => {
        // A block made afresh since (an `init`) asked for its own page.
        if (this.blocks.get(taskId) !== block) return;
        this.change(block, () => block.page(steps));
        this.deps.stepsArrived?.();
      },
      // The host says why in a notification; the block keeps the rows it has.
      () => undefined,
    );
    return block.element;
  }

  /** Where the words of the task working in `sessionId` stream: its block's area, if its block is made. */
  saidArea(sessionId: string): HTMLElement | undefined {
    for (const block of this.blocks.values()) if (block.sessionId === sessionId) return block.said;
    return undefined;
  }

  /** The whole state arrived again (`init`): blocks are made afresh as the transcript is drawn. */
  reset(approvals: readonly ApprovalView[]): void {
    this.blocks.clear();
    this.awaiting.clear();
    this.deps.nearView?.clear();
    this.pending.clear();
    for (const approval of approvals) if (approval.status === 'pending') this.pending.set(approval.id, approval);
  }

  /**
   * Draws the rows that lead to `taskId`'s block (a sub-task's block is made when its starter's
   * row is built: held, folded or earlier rows are built for it), so it can be scrolled to; true
   * when the block exists.
   */
  drawTowards(taskId: string): boolean {
    for (let depth = 0; depth < 8 && !this.blocks.has(taskId); depth++) {
      const hiding = [...this.blocks.values()].filter((b) => b.steps.hidesTasks);
      if (hiding.length === 0) break;
      for (const b of hiding) this.change(b, () => b.steps.showEarlier(), true);
    }
    return this.blocks.has(taskId);
  }

  /** A task changed: its block, if drawn, shows it; a task a drawn step started is drawn in that step. */
  taskChanged(task: TaskView): void {
    const block = this.blocks.get(task.id);
    if (block) {
      this.change(block, () => block.update(task, this.pendingOf(task.id), this.deps.extras?.(task.id)));
      return;
    }
    const starter = this.awaiting.get(task.id);
    if (!starter) return;
    this.awaiting.delete(task.id);
    this.change(starter, () => starter.steps.refreshTask(task.id));
  }

  /**
   * Takes the thread's messages (step rows) and follows approval messages (the thread is where
   * the Chat view shows what waits). Returns whether nothing else needs the message.
   */
  onMessage(message: HostMessage): boolean {
    switch (message.type) {
      case 'thread.step': {
        const block = this.blocks.get(message.taskId);
        if (block) this.change(block, () => block.page(message.steps));
        return true;
      }
      case 'approvalPatch':
        if (message.approval.status === 'pending') {
          // A patch of an approval being decided (a file decision, its problems) does not undo the click.
          if (this.deciding.has(message.approval.id)) this.deciding.set(message.approval.id, message.approval);
          else this.pending.set(message.approval.id, message.approval);
        } else {
          this.pending.delete(message.approval.id);
          // Confirmed: the decision is now a row of the task's; the line that stood for it goes.
          if (this.deciding.delete(message.approval.id)) this.blocks.get(message.approval.taskId)?.say(undefined);
        }
        this.approvalsChanged(message.approval.taskId);
        return false;
      case 'approvalRemoved': {
        const taskId = (this.pending.get(message.id) ?? this.deciding.get(message.id))?.taskId;
        this.pending.delete(message.id);
        this.deciding.delete(message.id);
        if (taskId) this.approvalsChanged(taskId);
        return false;
      }
      default:
        return false;
    }
  }

  /**
   * Approve or Reject pressed on a block: the block shows the decision in the same frame (the
   * approval leaves it, the task is at work) and the host is asked; its patch confirms it, a
   * refusal (the request's error) puts the approval back with the reason.
   */
  decide(approval: ApprovalView, decision: 'approve' | 'reject', reason?: string): void {
    this.deps.decisionChanged?.(approval.id, 'decide');
    this.pending.delete(approval.id);
    this.deciding.set(approval.id, approval);
    this.approvalsChanged(approval.taskId);
    this.blocks.get(approval.taskId)?.say(decision === 'approve' ? `Approved: ${approvalWhat(approval)}…` : 'Rejected; the task is told.');
    this.deps
      .request(
        decision === 'approve' ? 'approval.approve' : 'approval.reject',
        decision === 'reject' && reason ? { id: approval.id, reason } : { id: approval.id },
      )
      .catch((error: unknown) => this.refused(approval.id, failureText(error)));
    // The button pressed is gone: focus moves to the next thing that waits, else to the composer.
    this.focusNextWaiting();
  }

  /** After a decision took the focused button away: the next Approve that waits in the thread, else the composer. */
  focusNextWaiting(): void {
    const next = [...this.blocks.values()].map((b) => b.element.querySelector<HTMLElement>('.block-approval .approve')).find((b) => b?.isConnected);
    if (next) next.focus();
    else this.deps.focusAfterDecision?.();
  }

  /** A decision made here that the host refused: the approval is back on its block, with the reason. */
  private refused(id: string, reason: string): void {
    const approval = this.deciding.get(id);
    // Decided meanwhile (its patch arrived first): nothing to take back.
    if (!approval) return;
    this.deps.decisionChanged?.(id, 'refused');
    this.deciding.delete(id);
    this.pending.set(approval.id, approval);
    this.approvalsChanged(approval.taskId);
    this.blocks.get(approval.taskId)?.say(`Not done: ${reason}`);
  }

  private approvalsChanged(taskId: string): void {
    const block = this.blocks.get(taskId);
    const task = this.deps.task(taskId);
    if (!block || !task) return;
    const before = block.pendingElement;
    this.change(block, () => block.update(task, this.pendingOf(taskId), this.deps.extras?.(taskId)));
    // A new request of the person's is brought into view where the agent asks it.
    const now = block.pendingElement;
    if (now && now !== before && now.isConnected) now.scrollIntoView?.({ block: 'nearest' });
  }

  private pendingOf(taskId: string): ApprovalView[] {
    return [...this.pending.values()].filter((a) => a.taskId === taskId).sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * A change to a block on screen keeps the transcript's end in view; one off screen just happens.
   * A block whose rows wait to be drawn is not near the view: its change needs no forced layout
   * to follow the end (the browser's scroll anchoring keeps what is in view in place).
   */
  private change(block: TaskBlock, change: () => void, drawing = false): void {
    if (block.element.isConnected && (drawing || block.steps.isDrawn)) this.deps.follow(change);
    else change();
  }
}
