/**
 * Action sets: the one gate on what a turn may do. An action belongs to one or more sets; a turn
 * is offered only the actions of its sets (registry.tools) and can run only those
 * (registry.resolve refuses any other call and tells the model which set it lacks). Every task
 * has `task` (steering itself: todos, messages, waiting) and `read` (reads inside the workspace are
 * automatic, docs/DESIGN.md §6); everything that changes something is in a set of its own, so a
 * task or chore gets it only by naming it:
 *
 * - `files`: propose edits (write_file, replace_in_file, …; they still ask unless auto-approved);
 * - `commands`: run_command and run_task (they still ask unless allowlisted);
 * - `mcp:<server>`: that MCP server's tools (each call asks unless allowlisted).
 *
 * A task a person starts from chat with no sets named gets DEFAULT_TASK_SETS (files and commands:
 * what a person asking for work expects, and each still asks for approval). A chore gets exactly
 * the sets its chores.yaml entry names, so `actionSets: []` can only read and talk. A task a task
 * starts inherits its parent's sets unless it names its own; a chore's descendants never gain one
 * (successorPolicy in engine/taskTurn.ts).
 */

/** The names of the sets the engine knows (MCP servers add `mcp:<server>`). */
export const ACTION_SETS = {
  conversation: 'conversation',
  task: 'task',
  read: 'read',
  files: 'files',
  commands: 'commands',
} as const;

/** What a chat task gets when task_start names no sets. */
export const DEFAULT_TASK_SETS: readonly string[] = [ACTION_SETS.files, ACTION_SETS.commands];

/** An MCP server's set: `mcp:<server>`. */
export const MCP_SET_PATTERN = /^mcp:[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/** Sets a task or a chore may name (the rest are given, never asked for). */
export function isGrantableSet(name: string): boolean {
  return name === ACTION_SETS.read || name === ACTION_SETS.files || name === ACTION_SETS.commands || MCP_SET_PATTERN.test(name);
}

/** How an unknown set name is explained, to the model and in chores.yaml diagnostics. */
export function unknownSetMessage(name: string): string {
  return `unknown action set "${name}": use "files" (propose edits), "commands" (run commands and tasks), "read" or "mcp:<server>"`;
}

/** The sets a task runs with: `task` and `read` always, plus exactly the ones it was granted. */
export function taskActionSets(granted: readonly string[]): string[] {
  return [...new Set<string>([ACTION_SETS.task, ACTION_SETS.read, ...granted])];
}

/**
 * A task stored before action sets were the gate had edits and commands through `task`; a live
 * one keeps them after the upgrade (a chore's task does not: that was the bug the gate fixes).
 * Tasks created since carry `gatedSets` and are left as they are.
 */
export function upgradeActionSets<T extends { actionSets: string[]; chore?: unknown; gatedSets?: true }>(task: T): T {
  if (task.gatedSets) return task;
  // A damaged or hand-written row may lack the list: it gets the sets of its kind.
  const stored = Array.isArray(task.actionSets) ? task.actionSets : [];
  const actionSets = task.chore ? taskActionSets(stored) : taskActionSets([...stored, ...DEFAULT_TASK_SETS]);
  return { ...task, actionSets, gatedSets: true };
}
