import { createHash } from 'node:crypto';
import * as z from 'zod/v4';
import type { StaleFile } from '../../../shared/changeOutcomeWords';

/**
 * The proposed change set (docs/DESIGN.md §6): what edit actions produce instead of writing files.
 * Plain JSON so it can be stored, sent to the webview and shown in a diff editor as is.
 */

/**
 * Lifecycle: pending → approved → applied | partially_applied, or pending → rejected; any open set
 * can turn stale; an applied set can be reverted (checkpoints.ts).
 */
export type ChangeSetStatus = 'pending' | 'approved' | 'rejected' | 'applied' | 'stale' | 'partially_applied' | 'reverted';

/** What happens to one file. A rename may also change the content (`after` differs from `before`). */
export type FileChangeKind = 'create' | 'modify' | 'delete' | 'rename';

/** The user's per-file choice; a file without one is applied when the set is approved. */
export type FileDecision = 'accept' | 'reject';

/** One file of a change set. */
export interface FileChange {
  /** Workspace-relative path with `/` separators; for a rename, the old path. */
  path: string;
  kind: FileChangeKind;
  /** For a rename: the new workspace-relative path. */
  newPath?: string;
  /** The content on disk when the change was proposed; null when the file did not exist. */
  before: string | null;
  /** The proposed content (at `newPath` for a rename); null when the file is deleted. */
  after: string | null;
  /** hashContent(before): compared with the disk before applying, so nothing is applied over a newer edit. */
  beforeHash: string;
  /** Lines added and removed between `before` and `after`. */
  added: number;
  removed: number;
  decision?: FileDecision;
}

/** A set of file changes proposed together by one task, approved or rejected as a unit (with per-file opt-outs). */
export interface ChangeSet {
  id: string;
  taskId: string;
  sessionId: string;
  /** Epoch ms. */
  createdAt: number;
  status: ChangeSetStatus;
  files: FileChange[];
  /** Why the set was rejected (the user's words, passed on to the task) or went stale (the files that changed). */
  reason?: string;
  /** A set gone stale because files changed on disk: which, and how (the card and the thread word them). */
  staleFiles?: StaleFile[];
  /**
   * Applied sets, where the host has language features: the problems the language servers
   * reported in the changed files after the apply that were not there before, described for the
   * task and for the person (core/codeIntel/problemsAfterApply.ts).
   */
  problems?: string;
}

/** The hash stored for a file that does not exist. */
export const ABSENT_HASH = 'absent';

/** sha256 of the UTF-8 content, or ABSENT_HASH for a file that does not exist. */
export function hashContent(content: string | null): string {
  return content === null ? ABSENT_HASH : `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`;
}

/** Validates change sets read back from storage, so a damaged row fails loudly instead of half-working. */
export const changeSetSchema = z.object({
  id: z.string().min(1),
  taskId: z.string(),
  sessionId: z.string(),
  createdAt: z.number(),
  status: z.enum(['pending', 'approved', 'rejected', 'applied', 'stale', 'partially_applied', 'reverted']),
  files: z.array(
    z.object({
      path: z.string().min(1),
      kind: z.enum(['create', 'modify', 'delete', 'rename']),
      newPath: z.string().min(1).optional(),
      before: z.string().nullable(),
      after: z.string().nullable(),
      beforeHash: z.string(),
      added: z.number().int().nonnegative(),
      removed: z.number().int().nonnegative(),
      decision: z.enum(['accept', 'reject']).optional(),
    }),
  ),
  reason: z.string().optional(),
  problems: z.string().optional(),
  staleFiles: z.array(z.object({ path: z.string(), change: z.enum(['modified', 'created', 'deleted']) })).optional(),
});

// The edit operations, as the engine's edit actions receive them. Descriptions are for the model.
const pathField = z.string().min(1).describe('Path relative to the workspace root, e.g. src/index.ts');

export const createFileInputSchema = z.object({
  path: pathField,
  content: z.string().describe('The whole content of the new file'),
});
export const writeFileInputSchema = z.object({
  path: pathField,
  content: z.string().describe('The whole new content; replaces the file if it exists, creates it otherwise'),
});
export const replaceInFileInputSchema = z.object({
  path: pathField,
  edits: z
    .array(
      z.object({
        oldText: z.string().min(1).describe('An exact excerpt of the current file (whitespace included) that occurs exactly once'),
        newText: z.string().describe('The text that replaces it'),
      }),
    )
    .min(1)
    .describe('Applied in order; each one sees the result of the previous ones'),
});
export const deleteFileInputSchema = z.object({ path: pathField });
export const renameFileInputSchema = z.object({
  path: pathField,
  newPath: z.string().min(1).describe('The new path relative to the workspace root; must not exist yet'),
});

/** One edit operation; several compose into one change set. */
export type EditOperation =
  | ({ op: 'create_file' } & z.infer<typeof createFileInputSchema>)
  | ({ op: 'write_file' } & z.infer<typeof writeFileInputSchema>)
  | ({ op: 'replace_in_file' } & z.infer<typeof replaceInFileInputSchema>)
  | ({ op: 'delete_file' } & z.infer<typeof deleteFileInputSchema>)
  | ({ op: 'rename_file' } & z.infer<typeof renameFileInputSchema>);
