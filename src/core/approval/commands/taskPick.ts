/**
 * Which VS Code task a `run_task` name designates. Keyed by source and label: a plain `build` is
 * the workspace's own tasks.json task (source `Workspace`), never whichever provider (npm, gulp,
 * an extension) also offers a `build`; another provider's task is named `npm: build`. So an
 * approval or an allowlist entry `task:build` covers exactly the definition the person can read.
 * Returns the task, or why none matches (a message for the model).
 */
export function pickTask<T extends { name: string; source: string }>(tasks: readonly T[], name: string): T | string {
  const qualified = tasks.filter((t) => `${t.source}: ${t.name}` === name);
  if (qualified.length === 1) return qualified[0];
  const own = tasks.filter((t) => t.source === 'Workspace' && t.name === name);
  if (own.length === 1) return own[0];
  if (own.length > 1 || qualified.length > 1) return `more than one task is named '${name}'; give each a unique label in .vscode/tasks.json`;
  const others = tasks.filter((t) => t.name === name).map((t) => `${t.source}: ${t.name}`);
  if (others.length) return `there is no task '${name}' in .vscode/tasks.json; to run another provider's task, name it with its source: ${others.join(', ')}`;
  // The workspace's own tasks first (the ones a plain name designates), then other providers'.
  const ordered = [...tasks.filter((t) => t.source === 'Workspace'), ...tasks.filter((t) => t.source !== 'Workspace')];
  const names = [...new Set(ordered.map((t) => (t.source === 'Workspace' ? t.name : `${t.source}: ${t.name}`)))].slice(0, 30).join(', ') || 'none';
  return `there is no VS Code task named '${name}'; available tasks: ${names}`;
}
