/**
 * The sidebar protocol's thread part (src/shared/protocol.ts joins it with the rest): a task started
 * from a message is drawn in that conversation as a block, and each of its steps as a row written
 * for people. The host writes the rows from the task's events (src/host/stepPresenter.ts); the
 * webview only places them.
 */
import * as z from 'zod';

/** A run of a row's text: plain words, or a literal (a command, a query) shown as code. */
export type StepText = Array<string | { code: string }>;

/** What a step is, for its icon. */
export type StepKind = 'read' | 'list' | 'search' | 'edit' | 'command' | 'ask' | 'task' | 'decision' | 'notice' | 'error' | 'tool';

/**
 * One step row: an action (from its start to its end), or a notable moment (a decision of the
 * person, a pause, a warning). Rows are patched in place by `id`; `rev` orders versions of a row.
 */
export interface StepView {
  /** The action's call id, or `e<seq>` for a row made by one event. */
  id: string;
  /** The seq of the event that made the row: rows are shown in this order. */
  seq: number;
  /** The seq of the last event that changed the row: a newer version wins, whatever arrives first. */
  rev: number;
  kind: StepKind;
  text: StepText;
  state: 'running' | 'done' | 'failed';
  /** A short outcome after the text: "4 hits", "✓ 1.5 s", "exit code 1 · 0.4 s". */
  note?: string;
  /**
   * The task this step started (`task_start`): the thread draws that task's block in this row,
   * nested in the block of the task that started it, so a sub-task lives in the conversation.
   */
  taskId?: string;
}

export type ThreadHostMessage =
  /** A step of a task was added or changed (every task's, as it happens). */
  | { type: 'thread.step'; taskId: string; step: StepView }
  /** The steps of a task so far, oldest first, answering `thread.loadSteps`. */
  | { type: 'thread.steps'; taskId: string; steps: StepView[] };

const id = z.string().min(1).max(200);

export const threadMessageSchemas = [
  /** A task's block came into view: send its steps so far (later ones come as `thread.step`). */
  z.object({ type: z.literal('thread.loadSteps'), taskId: id }),
] as const;

export type ThreadWebviewMessage = z.infer<(typeof threadMessageSchemas)[number]>;

/** The one set of words for a task's state, wherever a task shows (src/shared/taskState.ts). */
export type { TaskStateWord } from './taskState';
