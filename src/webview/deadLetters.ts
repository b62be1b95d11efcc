import type { ViewState, WebviewMessage } from '../shared/protocol';
import { clear, h } from './dom';

/** The dead letters (triggers set aside after their last attempt), each with its Retry. */
export function renderDeadLetters(area: HTMLElement, deadLetters: ViewState['deadLetters'], post: (message: WebviewMessage) => void): void {
  clear(area);
  for (const dead of deadLetters) {
    const retry = h('vscode-button', { secondary: true, class: 'retry-dead' }, 'Retry');
    retry.addEventListener('click', () => post({ type: 'retryDeadLetter', triggerId: dead.id }));
    area.appendChild(h('div', { class: 'dead-letter notice error' }, `A ${dead.source} trigger failed ${dead.attempts} times: ${dead.error} `, retry));
  }
}
