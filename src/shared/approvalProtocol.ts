/**
 * The sidebar protocol's approval part: proposed change sets and commands waiting for the user.
 * (src/shared/protocol.ts joins it with the rest.)
 */
import * as z from 'zod';

export interface ApprovalFileView {
  path: string;
  kind: 'create' | 'modify' | 'delete' | 'rename';
  newPath?: string;
  added: number;
  removed: number;
  /** Per-file decision before the whole set is approved. */
  decision?: 'accept' | 'reject';
  /** Why this file always asks (sensitive path), if it does. */
  sensitive?: string;
}

/** One pending (or just decided) approval, as a card. */
export interface ApprovalView {
  id: string;
  taskId: string;
  sessionId: string;
  kind: 'edits' | 'command' | 'task' | 'mcp';
  title: string;
  status: string;
  files: ApprovalFileView[];
  /** For kind command/task: the exact command line or task name; for mcp: `server/tool` and its arguments. */
  command?: string;
  /** Why it asks, or the outcome (rejected because…, stale because…). */
  reason?: string;
  /** The chore whose run proposed it: such proposals wait in the review inbox. */
  choreId?: string;
  createdAt: number;
}

export type ApprovalHostMessage =
  | { type: 'approvalPatch'; approval: ApprovalView }
  | { type: 'approvalRemoved'; id: string }
  /**
   * An Approve or Reject from the sidebar that did not happen (decided elsewhere, gone, refused by
   * a check): the thread, which showed the decision at once, takes it back and says why.
   */
  | { type: 'approvalRefused'; id: string; reason: string };

const id = z.string().min(1).max(200);
const filePath = z.string().min(1).max(4096);

export const approvalMessageSchemas = [
  z.object({ type: z.literal('approval.approve'), id }),
  z.object({ type: z.literal('approval.reject'), id, reason: z.string().max(10_000).optional() }),
  z.object({ type: z.literal('approval.openDiff'), id, path: filePath }),
  z.object({ type: z.literal('approval.decideFile'), id, path: filePath, decision: z.enum(['accept', 'reject']) }),
  /** Revert one applied change set. */
  z.object({ type: z.literal('approval.revert'), id }),
  /** Revert all applied change sets of the task whose id is `id` (the task card's button). */
  z.object({ type: z.literal('approval.revertTask'), id }),
] as const;

export type ApprovalWebviewMessage = z.infer<(typeof approvalMessageSchemas)[number]>;
