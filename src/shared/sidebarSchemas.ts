/**
 * The zod schemas of the sidebar's requests (src/shared/sidebarApi.ts has the map's types and the
 * envelope): what the host checks before a handler sees a request, because the webview is a
 * browser context that shows model output and workspace text. Only the host imports this module.
 */
import * as z from 'zod/v4';
import { attachmentSchema } from './contextProtocol';

const id = z.string().min(1).max(200);
const filePath = z.string().min(1).max(4096);
const text = z.string().max(1_000_000);

/** The commands the sidebar may run (banner links, the Review section's History). */
export const SIDEBAR_COMMANDS = ['setApiKey', 'selectModel', 'showLog', 'manageTrust', 'showHistory'] as const;

/** Each request's params, checked at the host (the webview shows model and workspace text: untrusted). */
export const sidebarRequestSchemas = {
  /**
   * A message typed into the composer. `requestId` is the draft's own id, kept across re-sends
   * and reloads: the host answers a re-sent draft once (it is the idempotency key, not the
   * envelope's id).
   */
  send: z.object({
    requestId: id,
    text: z.string().min(1).max(100_000),
    sessionId: id.optional(),
    replyToTaskId: id.optional(),
    /** Context the person attached (chips); the model receives it with this message. */
    attachments: z.array(attachmentSchema).max(20).optional(),
  }),
  /** A session's transcript tail (hot or archived). */
  'sessions.open': z.object({ sessionId: id }),
  /** A page of a task's action trace, older than `beforeSeq` (absent: the newest). */
  'trace.load': z.object({ taskId: id, beforeSeq: z.number().int().nonnegative().optional() }),
  /** A task's block came into view: its steps so far (later ones come as `thread.step`). */
  'thread.loadSteps': z.object({ taskId: id }),
  /** Approve a pending approval; a refusal (decided elsewhere, gone, a check failed) is the reply's error. */
  'approval.approve': z.object({ id }),
  'approval.reject': z.object({ id, reason: z.string().max(10_000).optional() }),
  'approval.openDiff': z.object({ id, path: filePath }),
  'approval.decideFile': z.object({ id, path: filePath, decision: z.enum(['accept', 'reject']) }),
  /** Revert one applied change set. */
  'approval.revert': z.object({ id }),
  /** Revert all applied change sets of the task whose id is `id` (the block's Revert edits). */
  'approval.revertTask': z.object({ id }),
  'task.continue': z.object({ taskId: id }),
  'task.cancel': z.object({ taskId: id }),
  /** The block's Stop: the working task pauses after its current step (core/engine/stepStop.ts). */
  'task.stop': z.object({ taskId: id }),
  /** Stop the turn running in a session (the Stop button that replaces Send). */
  'turn.stop': z.object({ sessionId: id }),
  'deadLetters.retry': z.object({ triggerId: id }),
  command: z.object({ command: z.enum(SIDEBAR_COMMANDS) }),
  /** `@` in the composer: the host shows its picker; the reply carries what was picked, if anything. */
  'context.pick': z.object({}),
  /** Open an http(s) or vscode: URI outside the webview (the host checks the scheme again). */
  'reply.openLink': z.object({ url: z.string().min(1).max(8192) }),
  /** Open a workspace file (relative, or absolute inside the workspace), optionally at a line. */
  'reply.openFile': z.object({ path: filePath, line: z.number().int().positive().optional(), column: z.number().int().positive().optional() }),
  'reply.copy': z.object({ text }),
  /** Insert at the cursor(s) of the active editor (replacing its selections). */
  'reply.insert': z.object({ text }),
  /**
   * Propose the code as an edit: of `path` when the block names a file (the whole file), else of
   * the active editor's selection (or an insertion at its cursor). Shown as an approval card.
   */
  'reply.propose': z.object({ text, path: filePath.optional(), sessionId: id.optional() }),
};

export type SidebarMethod = keyof typeof sidebarRequestSchemas;

/** What each request carries, as the host sees it once checked. */
export type SidebarParams = { [K in SidebarMethod]: z.infer<(typeof sidebarRequestSchemas)[K]> };

/** The envelope as the host first checks it; the params are checked against their method's schema next. */
export const sidebarRequestEnvelope = z.object({
  type: z.literal('request'),
  id,
  method: z.string().min(1).max(100),
  params: z.unknown(),
});

/** Whether `method` names a request of the API (a guard, so nothing is cast). */
export function isSidebarMethod(method: string): method is SidebarMethod {
  return Object.hasOwn(sidebarRequestSchemas, method);
}

/** Checks `raw` against `method`'s schema (typed by the method, so a handler table needs no casts). */
export function parseParams<K extends SidebarMethod>(method: K, raw: unknown): SidebarParams[K] {
  const schemas: { [M in SidebarMethod]: z.ZodType<SidebarParams[M]> } = sidebarRequestSchemas;
  return schemas[method].parse(raw);
}
