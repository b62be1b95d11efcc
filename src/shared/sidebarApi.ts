/**
 * The sidebar's request API: every gesture and question of the webview is a request with a
 * method, zod-checked params and one typed reply, carried in one envelope. The host answers each
 * request from one handler table (src/host/sidebarHandlers.ts); the webview awaits the reply of the
 * request it made (src/webview/requests.ts). Nothing is paired by hand on a key of its own, and an
 * error goes back to the request that caused it, so the webview can show it where the person
 * clicked. What the host pushes unasked (patches, step rows, stream deltas) stays in
 * `HostMessage` (src/shared/protocol.ts). The zod schemas that check each request's params at the
 * host are in src/shared/sidebarSchemas.ts (the webview bundle carries no zod: it imports types only).
 */
import type { AttachmentView } from './contextProtocol';
import type { MessageView, SessionSummary } from './sessionProtocol';
import type { SidebarMethod, SidebarParams } from './sidebarSchemas';
import type { StepView, TraceEventView } from './threadProtocol';

export type { SidebarMethod, SidebarParams } from './sidebarSchemas';

/** A request that only does something: its reply says it was done (or why not). */
export type Done = null;

/** What each request's reply carries when it succeeded. */
export interface SidebarResults {
  /** Where the message went (a new conversation, or the task it answers). */
  send: { sessionId: string };
  'sessions.open': { session: SessionSummary; messages: MessageView[] };
  'trace.load': { events: TraceEventView[]; hasMore: boolean };
  /** `said`: what the task's latest turn that spoke said (its block shows it until the next turn speaks). */
  'thread.loadSteps': { steps: StepView[]; said?: string };
  'approval.approve': Done;
  'approval.reject': Done;
  'approval.openDiff': Done;
  'approval.decideFile': Done;
  'approval.revert': Done;
  'approval.revertTask': Done;
  'task.continue': Done;
  'task.cancel': Done;
  'task.stop': Done;
  'turn.stop': Done;
  'deadLetters.retry': Done;
  command: Done;
  'context.pick': { attachment?: AttachmentView };
  'reply.openLink': Done;
  'reply.openFile': Done;
  'reply.copy': Done;
  'reply.insert': Done;
  'reply.propose': Done;
}

/** The envelope of a request, webview → host. */
export interface SidebarRequest<K extends SidebarMethod = SidebarMethod> {
  type: 'request';
  id: string;
  method: K;
  params: SidebarParams[K];
}

/** A request's result, host → webview: the request's id and method, and the method's result. */
export interface SidebarResultReply<K extends SidebarMethod = SidebarMethod> {
  type: 'reply';
  id: string;
  method: K;
  ok: true;
  result: SidebarResults[K];
}

/** The envelope of a reply, host → webview: the result, or what went wrong in the person's words. */
export type SidebarReply = SidebarResultReply | { type: 'reply'; id: string; method: SidebarMethod; ok: false; error: string };

/** Whether `reply` answers a request of `method` (the check that lets its result be typed by the method). */
export function isResultOf<K extends SidebarMethod>(reply: SidebarResultReply, method: K): reply is SidebarResultReply<K> {
  return reply.method === method;
}

/** The person's words for a request whose failure the host shows as a notification (the rest say "that"). */
export const GESTURE_WORDS: Partial<Record<SidebarMethod, string>> = {
  'deadLetters.retry': 'Retry',
  'task.continue': 'Continue',
  'task.cancel': 'Cancel',
  'task.stop': 'Stop',
  'turn.stop': 'Stop',
  'trace.load': 'Loading the trace',
  'thread.loadSteps': "Loading the task's steps",
  'context.pick': 'Attaching context',
};

/**
 * Requests whose failure the webview shows where the person acted (the composer, the approval's
 * or the task's block: src/webview/taskGestures.ts), so the host adds no notification. Every
 * other failure is also a notification.
 */
export const SHOWN_IN_VIEW: ReadonlySet<SidebarMethod> = new Set<SidebarMethod>([
  'send',
  'approval.approve',
  'approval.reject',
  'task.stop',
  'task.cancel',
  'task.continue',
  'approval.revertTask',
]);

/** Messages of one family (`approval.*`, `reply.*`) as the owning service takes them: the method as `type`, then the params. */
export type MethodMessage<K extends SidebarMethod> = { [M in K]: { type: M } & SidebarParams[M] }[K];

export type ApprovalMethod = Extract<SidebarMethod, `approval.${string}`>;
export type ReplyMethod = Extract<SidebarMethod, `reply.${string}`>;
