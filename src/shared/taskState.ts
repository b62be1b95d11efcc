/**
 * The one vocabulary for a task's state, wherever a task shows: its block in the thread, its card,
 * a conversation's row, the status bar, the Chores view's runs. Each word has one codicon (the
 * webview draws it from @vscode/codicons' font, the host as `$(name)` or a ThemeIcon). What the
 * engine records (TaskRecord `status`, `paused`, `waitingForUser`, `waitingForApproval`) maps
 * onto these words in `taskState`, and nowhere else.
 */

/** The words, in the order a task meets them. */
export const TASK_STATE_WORDS = ['working', 'waiting for you', 'paused', 'done', 'failed', 'cancelled'] as const;
export type TaskStateWord = (typeof TASK_STATE_WORDS)[number];

/** How a state is shown: its word and its codicon (without the `codicon-` prefix). */
export interface TaskStateLook {
  label: TaskStateWord;
  codicon: string;
  /** The icon turns (working only): `$(sync~spin)` on the host, `codicon-modifier-spin` in the webview. */
  spin?: boolean;
}

export const TASK_STATES: Record<TaskStateWord, TaskStateLook> = {
  working: { label: 'working', codicon: 'sync', spin: true },
  'waiting for you': { label: 'waiting for you', codicon: 'bell-dot' },
  paused: { label: 'paused', codicon: 'debug-pause' },
  done: { label: 'done', codicon: 'pass' },
  failed: { label: 'failed', codicon: 'error' },
  cancelled: { label: 'cancelled', codicon: 'circle-slash' },
};

/** The one word for ending a task before it is done (its state is then `cancelled`). */
export const CANCEL_TASK_WORD = 'Cancel';

/** What decides a task's state, as the engine records it (and its views carry it). */
export interface TaskStateFacts {
  /** The engine's `TaskStatus`: running, completed, error, paused, cancelled. */
  status: string;
  paused?: boolean;
  waitingForUser?: boolean;
  waitingForApproval?: boolean | string;
}

/** The one word for a task's state: an ended task by how it ended, else why it does not progress. */
export function taskState(task: TaskStateFacts): TaskStateWord {
  if (task.status === 'completed') return 'done';
  if (task.status === 'error') return 'failed';
  if (task.status === 'cancelled') return 'cancelled';
  if (task.paused || task.status === 'paused') return 'paused';
  if (task.waitingForUser || task.waitingForApproval) return 'waiting for you';
  return 'working';
}

/** A state's codicon as the host writes it in a label: `$(sync~spin)`, `$(bell-dot)`… */
export function stateIconText(word: TaskStateWord): string {
  const look = TASK_STATES[word];
  return `$(${look.codicon}${look.spin ? '~spin' : ''})`;
}

/**
 * A conversation's row (a session lane's status) in the same words: `idle` is no task state, it
 * stays as it is; a lane that waits is waiting for the person.
 */
export function sessionStateWord(status: string, waitingForUser?: boolean): TaskStateWord | 'idle' {
  if (waitingForUser || status === 'waiting') return 'waiting for you';
  if (status === 'working') return 'working';
  if (status === 'error') return 'failed';
  return 'idle';
}

/**
 * A chore run's status in the task words where one fits (a run is its task's work); the statuses
 * only runs have (budget_exhausted, skipped, missed) have none.
 */
export function choreRunState(status: string): TaskStateWord | undefined {
  switch (status) {
    case 'running':
      return 'working';
    case 'awaiting_review':
      return 'waiting for you';
    case 'succeeded':
    case 'nothing_to_change':
      return 'done';
    case 'failed':
    case 'checks_failed':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    default:
      return undefined;
  }
}
