/**
 * The sidebar protocol's reply part: what a rendered reply's links and code-block buttons ask the
 * host to do. (src/shared/protocol.ts joins it with the rest.) The host re-checks everything: a
 * link's scheme again, a file's place inside the workspace, and a proposed edit goes through the
 * normal approval card.
 */
import * as z from 'zod';

const text = z.string().max(1_000_000);
const filePath = z.string().min(1).max(4096);

export const replyMessageSchemas = [
  /** Open an http(s) or vscode: URI outside the webview. */
  z.object({ type: z.literal('reply.openLink'), url: z.string().min(1).max(8192) }),
  /** Open a workspace file (relative, or absolute inside the workspace), optionally at a line. */
  z.object({ type: z.literal('reply.openFile'), path: filePath, line: z.number().int().positive().optional(), column: z.number().int().positive().optional() }),
  z.object({ type: z.literal('reply.copy'), text }),
  /** Insert at the cursor(s) of the active editor (replacing its selections). */
  z.object({ type: z.literal('reply.insert'), text }),
  /**
   * Propose the code as an edit: of `path` when the block names a file (the whole file), else of
   * the active editor's selection (or an insertion at its cursor). Shown as an approval card.
   */
  z.object({ type: z.literal('reply.propose'), text, path: filePath.optional(), sessionId: z.string().min(1).max(200).optional() }),
] as const;

export type ReplyWebviewMessage = z.infer<(typeof replyMessageSchemas)[number]>;
