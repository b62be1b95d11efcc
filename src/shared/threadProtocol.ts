/**
 * The sidebar protocol's thread part (src/shared/protocol.ts joins it with the rest): a task started
 * from a message is drawn in that conversation as a block, and each of its steps as a row written
 * for people. The host writes the rows from the task's events (src/host/stepPresenter.ts); the
 * webview only places them.
 */
/** A run of a row's text: plain words, or a literal (a command, a query) shown as code. */
export type StepText = Array<string | { code: string }>;

/** What a step is, for its icon. */
/** `rejection`: the person said no to a proposal (its own kind, so its row never carries the decision's check mark). */
export type StepKind = 'read' | 'list' | 'search' | 'edit' | 'command' | 'ask' | 'task' | 'decision' | 'rejection' | 'notice' | 'error' | 'tool';

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
  /**
   * Steps of a task were added or changed (every task's, as it happens: one step as a rule; the
   * steps so far come as the reply to `thread.loadSteps`). Rows merge by id and `rev`.
   */
  { type: 'thread.step'; taskId: string; steps: StepView[] };

/** The one set of words for a task's state, wherever a task shows (src/shared/taskState.ts). */
export type { TaskStateWord } from './taskState';

/** One entry of a task's action trace. */
export interface TraceEventView {
  seq: number;
  type: string;
  at: number;
  summary: string;
  /** Inputs/outputs as pretty JSON text; shown on expand, never as HTML. */
  detail?: string;
  durationMs?: number;
}
