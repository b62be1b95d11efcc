/**
 * The sidebar protocol's approval part: proposed change sets and commands waiting for the user.
 * (src/shared/protocol.ts joins it with the rest.)
 */
import type { ApprovalMethod, MethodMessage } from './sidebarApi';

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

export type ApprovalHostMessage = { type: 'approvalPatch'; approval: ApprovalView } | { type: 'approvalRemoved'; id: string };

/** The approval gestures, as the approval services take them (the requests are in src/shared/sidebarApi.ts). */
export type ApprovalWebviewMessage = MethodMessage<ApprovalMethod>;
