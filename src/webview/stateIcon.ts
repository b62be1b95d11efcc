import { TASK_STATES } from '../shared/taskState';
import type { TaskStateWord } from '../shared/taskState';
import type { TaskView } from '../shared/protocol';
import type { WebviewWordKey } from '../shared/webviewWords';
import { h } from './dom';
import { word } from './words';

const STATE_WORDS: Record<TaskStateWord, WebviewWordKey> = {
  working: 'stateWorking',
  'waiting for you': 'stateWaiting',
  paused: 'statePaused',
  verified: 'stateVerified',
  'done, not checked': 'stateNotChecked',
  done: 'stateDone',
  'checks failed': 'stateChecksFailed',
  failed: 'stateFailed',
  cancelled: 'stateCancelled',
};

/** A state's word in the person's language (`data-state` attributes keep the English one, for CSS and tests). */
export function stateWord(state: TaskStateWord): string {
  return word(STATE_WORDS[state]);
}

const PAUSE_WORDS: Record<NonNullable<TaskView['pauseReason']>, WebviewWordKey> = {
  budget: 'pauseBudget',
  model_error: 'pauseModelError',
  stopped: 'pauseStopped',
};

/** Why a paused task paused, and what Continue and Cancel do then, in the person's language. */
export function pauseWords(reason: NonNullable<TaskView['pauseReason']>): string {
  return word(PAUSE_WORDS[reason]);
}

/** A state's codicon (from @vscode/codicons' font), hidden from assistive tech: the word says it. */
export function stateIcon(word: TaskStateWord): HTMLElement {
  const look = TASK_STATES[word];
  return h('span', { class: `state-icon codicon codicon-${look.codicon}${look.spin ? ' codicon-modifier-spin' : ''}`, 'aria-hidden': 'true' });
}

/** A state as the webview shows it: its icon, then its word. */
export function stateLabel(state: TaskStateWord, cls: string): HTMLElement {
  return h('span', { class: `state-label ${cls}`, 'data-state': state }, stateIcon(state), h('span', { class: 'state-word' }, stateWord(state)));
}
