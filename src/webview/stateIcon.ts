import { TASK_STATES } from '../shared/taskState';
import type { TaskStateWord } from '../shared/taskState';
import { h } from './dom';

/** A state's codicon (from @vscode/codicons' font), hidden from assistive tech: the word says it. */
export function stateIcon(word: TaskStateWord): HTMLElement {
  const look = TASK_STATES[word];
  return h('span', { class: `state-icon codicon codicon-${look.codicon}${look.spin ? ' codicon-modifier-spin' : ''}`, 'aria-hidden': 'true' });
}

/** A state as the webview shows it: its icon, then its word. */
export function stateLabel(word: TaskStateWord, cls: string): HTMLElement {
  return h('span', { class: `state-label ${cls}`, 'data-state': word }, stateIcon(word), h('span', { class: 'state-word' }, word));
}
