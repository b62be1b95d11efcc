import { costText } from '../shared/costText';
import type { WebviewWordKey } from '../shared/webviewWords';
import type { TaskView } from '../shared/protocol';
import { taskState } from '../shared/taskState';
import { h } from './dom';
import { pauseWords, stateLabel } from './stateIcon';
import { offeredGestures } from './taskGestures';
import type { OfferedGesture, TaskGesture } from './taskGestures';
import { word } from './words';

export interface TaskCardActions {
  /**
   * Stop, Cancel, Continue or Revert edits (undo all of the task's applied edits; the host
   * refuses, naming them, if files changed since): shown at once, reconciled (taskGestures.ts).
   */
  gesture(taskId: string, gesture: TaskGesture): void;
  replyTo(taskId: string): void;
  openTrace(taskId: string): void;
}

const TODO_MARK: Record<string, string> = { pending: '○', in_progress: '◐', done: '●' };

function meter(label: WebviewWordKey, used: number, limit: number | undefined, format: (n: number) => string): HTMLElement {
  const over = limit !== undefined && limit > 0 && used >= limit * 0.8;
  return h(
    'span',
    { class: `counter${over ? ' warn' : ''}` },
    limit
      ? word(label === 'counterCost' ? 'counterCostOf' : label === 'counterTokens' ? 'counterTokensOf' : 'counterActionsOf', format(used), format(limit))
      : word(label, format(used)),
  );
}

/** A task's todo list (nothing when it has none). */
export function renderTodos(task: TaskView): HTMLElement | null {
  if (task.todos.length === 0) return null;
  const done = task.todos.filter((t) => t.status === 'done').length;
  return h(
    'ul',
    { class: 'todos', 'aria-label': word('todosDone', done, task.todos.length) },
    ...task.todos.map((todo) => h('li', { class: `todo todo-${todo.status}` }, `${TODO_MARK[todo.status] ?? '○'} ${todo.text}`)),
  );
}

/** A task's counters against its budget (a counter past 80 % is marked). */
export function renderCounters(task: TaskView): HTMLElement {
  return h(
    'div',
    { class: 'counters' },
    meter('counterActions', task.counters.actions, task.budget.actions, String),
    meter('counterTokens', task.counters.tokens, task.budget.tokens, (n) => (n >= 1000 ? `${Math.round(n / 100) / 10}k` : String(n))),
    meter('counterCost', task.counters.cost, task.budget.cost, (n) =>
      costText(n, task.counters.costEstimated && n === task.counters.cost, 3, { estimated: word('costEstimated'), noCharge: word('costNoCharge') }),
    ),
  );
}

/** One task card: status, todos, counters against budget, and the buttons its state allows (`offered`: taskGestures.ts). */
export function renderTaskCard(task: TaskView, actions: TaskCardActions, offered: readonly OfferedGesture[] = offeredGestures(task)): HTMLElement {
  const card = h(
    'div',
    { class: `task-card status-${task.status}`, 'data-task-id': task.id },
    h('div', { class: 'task-head' }, h('span', { class: 'task-name' }, task.name), stateLabel(taskState(task), 'task-status')),
    renderTodos(task),
    renderCounters(task),
    task.paused && task.pauseReason ? h('div', { class: 'pause-reason' }, pauseWords(task.pauseReason)) : null,
  );
  const buttons = h('div', { class: 'task-buttons' });
  const button = (label: string, cls: string, onClick: () => void, secondary = false) => {
    const b = h('vscode-button', { class: cls, secondary }, label);
    b.addEventListener('click', onClick);
    buttons.appendChild(b);
  };
  for (const o of offered) {
    if (o.gesture === 'revert') continue;
    button(o.label, o.cls, () => actions.gesture(task.id, o.gesture), o.secondary);
  }
  if (task.status === 'running' && !task.paused) button(word('gestureReply'), 'reply-task', () => actions.replyTo(task.id), true);
  button(word('taskTrace'), 'open-trace', () => actions.openTrace(task.id), true);
  if (offered.some((o) => o.gesture === 'revert')) button(word('gestureRevert'), 'revert-task', () => actions.gesture(task.id, 'revert'), true);
  card.appendChild(buttons);
  return card;
}

/**
 * Puts a task's new card in place of the old. A running task is patched after every action, so
 * when its buttons are the same ones (their listeners only know the task's id), the old buttons
 * stay in the page untouched and the rest of the card is swapped around them: a Cancel pressed
 * just as an action ends is not lost to a redraw.
 */
export function patchTaskCard(existing: Element, card: HTMLElement): void {
  const oldButtons = existing.querySelector(':scope > .task-buttons');
  const newButtons = card.querySelector(':scope > .task-buttons');
  const labels = (buttons: Element | null) => (buttons ? [...buttons.children].map((b) => `${b.className}:${b.textContent}`).join('|') : undefined);
  if (!oldButtons || !newButtons || labels(oldButtons) !== labels(newButtons)) {
    existing.replaceWith(card);
    return;
  }
  for (const { name } of [...existing.attributes]) if (!card.hasAttribute(name)) existing.removeAttribute(name);
  for (const { name, value } of [...card.attributes]) existing.setAttribute(name, value);
  for (const child of [...existing.children]) if (child !== oldButtons) child.remove();
  for (const child of [...card.children]) if (child !== newButtons) existing.insertBefore(child, oldButtons);
}
