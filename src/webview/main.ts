import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { HostMessage, MessageView, SessionSummary, TaskView, WebviewMessage } from '../shared/protocol';
import type { SidebarResults } from '../shared/sidebarApi';
import { RequestClient } from './requests';
import { ApprovalPanel } from './approvalPanel';
import { clear, h, keepingFocus } from './dom';
import { renderDeadLetters } from './deadLetters';
import { AttachmentChips } from './attachments';
import { Composer } from './composer';
import type { ComposerState } from './composer';
import { watchSection } from './layout';
import { drawBanner } from './banner';
import type { BannerState } from './banner';
import { handleReplyActions, renderReply } from './replyView';
import { StreamView } from './streamView';
import { patchTaskCard, renderTaskCard } from './taskCard';
import { SessionList } from './sessionList';
import { TaskDetails } from './taskDetails';
import { nearView } from './nearView';
import { Thread } from './thread';
import { SIDEBAR_INIT_MARK, SIDEBAR_SCRIPT_MARK } from '../shared/viewConstants';

performance.mark(SIDEBAR_SCRIPT_MARK);

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): Persisted | undefined;
  setState(state: Persisted): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** What survives the view being hidden or reloaded (the rest comes back with `init`). */
interface Persisted extends ComposerState {
  /** The task whose details are open, and the session they were opened from. */
  traceTaskId?: string;
  traceSessionId?: string;
}

const vscode = acquireVsCodeApi();
const persisted: Persisted = vscode.getState() ?? {};
const save = () => vscode.setState(persisted);
const post = (message: WebviewMessage) => vscode.postMessage(message);
const client = new RequestClient(post);
const request = client.request;

const transcripts = new Map<string, MessageView[]>();
/** Sessions whose transcript tail the host sent (`init` for live work, else `sessions.opened`). */
const opened = new Set<string>();
const tasks = new Map<string, TaskView>();
let bannerState: BannerState = { model: { provider: '', model: '' }, restricted: false };

const $ = <T extends HTMLElement>(selector: string) => document.querySelector(selector) as T;
const banner = $('#banner');
const sessionList = $('#sessions');
const taskArea = $('#tasks');
const transcript = $('#transcript');
const traceArea = $('#trace-area');
const input = $<HTMLElement & { value: string }>('#chat-input');
const sendButton = $('#send');
const replyTarget = $('#reply-target');
const deadArea = $('#dead-letters');

const stopSession = (sessionId: string) => request('turn.stop', { sessionId });
const stream = new StreamView(transcript, sendButton, () => persisted.selectedSessionId, stopSession);
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
  task: (taskId) => tasks.get(taskId),
  selectSession: (sessionId) => selectSession(sessionId),
});
const approvals = new ApprovalPanel($('#approvals'), request);
watchSection(
  $('#review-section'),
  $('#approvals'),
  $('#review-count'),
  () => ({ shown: $('#approvals').children.length, needsYou: $('#approvals').querySelectorAll('[data-status="pending"]').length }),
  (n) => `${n} to review`,
);

handleReplyActions(transcript, request, () => persisted.selectedSessionId);

const sessions = new SessionList(sessionList, {
  select: (sessionId, hit) => {
    selectSession(sessionId);
    // A search hit opens with its events, paged like any trace.
    if (sessionId && hit) openTrace(sessionId);
  },
  loadMore: (after) => request('sessions.page', { after }),
  search: (query) => request('sessions.search', { query }),
  selected: () => persisted.selectedSessionId,
});
/** Sessions not in the loaded pages (an archived one opened from a search hit), for the header. */
const openedSummaries = new Map<string, SessionSummary>();
const sessionName = (id: string) => (sessions.get(id) ?? openedSummaries.get(id))?.name ?? '';

const details = new TaskDetails(traceArea, {
  loadTrace: (taskId, beforeSeq) => request('trace.load', { taskId, ...(beforeSeq === undefined ? {} : { beforeSeq }) }),
  name: (taskId) => tasks.get(taskId)?.name ?? sessionName(taskId),
  state: persisted,
  save,
});
const taskActions = {
  continueTask: (taskId: string) => void request('task.continue', { taskId }).catch(() => undefined),
  cancelTask: (taskId: string) => void request('task.cancel', { taskId }).catch(() => undefined),
  replyTo: (taskId: string) => composer.replyTo(taskId),
  openTrace: (taskId: string) => openTrace(taskId),
  revertTask: (taskId: string) => void request('approval.revertTask', { id: taskId }).catch(() => undefined),
};
const thread = new Thread({
  request,
  // A page of steps may have drawn the block of a sub-task asked for by `selectSession`.
  stepsArrived: () => revealTask(),
  task: (taskId) => tasks.get(taskId),
  openDetails: (taskId) => openTrace(taskId),
  taskActions,
  follow: (change) => stream.follow(change),
  nearView: nearView(transcript),
  focusAfterDecision: () => composer.focus(),
});

/** A task whose block to bring into view once its conversation's thread is drawn. */
let revealTaskId: string | undefined;

/**
 * Shows a session's thread. A task's lane started from a conversation is shown as that
 * conversation, scrolled to the task's block: the lane is where the engine keeps the task's work,
 * the conversation is where the person asked for it.
 */
function selectSession(sessionId: string | undefined): void {
  const parent = sessionId ? (sessions.parentOf(sessionId) ?? openedSummaries.get(sessionId)?.parentId) : undefined;
  if (sessionId && parent) {
    revealTaskId = sessionId;
    sessionId = parent;
  }
  persisted.selectedSessionId = sessionId;
  save();
  details.sessionShown(sessionId);
  // The transcript of a session not opened yet is asked for; it draws when it arrives.
  if (sessionId && !opened.has(sessionId)) openSession(sessionId);
  renderSessions();
  renderTranscript();
  renderTasks();
}

function renderBanner(state: BannerState): void {
  bannerState = state;
  drawBanner(banner, state, (command) => void request('command', { command }).catch(() => undefined));
}

function renderSessions(): void {
  const id = persisted.selectedSessionId;
  $('#current-session').textContent = id ? `· ${sessionName(id)}` : '· new chat';
  sessions.refresh();
}

function messageElement(message: MessageView): HTMLElement {
  // A task started here is drawn here, as its block (the line is the fallback for a task no longer known).
  const block = message.taskId ? thread.block(message.taskId) : undefined;
  if (block) return block;
  // Replies are Markdown (rendered safely, see replyView.ts); what people typed stays plain text.
  const body = message.role === 'assistant' ? renderReply(message.text) : h('div', { class: 'msg-text' }, message.text);
  return h(
    'div',
    { class: `msg msg-${message.role}${message.stopped ? ' msg-stopped' : ''}`, 'data-role': message.role, 'data-stopped': message.stopped },
    body,
    message.stopped ? h('div', { class: 'stopped-mark', title: 'You stopped this reply; this is what it said until then.' }, 'stopped') : null,
  );
}

function renderTranscript(): void {
  clear(transcript);
  const id = persisted.selectedSessionId;
  const messages = id && opened.has(id) ? (transcripts.get(id) ?? []) : [];
  if (!id) transcript.appendChild(h('div', { class: 'empty' }, 'Ask Tasklane to do something in this workspace.'));
  for (const message of messages) transcript.appendChild(messageElement(message));
  stream.redraw();
  transcript.scrollTop = transcript.scrollHeight;
  revealTask();
}

/** Brings the block asked for by `selectSession` into view, once it is drawn. */
function revealTask(): void {
  if (!revealTaskId) return;
  // A sub-task's block is in its starter's rows: draw those first.
  thread.drawTowards(revealTaskId);
  const block = transcript.querySelector<HTMLElement>(`[data-task-id="${CSS.escape(revealTaskId)}"]`);
  if (!block) return;
  revealTaskId = undefined;
  block.scrollIntoView?.({ block: 'nearest' });
}

function renderTasks(): void {
  clear(taskArea);
  for (const task of tasks.values()) {
    if (task.sessionId === persisted.selectedSessionId) taskArea.appendChild(renderTaskCard(task, taskActions));
  }
}

function patchTask(task: TaskView): void {
  tasks.set(task.id, task);
  thread.taskChanged(task);
  revealTask();
  if (task.sessionId !== persisted.selectedSessionId) return;
  const existing = taskArea.querySelector(`[data-task-id="${CSS.escape(task.id)}"]`);
  const card = renderTaskCard(task, taskActions);
  if (existing) keepingFocus(taskArea, 'data-task-id', () => patchTaskCard(existing, card));
  else taskArea.appendChild(card);
}

function openTrace(taskId: string): void {
  details.open(taskId, persisted.selectedSessionId);
}

/** Asks for a session's transcript tail; it is drawn when it arrives (a failure is said by the host). */
function openSession(sessionId: string): void {
  request('sessions.open', { sessionId }).then(sessionOpened, () => undefined);
}

function sessionOpened(opening: SidebarResults['sessions.open']): void {
  openedSummaries.set(opening.session.id, opening.session);
  transcripts.set(opening.session.id, opening.messages);
  opened.add(opening.session.id);
  // A task's lane asked for by id (a search hit, the status bar): show its conversation instead.
  if (opening.session.id === persisted.selectedSessionId && opening.session.parentId) {
    selectSession(opening.session.id);
    return;
  }
  if (opening.session.id === persisted.selectedSessionId) {
    renderSessions();
    renderTranscript();
  }
}

function onMessage(message: HostMessage): void {
  if (message.type === 'reply') {
    client.onReply(message);
    return;
  }
  if (thread.onMessage(message)) return;
  if (details.onMessage(message)) return;
  if (approvals.onMessage(message) || stream.onMessage(message)) return;
  switch (message.type) {
    case 'init': {
      if (performance.getEntriesByName(SIDEBAR_INIT_MARK).length === 0) performance.mark(SIDEBAR_INIT_MARK);
      transcripts.clear();
      opened.clear();
      tasks.clear();
      sessions.reset(
        message.state.sessions.map(({ messages: _m, liveTurnId: _l, ...summary }) => summary),
        message.state.sessionsHaveMore ?? false,
      );
      // Tails the host sent (live work); any other session's comes when it is opened.
      for (const s of message.state.sessions) {
        if (s.messages.length === 0) continue;
        transcripts.set(s.id, s.messages);
        opened.add(s.id);
      }
      for (const t of message.state.tasks) tasks.set(t.id, t);
      thread.reset(message.state.approvals);
      // A task's lane kept from an older page: its conversation is what is shown.
      const laneParent = persisted.selectedSessionId ? sessions.parentOf(persisted.selectedSessionId) : undefined;
      if (laneParent) {
        revealTaskId = persisted.selectedSessionId;
        persisted.selectedSessionId = laneParent;
        save();
      }
      if (persisted.selectedSessionId && !opened.has(persisted.selectedSessionId)) openSession(persisted.selectedSessionId);
      stream.reset(message.state.sessions.flatMap((s) => (s.liveTurnId ? [{ sessionId: s.id, turnId: s.liveTurnId }] : [])));
      renderBanner(message.state);
      renderSessions();
      renderTranscript();
      renderTasks();
      composer.renderReplyTarget();
      renderDeadLetters(deadArea, message.state.deadLetters, request);
      approvals.init(message.state.approvals);
      details.restore(persisted.selectedSessionId, (taskId) => tasks.has(taskId));
      break;
    }
    case 'sessionPatch':
      sessions.upsert(message.session);
      renderSessions();
      break;
    case 'sessionRemoved':
      // An archived session is still history: its row stays, and so does a transcript already shown.
      if (message.archived) break;
      sessions.remove(message.sessionId);
      transcripts.delete(message.sessionId);
      opened.delete(message.sessionId);
      if (persisted.selectedSessionId === message.sessionId) selectSession(message.movedTo);
      else renderSessions();
      break;
    case 'messageAppended': {
      const list = transcripts.get(message.sessionId) ?? [];
      list.push(message.message);
      transcripts.set(message.sessionId, list);
      const shown = message.sessionId === persisted.selectedSessionId;
      // The committed reply takes the streaming bubble's place; whether to follow the end is
      // decided before the bubble goes, as the person saw the view.
      const apply = () => {
        if (message.message.role === 'assistant') stream.replaceWithCommitted(message.sessionId);
        if (!shown) return;
        transcript.querySelector('.empty')?.remove();
        transcript.appendChild(messageElement(message.message));
      };
      if (shown) stream.follow(apply);
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
    case 'view.showHistory': {
      // The view title's History: the list of conversations, open, with its search box focused.
      $<HTMLDetailsElement>('#sessions-section').open = true;
      $('#session-search').focus();
      break;
    }
    case 'deadLetters':
      renderDeadLetters(deadArea, message.deadLetters, request);
      break;
    case 'model':
      renderBanner({ ...bannerState, model: message.model });
      break;
  }
}

composer.listen();
window.addEventListener('message', (event: MessageEvent<HostMessage>) => onMessage(event.data));
post({ type: 'ready' });
composer.resume();
