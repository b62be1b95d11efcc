import type { HostMessage } from '../shared/protocol';
import type { SidebarResults } from '../shared/sidebarApi';
import { h } from './dom';
import { TraceList } from './traceList';
import { word } from './words';

/** Which task's details are open, and from which session (kept while the view is hidden). */
export interface DetailsState {
  traceTaskId?: string;
  traceSessionId?: string;
}

/** What the details view needs from the page around it. */
export interface TaskDetailsDeps {
  /** A page of the task's trace, older than `beforeSeq` (absent: the newest). */
  loadTrace(taskId: string, beforeSeq?: number): Promise<SidebarResults['trace.load']>;
  /** The task's name, for the title ('' when not known). */
  name(taskId: string): string;
  /** Where the open task is remembered; `save` persists it. */
  state: DetailsState;
  save(): void;
}

/**
 * A task's details: its raw event trace (event kinds, durations, JSON detail), for when the step
 * rows are not enough. It belongs to the session it was opened from: it closes with × or Escape,
 * and when another session or a new chat is shown.
 */
export class TaskDetails {
  private readonly trace: TraceList;
  private readonly title: HTMLElement;
  private readonly closeButton: HTMLButtonElement;
  /** What had the focus when the details opened (the Details button), to go back to. */
  private opener: Element | null = null;

  constructor(
    private readonly area: HTMLElement,
    private readonly deps: TaskDetailsDeps,
  ) {
    this.trace = new TraceList((beforeSeq) => {
      if (this.deps.state.traceTaskId) this.load(this.deps.state.traceTaskId, beforeSeq);
    });
    this.title = h('span', { class: 'trace-title' });
    this.closeButton = h('button', { class: 'trace-close', type: 'button', 'aria-label': word('detailsClose'), title: word('detailsCloseTitle') }, '×');
    this.closeButton.addEventListener('click', () => this.close());
    this.area.append(h('div', { class: 'trace-head' }, this.title, this.closeButton), this.trace.element);
    // Escape in the trace first clears a selected row (TraceList stops it there), then closes.
    this.area.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || this.area.hidden) return;
      event.preventDefault();
      event.stopPropagation();
      this.close();
    });
    this.area.hidden = true;
  }

  /** The task whose details are open, if any. */
  get taskId(): string | undefined {
    return this.area.hidden ? undefined : this.deps.state.traceTaskId;
  }

  /** Opens `taskId`'s details, belonging to the session shown now (focused unless `focus` is false). */
  open(taskId: string, fromSessionId: string | undefined, focus = true): void {
    if (focus) this.opener = document.activeElement;
    this.deps.state.traceTaskId = taskId;
    this.deps.state.traceSessionId = fromSessionId;
    this.deps.save();
    const name = this.deps.name(taskId);
    this.title.textContent = name ? word('detailsTitleNamed', name) : word('taskDetails');
    this.area.setAttribute('aria-label', name ? word('taskDetailsOf', name) : word('detailsTask'));
    this.area.hidden = false;
    this.trace.reset([], false);
    this.load(taskId);
    if (focus) (this.area.querySelector<HTMLElement>('.trace-viewport') ?? this.closeButton).focus();
  }

  /** Closes the details; the focus goes back to what opened them if it is still there. */
  close(): void {
    const wasOpen = !this.area.hidden;
    this.area.hidden = true;
    this.trace.reset([], false);
    this.deps.state.traceTaskId = undefined;
    this.deps.state.traceSessionId = undefined;
    this.deps.save();
    if (wasOpen && this.opener instanceof HTMLElement && this.opener.isConnected) this.opener.focus();
    this.opener = null;
  }

  /** A session (or a new chat: undefined) is shown: another session's details close. */
  sessionShown(sessionId: string | undefined): void {
    if (!this.area.hidden && sessionId !== this.deps.state.traceSessionId) this.close();
  }

  /** After `init`: reopens the remembered details if they belong to the session shown. */
  restore(shownSessionId: string | undefined, known: (taskId: string) => boolean): void {
    const { traceTaskId, traceSessionId } = this.deps.state;
    if (traceTaskId && known(traceTaskId) && traceSessionId === shownSessionId) this.open(traceTaskId, traceSessionId, false);
    else if (traceTaskId) this.close();
  }

  /** Takes the trace's messages; false for any other. */
  onMessage(message: HostMessage): boolean {
    if (message.type === 'traceAppended') {
      if (message.taskId === this.taskId) this.trace.append(message.event);
      return true;
    }
    return false;
  }

  /** Asks for a page of `taskId`'s trace; it is shown if that task's details are still open. */
  private load(taskId: string, beforeSeq?: number): void {
    this.deps.loadTrace(taskId, beforeSeq).then(
      ({ events, hasMore }) => {
        if (taskId !== this.taskId) return;
        if (this.trace.size === 0) this.trace.reset(events, hasMore);
        else this.trace.prepend(events, hasMore);
      },
      // The host says why in a notification.
      () => undefined,
    );
  }
}
