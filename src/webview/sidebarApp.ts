/**
 * The sidebar page (the thread and the composer; History, src/host/historyPick.ts, lists the
 * conversations): the request client, the view store (viewStore.ts), the components that render
 * from it, and what each host message does. main.ts gives it the page, the webview API and the
 * persisted state; tests a DOM and a fake host (test/unit/webview/sidebarApp.test.ts).
 */
import type { HostMessage, MessageView, TaskView } from '../shared/protocol';
import type { SidebarResults } from '../shared/sidebarApi';
import { RequestClient } from './requests';
import { clear, h, keepingFocus } from './dom';
import { renderDeadLetters } from './deadLetters';
import { AttachmentChips } from './attachments';
import { Composer } from './composer';
import type { SidebarEnv, SidebarPage } from './sidebarEnv';
import { drawBanner } from './banner';
import type { BannerState } from './banner';
import { handleReplyActions, renderReply } from './replyView';
import { StreamView } from './streamView';
import { patchTaskCard, renderTaskCard } from './taskCard';
import { TaskDetails } from './taskDetails';
import { nearView } from './nearView';
import { Thread } from './thread';
import type { StoreEvent, ViewStoreState } from './viewStore';
import type { ApprovalView } from '../shared/approvalProtocol';
import type { Decision } from './approvalStore';
import { approvalTaskId } from './approvalStore';
import { blockView, emptyState, reduce } from './viewStore';
import { askForBlock } from './storeAsks';
import type { TaskGesture } from './taskGestures';
import { SIDEBAR_INIT_MARK, THREAD_FIRST_PAINT_MARK } from '../shared/viewConstants';
import { word } from './words';

/** The events that choose the conversation shown. */
const CHOOSES_VIEW = new Set<StoreEvent['type']>(['init', 'select', 'showSession', 'view.newChat', 'sent']);

export type { Persisted, SidebarEnv, SidebarPage } from './sidebarEnv';

/** Wires the page and starts it: the composer listens, a send in flight is posted again, and `ready` is posted. */
export function startSidebar({ root, post, persisted, save }: SidebarEnv): SidebarPage {
  const client = new RequestClient(post);
  const request = client.request;

  /** What the page knows, as plain data with pure reducers (viewStore.ts); the components render from it. */
  let store: ViewStoreState = { ...emptyState(), selectedSessionId: persisted.selectedSessionId };

  /** Applies one event to the store, keeps the conversation shown persisted, and makes the requests it asks for. */
  function dispatch(event: StoreEvent): void {
    if (CHOOSES_VIEW.has(event.type)) choices++;
    const step = reduce(store, event);
    store = step.state;
    if (persisted.selectedSessionId !== store.selectedSessionId) {
      persisted.selectedSessionId = store.selectedSessionId;
      save();
    }
    for (const ask of step.asks) {
      if (ask.method === 'sessions.open') openSession(ask.params.sessionId);
      else if (ask.method !== 'send') askForBlock(ask, { request, dispatch, taskShown });
    }
  }

  /** Approve or Reject pressed on a block: the store shows it at once and asks the host (storeAsks.ts). */
  function decide(approval: ApprovalView, decision: Decision, reason?: string): void {
    dispatch({ type: 'decide', approvalId: approval.id, decision, ...(reason ? { reason } : {}) });
    taskShown(approval.taskId);
  }

  /** How many times the conversation shown was chosen (a reply about an older choice changes nothing). */
  let choices = 0;
  let gestures = 0;
  /** Stop, Cancel, Continue or Revert edits on a block: the store shows it at once, the host is asked. */
  function gesture(taskId: string, kind: TaskGesture): void {
    const pressed = document.activeElement;
    dispatch({ type: 'gesture', taskId, gesture: kind, requestId: `gesture-${++gestures}` });
    taskShown(taskId);
    // The button pressed went with the change (Stop became Continue, a cancelled task's buttons):
    // focus goes where it goes after Approve, not to the page's body.
    if (pressed instanceof HTMLElement && !pressed.isConnected) thread.focusNextWaiting();
  }

  let bannerState: BannerState = { model: { provider: '', model: '' }, restricted: false };

  const $ = <T extends HTMLElement>(selector: string) => root.querySelector(selector) as T;
  const banner = $('#banner');
  const taskArea = $('#tasks');
  const transcript = $('#transcript');
  const traceArea = $('#trace-area');
  const input = $<HTMLElement & { value: string }>('#chat-input');
  const sendButton = $('#send');
  const replyTarget = $('#reply-target');
  const deadArea = $('#dead-letters');

  const stopSession = (sessionId: string) => request('turn.stop', { sessionId });
  // A task's words stream into its block (the thread's), a conversation's into the transcript.
  const stream = new StreamView(
    transcript,
    sendButton,
    () => store.selectedSessionId,
    stopSession,
    (sessionId) => thread.saidArea(sessionId),
  );
  const chips = new AttachmentChips($('#attachments'));
  const composer = new Composer({
    input,
    sendButton,
    replyTarget,
    banner,
    chips,
    request,
    state: persisted,
    save,
    task: (taskId) => store.tasks[taskId],
    selectSession: (sessionId) => selectSession(sessionId),
    focusWaiting: () => thread.focusWaiting(),
  });
  handleReplyActions(transcript, request, () => store.selectedSessionId);

  const sessionName = (id: string) => store.sessions[id]?.name ?? '';

  const details = new TaskDetails(traceArea, {
    loadTrace: (taskId, beforeSeq) => request('trace.load', { taskId, ...(beforeSeq === undefined ? {} : { beforeSeq }) }),
    name: (taskId) => store.tasks[taskId]?.name ?? sessionName(taskId),
    state: persisted,
    save,
  });
  const taskActions = {
    gesture,
    replyTo: (taskId: string) => composer.replyTo(taskId),
    openTrace: (taskId: string) => openTrace(taskId),
  };
  const thread = new Thread({
    request,
    // A page of steps may have drawn the block of a sub-task asked for by `selectSession`.
    stepsArrived: () => revealTask(),
    // A block draws its task as the store shows it (a gesture in flight applied), what waits on it and what it offers.
    view: (taskId) => blockView(store, taskId),
    openDetails: (taskId) => openTrace(taskId),
    taskActions,
    follow: (change) => stream.follow(change),
    nearView: nearView(transcript),
    focusAfterDecision: () => composer.focus(),
    decide,
  });

  /**
   * Shows a session's thread (a task's lane shows as its conversation, scrolled to the task's
   * block: `select` in viewStore.ts); a transcript not opened yet is asked for and drawn when it arrives.
   */
  function selectSession(sessionId: string | undefined): void {
    dispatch({ type: 'select', sessionId });
    shown();
  }

  /** Draws the conversation the store shows. */
  function shown(): void {
    details.sessionShown(store.selectedSessionId);
    renderTitle();
    renderTranscript();
    renderTasks();
  }

  function renderBanner(state: BannerState): void {
    bannerState = state;
    drawBanner(banner, state, (command) => void request('command', { command }).catch(() => undefined));
  }

  /** The header names the conversation shown (its id there too: the UI tests and benches find it by it). */
  function renderTitle(): void {
    const id = store.selectedSessionId;
    const title = $('#current-session');
    title.textContent = id ? sessionName(id) : word('newChat');
    if (id) title.dataset.sessionId = id;
    else delete title.dataset.sessionId;
  }

  function messageElement(message: MessageView): HTMLElement {
    // A task started here is drawn here, as its block (the line is the fallback for a task no longer known).
    const block = message.taskId ? thread.block(message.taskId) : undefined;
    if (block) return block;
    // Replies are Markdown (rendered safely, see replyView.ts); what people typed stays plain text.
    const body = message.role === 'assistant' ? renderReply(message.text) : h('div', { class: 'msg-text' }, lineText(message));
    return h(
      'div',
      { class: `msg msg-${message.role}${message.stopped ? ' msg-stopped' : ''}`, 'data-role': message.role, 'data-stopped': message.stopped },
      body,
      message.stopped ? h('div', { class: 'stopped-mark', title: word('stoppedTitle') }, word('stoppedMark')) : null,
    );
  }

  /** A line's words: worded here from its code when the core gave one (the text is then its English). */
  function lineText(message: MessageView): string {
    if (message.said?.code === 'invalid_tool_calls') return word('msgInvalidToolCalls', message.said.detail);
    return message.text;
  }

  function renderTranscript(): void {
    clear(transcript);
    const id = store.selectedSessionId;
    const messages = id ? (store.transcripts[id] ?? []) : [];
    if (!id) transcript.appendChild(h('div', { class: 'empty' }, word('transcriptEmpty')));
    for (const message of messages) transcript.appendChild(messageElement(message));
    stream.redraw();
    transcript.scrollTop = transcript.scrollHeight;
    revealTask();
    markFirstPaint();
  }

  /**
   * Marks the thread's first paint once, in the frame that paints it (bench: history.sidebar_open):
   * with the host's state, the conversation the person was in with its transcript, or a new chat.
   */
  function markFirstPaint(): void {
    const id = store.selectedSessionId;
    if (!paint.ready || paint.marked || (id && !store.transcripts[id])) return;
    paint.marked = true;
    requestAnimationFrame(() => setTimeout(() => performance.mark(THREAD_FIRST_PAINT_MARK), 0));
  }
  const paint = { ready: false, marked: false };

  /** Brings the block asked for by `selectSession` into view, once it is drawn. */
  function revealTask(): void {
    const { revealTaskId } = store;
    if (!revealTaskId) return;
    // A sub-task's block is in its starter's rows: draw those first.
    thread.drawTowards(revealTaskId);
    const block = transcript.querySelector<HTMLElement>(`[data-task-id="${CSS.escape(revealTaskId)}"]`);
    if (!block) return;
    dispatch({ type: 'revealed' });
    block.scrollIntoView?.({ block: 'nearest' });
  }

  function renderTasks(): void {
    clear(taskArea);
    for (const task of Object.values<TaskView>(store.tasks)) {
      const view = blockView(store, task.id);
      if (view && task.sessionId === store.selectedSessionId) taskArea.appendChild(renderTaskCard(view.task, taskActions, view.offered));
    }
  }

  function patchTask(task: TaskView): void {
    dispatch({ type: 'taskPatch', task });
    taskShown(task.id);
  }

  /** Redraws a task's block and card from the store (a patch, a gesture, its outcome). */
  function taskShown(taskId: string): void {
    const view = blockView(store, taskId);
    if (!view) return;
    const { task } = view;
    thread.taskChanged(taskId);
    revealTask();
    if (task.sessionId !== store.selectedSessionId) return;
    const existing = taskArea.querySelector(`[data-task-id="${CSS.escape(task.id)}"]`);
    const card = renderTaskCard(task, taskActions, view.offered);
    if (existing) keepingFocus(taskArea, 'data-task-id', () => patchTaskCard(existing, card));
    else taskArea.appendChild(card);
  }

  function openTrace(taskId: string): void {
    details.open(taskId, store.selectedSessionId);
  }

  /**
   * Asks for a session's transcript tail, drawn when it arrives. One the host no longer has (deleted
   * since) gives way to a new chat, not an empty thread with no name (the host says the failure).
   */
  function openSession(sessionId: string): void {
    const choice = choices;
    request('sessions.open', { sessionId }).then(sessionOpened, () => {
      if (choices === choice && store.selectedSessionId === sessionId) selectSession(undefined);
    });
  }

  function sessionOpened(opening: SidebarResults['sessions.open']): void {
    const before = store.selectedSessionId;
    // A task's lane asked for by id (a search hit, the status bar): the store shows its conversation instead.
    dispatch({ type: 'opened', result: opening });
    if (store.selectedSessionId !== before) shown();
    else if (opening.session.id === store.selectedSessionId) {
      renderTitle();
      renderTranscript();
    }
  }

  function onMessage(message: HostMessage): void {
    if (message.type === 'reply') {
      client.onReply(message);
      return;
    }
    // An approval is the store's (approvalStore.ts): its task's block and card are drawn from it.
    if (message.type === 'approvalPatch' || message.type === 'approvalRemoved') {
      const taskId = message.type === 'approvalPatch' ? message.approval.taskId : approvalTaskId(store, message.id);
      dispatch(message);
      if (taskId) taskShown(taskId);
      return;
    }
    if (thread.onMessage(message)) return;
    if (details.onMessage(message)) return;
    if (stream.onMessage(message)) return;
    switch (message.type) {
      case 'init': {
        if (performance.getEntriesByName(SIDEBAR_INIT_MARK).length === 0) performance.mark(SIDEBAR_INIT_MARK);
        // Before the store opens, the state is "Starting…" with no conversations: not a first paint.
        paint.ready ||= !message.state.storeProblem;
        thread.reset();
        // The transcripts sent (live work), the tasks; a task's lane kept from an older page shows as
        // its conversation, and the shown conversation's transcript is asked for if it was not sent.
        dispatch(message);
        stream.reset(message.state.sessions.flatMap((s) => (s.liveTurnId ? [{ sessionId: s.id, turnId: s.liveTurnId }] : [])));
        renderBanner(message.state);
        renderTitle();
        renderTranscript();
        renderTasks();
        composer.renderReplyTarget();
        renderDeadLetters(deadArea, message.state.deadLetters, request);
        details.restore(store.selectedSessionId, (taskId) => taskId in store.tasks);
        break;
      }
      case 'sessionPatch':
        // The store keeps the row: the title of the conversation shown, and a lane's conversation.
        dispatch(message);
        renderTitle();
        break;
      case 'sessionRemoved':
        // An archived session is still history: a transcript already shown stays.
        if (message.archived) break;
        if (store.selectedSessionId === message.sessionId) {
          // The store moves the view to where the session went.
          dispatch(message);
          shown();
        } else dispatch(message);
        break;
      case 'messageAppended': {
        dispatch(message);
        const isShown = message.sessionId === store.selectedSessionId;
        // The committed reply takes the streaming bubble's place; whether to follow the end is
        // decided before the bubble goes, as the person saw the view.
        const apply = () => {
          if (message.message.role === 'assistant') stream.replaceWithCommitted(message.sessionId);
          if (!isShown) return;
          transcript.querySelector('.empty')?.remove();
          transcript.appendChild(messageElement(message.message));
        };
        if (isShown) stream.follow(apply);
        else apply();
        break;
      }
      case 'taskPatch':
        patchTask(message.task);
        break;
      case 'contextAttached':
        chips.add(message.attachment);
        input.focus();
        break;
      case 'showSession':
        // A message sent from the palette: show its conversation here.
        selectSession(message.sessionId);
        break;
      case 'view.newChat':
        // The view title's New Chat: an empty thread, the composer ready.
        selectSession(undefined);
        input.focus();
        break;
      case 'deadLetters':
        renderDeadLetters(deadArea, message.deadLetters, request);
        break;
      case 'model':
        renderBanner({ ...bannerState, model: message.model });
        break;
    }
  }

  composer.listen();
  post({ type: 'ready' });
  composer.resume();
  /**
   * The webview got the focus (the focus keybinding, `tasklane.sidebar.focus`, or a click): when
   * nothing inside has it yet, the composer takes it, so the keybinding lands where one types.
   */
  function focused(): void {
    const active = document.activeElement;
    if (!active || active === document.body || !active.isConnected) composer.focus();
  }

  return { onMessage, focused };
}
