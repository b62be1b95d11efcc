/**
 * The sidebar protocol: the only thing the extension host and the webview share.
 *
 * Host → webview messages are trusted (we build them). Webview → host messages are validated
 * with zod at the host, because the webview is a browser context that renders model output and
 * workspace text. The host sends the whole view state once (`init`, on load or reload) and then
 * only incremental patches: one message appended, one session or task patched, one trace event.
 */
import * as z from 'zod/v4';
import type { ApprovalHostMessage, ApprovalView } from './approvalProtocol';
import type { MessageView, SessionSummary } from './sessionProtocol';
import type { SidebarReply } from './sidebarApi';
import type { TaskChecksVerdict } from './taskState';
import { sidebarRequestEnvelope } from './sidebarSchemas';

// Session rows and transcript lines live with the session-list protocol (one import direction).
export type { MessageView, SessionSummary } from './sessionProtocol';
import type { ContextHostMessage } from './contextProtocol';
import type { ThreadHostMessage, TraceEventView } from './threadProtocol';

export type { TraceEventView } from './threadProtocol';

/** A piece of a running turn's live reply: text to append, or a tool call's progress line. */
export type StreamDeltaView = { kind: 'text'; text: string } | { kind: 'tool'; callId: string; name: string; preview: string };

export interface SessionView extends SessionSummary {
  /** The tail of the transcript (older lines are not sent). */
  messages: MessageView[];
  /** Set while a turn runs in the session (then `turnState` messages keep it current). */
  liveTurnId?: string;
}

export interface TodoView {
  text: string;
  status: 'pending' | 'in_progress' | 'done';
}

export interface TaskView {
  id: string;
  sessionId: string;
  name: string;
  mode: 'simple' | 'complex';
  status: string;
  todos: TodoView[];
  counters: { actions: number; tokens: number; cost: number; costEstimated?: boolean };
  budget: { actions: number; tokens: number; cost?: number };
  waitingForUser: boolean;
  /** The task waits for the person's decision on a proposal (an edit, a command). */
  waitingForApproval?: boolean;
  paused: boolean;
  /**
   * Why it paused, as a code: the page words it from its catalog (src/webview/taskWords.ts), so
   * the person reads it in their language (the core's PauseReason).
   */
  pauseReason?: 'budget' | 'model_error' | 'stopped';
  /** Stop was pressed: the task pauses once its current step is done. */
  stopping?: boolean;
  /** The summary the task ended with. */
  finalSummary?: string;
  /** What judged the task at its end (its state word: verified, done, not checked, checks failed). */
  checks?: TaskChecksVerdict;
  /**
   * The task has applied edits a revert would undo (the host reads them from the change sets
   * Revert uses): the block offers Revert edits exactly then. Absent: nothing left to undo.
   */
  revertible?: boolean;
  /**
   * Every edit the task applied was reverted since (none is left to undo): its block says so under
   * the summary, which still describes the edits. Read by the host from the same change sets.
   */
  editsReverted?: boolean;
}

export interface DeadLetterView {
  id: string;
  sessionId: string;
  source: string;
  attempts: number;
  error: string;
}

export interface ModelStatusView {
  provider: string;
  model: string;
  /** Set when the model cannot be used yet, with what to do about it. */
  problem?: string;
}

export interface ViewState {
  /** The sessions with live work (transcript tails in memory, a turn running); the view asks for any other it shows. */
  sessions: SessionView[];
  tasks: TaskView[];
  deadLetters: DeadLetterView[];
  model: ModelStatusView;
  /** Restricted Mode: chat only. */
  restricted: boolean;
  /** Set while the store is opening or if it could not be opened. */
  storeProblem?: string;
  approvals: ApprovalView[];
}

export type HostMessage =
  | { type: 'init'; state: ViewState }
  | { type: 'sessionPatch'; session: SessionSummary }
  /** `archived`: the session moved to the archive and stays in History (its transcript is read from there). */
  | { type: 'sessionRemoved'; sessionId: string; movedTo?: string; archived?: boolean }
  | { type: 'messageAppended'; sessionId: string; message: MessageView }
  | { type: 'taskPatch'; task: TaskView }
  | { type: 'traceAppended'; taskId: string; event: TraceEventView }
  | { type: 'deadLetters'; deadLetters: DeadLetterView[] }
  | { type: 'model'; model: ModelStatusView }
  /** A turn started (`running`) or ended in a session: Stop shows while one runs. */
  | { type: 'turnState'; sessionId: string; turnId: string; running: boolean }
  /** Live output of a running turn, for its streaming bubble (not part of the transcript). */
  | { type: 'streamDelta'; sessionId: string; turnId: string; delta: StreamDeltaView }
  /** Select a session (e.g. one a palette message went to). */
  | { type: 'showSession'; sessionId: string }
  /** The view title's New Chat (its History is a native quick pick: src/host/historyPick.ts). */
  | { type: 'view.newChat' }
  /** The answer to one request of the webview's (src/shared/sidebarApi.ts). */
  | SidebarReply
  | ApprovalHostMessage
  | ContextHostMessage
  | ThreadHostMessage;

/** Every message the webview may send, validated at the host: `ready` once loaded, then requests (src/shared/sidebarApi.ts). */
export const webviewMessageSchema = z.discriminatedUnion('type', [z.object({ type: z.literal('ready') }), sidebarRequestEnvelope]);

export type WebviewMessage = z.infer<typeof webviewMessageSchema>;
