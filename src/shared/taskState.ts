/**
 * The one vocabulary for a task's state, wherever a task shows: its block in the thread, its card,
 * a conversation's row, the status bar, the Chores view's runs. Each word has one codicon (the
 * webview draws it from @vscode/codicons' font, the host as `$(name)` or a ThemeIcon). What the
 * engine records (TaskRecord `status`, `paused`, `waitingForUser`, `waitingForApproval`) maps
 * onto these words in `taskState`, and nowhere else.
 */

/**
 * The words, in the order a task meets them. A person's task that ended says what judged it, as a
 * chore run's end words do (choreChartModel.ts `runEndWords`): `verified` when the workspace's
 * checks passed, `done, not checked` when it changed files and no checks are declared, `checks
 * failed` when they failed every round; `done` is left for a task that changed no file (nothing to
 * check) or ended before checks existed.
 */
export const TASK_STATE_WORDS = [
  'working',
  'waiting for you',
  'paused',
  'verified',
  'done, not checked',
  'done',
  'checks failed',
  'failed',
  'cancelled',
] as const;
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
  verified: { label: 'verified', codicon: 'verified-filled' },
  'done, not checked': { label: 'done, not checked', codicon: 'check' },
  done: { label: 'done', codicon: 'pass' },
  'checks failed': { label: 'checks failed', codicon: 'unverified' },
  failed: { label: 'failed', codicon: 'error' },
  cancelled: { label: 'cancelled', codicon: 'circle-slash' },
};

/**
 * What judged a person's task when it ended (src/core/checks/taskChecks.ts sets it, the engine
 * keeps it on the task): its checks passed, it changed files with none declared, or they failed.
 * A structured fact, never read back from the summary, whose text the model writes too.
 */
export type TaskChecksVerdict = 'verified' | 'not_checked' | 'failed';

/** What decides a task's state, as the engine records it (and its views carry it). */
export interface TaskStateFacts {
  /** The engine's `TaskStatus`: running, completed, error, paused, cancelled. */
  status: string;
  paused?: boolean;
  waitingForUser?: boolean;
  waitingForApproval?: boolean | string;
  /** What judged the task at its end, when checks had a say (see {@link TaskChecksVerdict}). */
  checks?: TaskChecksVerdict;
}

/** The one word for a task's state: an ended task by how it ended, else why it does not progress. */
export function taskState(task: TaskStateFacts): TaskStateWord {
  if (task.status === 'completed') return task.checks === 'verified' ? 'verified' : task.checks === 'not_checked' ? 'done, not checked' : 'done';
  if (task.status === 'error') return task.checks === 'failed' ? 'checks failed' : 'failed';
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
 * stays as it is; a lane whose task is paused says paused, as the task's block does (a paused
 * lane's status is `waiting`: it waits for Continue); any other lane that waits is waiting for the person.
 */
export function sessionStateWord(status: string, waitingForUser?: boolean, paused?: boolean): TaskStateWord | 'idle' {
  if (paused) return 'paused';
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
      return 'failed';
    case 'checks_failed':
      return 'checks failed';
    case 'cancelled':
      return 'cancelled';
    default:
      return undefined;
  }
}
