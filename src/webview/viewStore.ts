/**
 * The sidebar's view store: what the page knows (conversations opened, their transcripts, tasks,
 * the approvals that wait, the composer's send) as plain data, and pure reducers over what the
 * host pushes and what the person does. No DOM: components render from it, and the unit tests
 * drive it with seeded random interleavings (test/unit/webview/viewStore.test.ts). A reducer
 * returns the next state and the requests it needs made (`Ask`), which the page makes.
 */
import type { ApprovalView } from '../shared/approvalProtocol';
import type { HostMessage, MessageView, SessionSummary, TaskView } from '../shared/protocol';
import type { SidebarParams, SidebarResults } from '../shared/sidebarApi';
import { taskState } from '../shared/taskState';
import type { TaskStateWord } from '../shared/taskState';
import { gestureNotice, gestureTookEffect, isEnded, offeredGestures, shownTask } from './taskGestures';
import type { GestureInFlight, OfferedGesture, TaskGesture } from './taskGestures';
import { approvalStep, approvalsFromInit, decisionLine, pendingOf, refusalsOf } from './approvalStore';
import type { ApprovalState, DecideAction, DecideAsk, RefusedEvent } from './approvalStore';
import { word } from './words';

export { pendingOf } from './approvalStore';

/** The composer's send, as persisted across hide/show and reload (see composer.ts). */
export interface SendState {
  /** What the box holds now. */
  draft: string;
  /** The send in flight: posted again with the same request id by a page made after it was posted. */
  sending?: SidebarParams['send'];
  /** A send the host could not confirm: sending the same text again reuses its request id. */
  unconfirmed?: { requestId: string; text: string };
}

/** The approvals that wait and the decisions in flight are the approvals store's (approvalStore.ts). */
export interface ViewStoreState extends ApprovalState {
  /** The conversation shown (undefined: a new chat). */
  selectedSessionId?: string;
  /** A task's block to bring into view once its conversation is drawn (a lane opened by id). */
  revealTaskId?: string;
  /** Conversation rows known (list pages, opened sessions), by id. */
  sessions: Record<string, SessionSummary>;
  /** Transcript tails the host sent (init for live work, else the reply to `sessions.open`), by session. */
  transcripts: Record<string, MessageView[]>;
  tasks: Record<string, TaskView>;
  /** A gesture on a task's block (Stop, Cancel, Continue, Revert edits) the host has not told the outcome of, by task. */
  gestures: Record<string, GestureInFlight>;
  /** Why the host refused the last gesture on a task's block, by task (the block says it). */
  said: Record<string, string>;
  send: SendState;
}

/** A request a reducer needs made; a gesture's is the request of `GESTURE_METHOD`, answered with `gestureDone`/`gestureRefused` and its `requestId`. */
export type Ask =
  | { method: 'sessions.open'; params: SidebarParams['sessions.open'] }
  | { method: 'send'; params: SidebarParams['send'] }
  | DecideAsk
  | { method: 'gesture'; taskId: string; gesture: TaskGesture; requestId: string };

/** What the person does. */
export type PersonAction =
  | { type: 'select'; sessionId: string | undefined }
  | { type: 'type'; text: string }
  /** Enter or Send; `newId` is the id a new request would get (passed in: reducers stay pure). */
  | { type: 'send'; newId: string; replyToTaskId?: string }
  | DecideAction
  /** Stop, Cancel, Continue or Revert edits on a task's block; `requestId` is new (passed in: reducers stay pure). */
  | { type: 'gesture'; taskId: string; gesture: TaskGesture; requestId: string }
  /** The page was made again (hide/show, reload): a send in flight is posted again. */
  | { type: 'resume' }
  /** The block asked for by a lane's selection is in view now. */
  | { type: 'revealed' };

/** What the host answers to the page's requests. */
export type ReplyEvent =
  | { type: 'opened'; result: SidebarResults['sessions.open'] }
  | { type: 'sent'; requestId: string; sessionId: string }
  | { type: 'sendFailed'; requestId: string; error: string }
  | RefusedEvent
  | { type: 'gestureDone'; taskId: string; requestId: string }
  | { type: 'gestureRefused'; taskId: string; requestId: string; error: string };

export type StoreEvent = HostMessage | PersonAction | ReplyEvent;

export interface Step {
  state: ViewStoreState;
  asks: Ask[];
}

export function emptyState(send: Partial<SendState> = {}): ViewStoreState {
  return {
    sessions: {},
    transcripts: {},
    tasks: {},
    pending: {},
    deciding: {},
    refusals: {},
    gestures: {},
    said: {},
    send: { draft: '', ...send },
  };
}

/** A conversation row with the task lanes nested in it (each lane knows its conversation). */
function remember(sessions: Record<string, SessionSummary>, summary: SessionSummary): Record<string, SessionSummary> {
  const next = { ...sessions, [summary.id]: { ...sessions[summary.id], ...summary } };
  for (const task of summary.tasks ?? []) next[task.id] = { ...task, parentId: summary.id };
  return next;
}

const omit = <T>(record: Record<string, T>, key: string): Record<string, T> => {
  const { [key]: _gone, ...rest } = record;
  return rest;
};

/**
 * Shows a conversation. A task's lane started from a conversation is shown as that conversation,
 * scrolled to the task's block: the lane is where the engine keeps the task's work, the
 * conversation is where the person asked for it. A transcript not sent yet is asked for.
 */
function select(state: ViewStoreState, sessionId: string | undefined): Step {
  const parent = sessionId ? state.sessions[sessionId]?.parentId : undefined;
  const shown = parent ?? sessionId;
  const next = { ...state, selectedSessionId: shown, revealTaskId: parent ? sessionId : state.revealTaskId };
  return { state: next, asks: shown && !state.transcripts[shown] ? [{ method: 'sessions.open', params: { sessionId: shown } }] : [] };
}

/** A send event as the composer's rules take it. */
export type SendEvent = Extract<PersonAction | ReplyEvent, { type: 'type' | 'send' | 'resume' | 'sent' | 'sendFailed' }>;

/**
 * The send's rules, one place for the store and the composer: the box is cleared exactly once,
 * when its send is durable, and never of what was typed meanwhile; one send in flight; a send the
 * host could not confirm keeps its request id for a re-send of the same text (answered once).
 * `ask` is the send to post; `wentTo` the conversation a durable send went to.
 */
export function reduceSend(send: SendState, event: SendEvent, sessionId?: string): { send: SendState; ask?: SidebarParams['send']; wentTo?: string } {
  switch (event.type) {
    case 'type':
      return { send: { ...send, draft: event.text } };
    case 'send': {
      const text = send.draft.trim();
      if (!text || send.sending) return { send };
      const ask: SidebarParams['send'] = {
        requestId: send.unconfirmed?.text === text ? send.unconfirmed.requestId : event.newId,
        text,
        ...(sessionId ? { sessionId } : {}),
        ...(event.replyToTaskId ? { replyToTaskId: event.replyToTaskId } : {}),
      };
      return { send: { ...send, sending: ask }, ask };
    }
    case 'resume':
      return send.sending ? { send, ask: send.sending } : { send };
    case 'sent': {
      if (send.sending?.requestId !== event.requestId) return { send };
      // Typed on while it was sent: that is a new draft, and clearing it would lose it.
      return { send: { draft: send.draft.trim() === send.sending.text ? '' : send.draft }, wentTo: event.sessionId };
    }
    case 'sendFailed':
      if (send.sending?.requestId !== event.requestId) return { send };
      return { send: { draft: send.draft, unconfirmed: { requestId: send.sending.requestId, text: send.sending.text } } };
  }
}

function sendStep(state: ViewStoreState, event: SendEvent): Step {
  const { send, ask, wentTo } = reduceSend(state.send, event, state.selectedSessionId);
  const next = { ...state, send };
  if (wentTo) return select(next, wentTo);
  return { state: next, asks: ask ? [{ method: 'send', params: ask }] : [] };
}

/**
 * The task gestures' reducers: a gesture shows at once (`blockView`), the host's patch or its
 * reply settles it, a refusal rolls it back with the reason (taskGestures.ts says the rules).
 */
function gestureStep(state: ViewStoreState, event: StoreEvent): Step {
  const none = { state, asks: [] };
  switch (event.type) {
    case 'gesture': {
      const task = state.tasks[event.taskId];
      // Only what the block offers now (a second click on the same button asks nothing).
      if (!task || !blockView(state, event.taskId)?.offered.some((o) => o.gesture === event.gesture)) return none;
      const { taskId, gesture, requestId } = event;
      return {
        state: { ...state, gestures: { ...state.gestures, [taskId]: { gesture, requestId } }, said: omit(state.said, taskId) },
        asks: [{ method: 'gesture', taskId, gesture, requestId }],
      };
    }
    case 'gestureDone': {
      const inFlight = state.gestures[event.taskId];
      const task = state.tasks[event.taskId];
      if (inFlight?.requestId !== event.requestId || !task) return none;
      // A revert's outcome is the host's word on the task (`revertible`), patched before this reply.
      if (inFlight.gesture === 'revert') return { state: { ...state, gestures: omit(state.gestures, event.taskId) }, asks: [] };
      if (gestureTookEffect(inFlight.gesture, task)) return { state: { ...state, gestures: omit(state.gestures, event.taskId) }, asks: [] };
      return { state: { ...state, gestures: { ...state.gestures, [event.taskId]: { ...inFlight, acked: true } } }, asks: [] };
    }
    case 'gestureRefused': {
      const inFlight = state.gestures[event.taskId];
      if (inFlight?.requestId !== event.requestId) return none;
      return {
        state: { ...state, gestures: omit(state.gestures, event.taskId), said: { ...state.said, [event.taskId]: word('notDone', event.error) } },
        asks: [],
      };
    }
    default:
      return none;
  }
}

/** A task's patch: the host's truth; it settles a gesture it shows done (or any, once the host said it was). */
function taskPatched(state: ViewStoreState, task: TaskView): ViewStoreState {
  const next = { ...state, tasks: { ...state.tasks, [task.id]: task } };
  const inFlight = state.gestures[task.id];
  if (inFlight && (inFlight.acked || gestureTookEffect(inFlight.gesture, task))) next.gestures = omit(state.gestures, task.id);
  return next;
}

/** The next state after one event, and the requests it needs made. */
export function reduce(state: ViewStoreState, event: StoreEvent): Step {
  switch (event.type) {
    case 'init': {
      let sessions: Record<string, SessionSummary> = {};
      const transcripts: Record<string, MessageView[]> = {};
      for (const { messages, liveTurnId: _live, ...summary } of event.state.sessions) {
        sessions = remember(sessions, summary);
        // Tails the host sent (live work); any other session's comes when it is opened.
        if (messages.length > 0) transcripts[summary.id] = messages;
      }
      const approvals = approvalsFromInit(state, event.state.approvals);
      const tasks = Object.fromEntries(event.state.tasks.map((t) => [t.id, t]));
      // The whole state again: a gesture's outcome is in it (its reply may never come to this page).
      let next: ViewStoreState = { ...state, ...approvals, sessions, transcripts, tasks: {} };
      for (const task of Object.values(tasks)) next = taskPatched(next, task);
      for (const id of Object.keys(next.gestures)) if (!tasks[id]) next.gestures = omit(next.gestures, id);
      return select({ ...next, tasks }, state.selectedSessionId);
    }
    case 'sessionPatch':
      return { state: { ...state, sessions: remember(state.sessions, event.session) }, asks: [] };
    case 'sessionRemoved': {
      // An archived session is still history: its row stays, and so does a transcript already shown.
      if (event.archived) return { state, asks: [] };
      const next = { ...state, sessions: omit(state.sessions, event.sessionId), transcripts: omit(state.transcripts, event.sessionId) };
      return next.selectedSessionId === event.sessionId ? select(next, event.movedTo) : { state: next, asks: [] };
    }
    case 'opened': {
      const { session, messages } = event.result;
      const next = { ...state, sessions: remember(state.sessions, session), transcripts: { ...state.transcripts, [session.id]: messages } };
      // A task's lane asked for by id (a search hit, the status bar): show its conversation instead.
      return session.parentId && state.selectedSessionId === session.id ? select(next, session.id) : { state: next, asks: [] };
    }
    case 'messageAppended': {
      const list = state.transcripts[event.sessionId];
      // A transcript not opened yet is read whole when it is.
      if (!list) return { state, asks: [] };
      return { state: { ...state, transcripts: { ...state.transcripts, [event.sessionId]: [...list, event.message] } }, asks: [] };
    }
    case 'taskPatch':
      return { state: taskPatched(state, event.task), asks: [] };
    case 'gesture':
    case 'gestureDone':
    case 'gestureRefused':
      return gestureStep(state, event);
    case 'showSession':
    case 'select':
      return select(state, event.sessionId);
    case 'view.newChat':
      return select(state, undefined);
    case 'revealed':
      return { state: { ...state, revealTaskId: undefined }, asks: [] };
    case 'type':
    case 'send':
    case 'resume':
    case 'sent':
    case 'sendFailed':
      return sendStep(state, event);
    case 'approvalPatch':
    case 'approvalRemoved':
    case 'decide':
    case 'refused':
      return approvalStep(state, event);
    default:
      return { state, asks: [] };
  }
}

/**
 * A task's state word as its block shows it: it waits for an approval only while one is pending
 * in the view (a decision made here is the task at work until the host says otherwise), so the
 * block never says "waiting for you" with nothing to act on.
 */
export function taskWord(state: ViewStoreState, taskId: string): TaskStateWord | undefined {
  const view = blockView(state, taskId);
  return view && taskState(view.task);
}

/** What a task's block draws: the task as shown (its gesture in flight applied), the gestures it offers, what waits on it, and lines under it. */
export interface BlockView {
  task: TaskView;
  offered: OfferedGesture[];
  /** The approvals it offers to decide, oldest first (none once the task is shown ended). */
  pending: ApprovalView[];
  /** What a decision in flight on it is doing (approvalStore.ts `decisionLine`). */
  decision?: string;
  /** Why the host refused the last decision on an approval of `pending`, by approval id (said on that approval). */
  refusals: Record<string, string>;
  /** What a gesture in flight is doing, or why the host refused the last one. */
  notice?: string;
}

/**
 * A task's block as the view shows it now: the gesture in flight already applied (in the frame
 * of the click), a waiting for an approval only while one is pending here, the gestures it offers
 * (Revert edits only while the host says applied edits are left to undo), what it says. A task shown
 * ended (a Cancel in flight) offers no approval: the host removes them with the task, and Approve
 * beside "cancelled" would be a state and a button that disagree.
 */
export function blockView(state: ViewStoreState, taskId: string): BlockView | undefined {
  const known = state.tasks[taskId];
  if (!known) return undefined;
  const inFlight = state.gestures[taskId];
  const shown = shownTask(known, inFlight);
  const pending = isEnded(shown) ? [] : pendingOf(state, taskId);
  const task = shown.waitingForApproval && pending.length === 0 ? { ...shown, waitingForApproval: false } : shown;
  const offered = offeredGestures(task, inFlight);
  const notice = state.said[taskId] ?? gestureNotice(task, inFlight);
  const decision = isEnded(task) ? undefined : decisionLine(state, taskId);
  return { task, offered, pending, refusals: refusalsOf(state, pending), ...(decision ? { decision } : {}), ...(notice ? { notice } : {}) };
}
