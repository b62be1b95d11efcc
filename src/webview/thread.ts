import type { ApprovalView } from '../shared/approvalProtocol';
import type { HostMessage } from '../shared/protocol';
import type { NearView } from './nearView';
import type { Request } from './requests';
import { TaskBlock } from './taskBlock';
import type { TaskBlockActions } from './taskBlock';
import type { BlockView } from './viewStore';

/** What the thread needs from the page around it. */
export interface ThreadDeps {
  request: Request;
  /** A block's steps arrived (a sub-task's block may be drawn now). */
  stepsArrived?(): void;
  /**
   * A task's block as the view store shows it now (viewStore.ts `blockView`: the task, the
   * approvals that wait on it, the gestures it offers, its lines); undefined: not known, e.g. long ended.
   */
  view(taskId: string): BlockView | undefined;
  openDetails(taskId: string): void;
  /** The task's gestures (Stop, Continue, Cancel, Reply, Revert edits), shown on its block. */
  taskActions?: TaskBlockActions['task'];
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
   * Approve or Reject pressed on a block: the page tells the view store, which shows it in the same
   * frame (the approval leaves, the task is at work) and asks the host; the store keeps the outcome.
   */
  decide(approval: ApprovalView, decision: 'approve' | 'reject', reason?: string): void;
}

/**
 * The tasks drawn in the conversations that started them: one block per task, kept across
 * redraws of the transcript (a session switch re-attaches the same element), drawn from what the
 * view store says of the task (its state, the approvals that wait on it: the thread keeps none of
 * its own), fed with its step rows. A block asks the host for its steps
 * once, when it is first drawn; steps of tasks not drawn are not kept (the page brings them).
 * A task that a task started is drawn inside its starter's block, in the step that started it, so
 * the whole tree of work stays in the conversation where the person asked.
 */
export class Thread {
  private readonly blocks = new Map<string, TaskBlock>();
  /** Tasks a drawn step started before the task itself was known: the block whose step waits for it. */
  private readonly awaiting = new Map<string, TaskBlock>();

  constructor(private readonly deps: ThreadDeps) {}

  /** The block of `taskId`, made (and its steps asked for) on first use; undefined for an unknown task. */
  block(taskId: string): HTMLElement | undefined {
    const kept = this.blocks.get(taskId);
    if (kept) return kept.element;
    const view = this.deps.view(taskId);
    if (!view) return undefined;
    const block: TaskBlock = new TaskBlock(view.task, {
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
    block.update(view.task, view.pending, view);
    this.blocks.set(taskId, block);
    this.deps.nearView?.watch(block.element, () => this.change(block, () => block.steps.draw(), true));
    this.deps.request('thread.loadSteps', { taskId }).then(
      ({ steps, said }) => {
        // A block made afresh since (an `init`) asked for its own page.
        if (this.blocks.get(taskId) !== block) return;
        this.change(block, () => {
          block.page(steps);
          if (said) block.showSaid(said);
        });
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
  reset(): void {
    this.blocks.clear();
    this.awaiting.clear();
    this.deps.nearView?.clear();
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

  /**
   * A task, or what waits on it, changed in the view store: its block, if drawn, shows it (a new
   * request of the person's is brought into view where the agent asks it); a task a drawn step
   * started is drawn in that step.
   */
  taskChanged(taskId: string): void {
    const block = this.blocks.get(taskId);
    const view = this.deps.view(taskId);
    if (block) {
      if (!view) return;
      const before = block.pendingElement;
      this.change(block, () => block.update(view.task, view.pending, view));
      const now = block.pendingElement;
      if (now && now !== before && now.isConnected) now.scrollIntoView?.({ block: 'nearest' });
      return;
    }
    const starter = this.awaiting.get(taskId);
    if (!starter || !view) return;
    this.awaiting.delete(taskId);
    this.change(starter, () => starter.steps.refreshTask(taskId));
  }

  /** Takes the thread's messages (step rows); returns whether nothing else needs the message. */
  onMessage(message: HostMessage): boolean {
    if (message.type !== 'thread.step') return false;
    const block = this.blocks.get(message.taskId);
    if (block) this.change(block, () => block.page(message.steps));
    return true;
  }

  /**
   * Approve or Reject pressed on a block: the store shows the decision in the same frame and asks
   * the host (its patch confirms, a refusal puts the approval back with the reason); the button
   * pressed is gone, so focus moves to the next thing that waits, else to the composer.
   */
  decide(approval: ApprovalView, decision: 'approve' | 'reject', reason?: string): void {
    this.deps.decide(approval, decision, reason);
    this.focusNextWaiting();
  }

  /** After a decision took the focused button away: the next Approve that waits in the thread, else the composer. */
  focusNextWaiting(): void {
    if (!this.focusWaiting()) this.deps.focusAfterDecision?.();
  }

  /** Focuses the first Approve (in the page's order) that waits in the thread shown; false when none does. */
  focusWaiting(): boolean {
    const shown = [...this.blocks.values()].flatMap((b) => {
      const approve = b.element.querySelector<HTMLElement>('.block-approval .approve');
      return approve?.isConnected ? [approve] : [];
    });
    const first = shown.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1))[0];
    first?.focus();
    return first !== undefined;
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
