import type { ViewState } from '../shared/protocol';
import type { Request } from './requests';
import { clear, h } from './dom';
import { word } from './words';

/** The dead letters (triggers set aside after their last attempt), each with its Retry. */
export function renderDeadLetters(area: HTMLElement, deadLetters: ViewState['deadLetters'], request: Request): void {
  clear(area);
  for (const dead of deadLetters) {
    const retry = h('vscode-button', { secondary: true, class: 'retry-dead' }, word('deadLetterRetry'));
    // A failed retry is said by the host; the engine publishes the new list when it works.
    retry.addEventListener('click', () => void request('deadLetters.retry', { triggerId: dead.id }).catch(() => undefined));
    area.appendChild(h('div', { class: 'dead-letter notice error' }, `${word('deadLetterFailed', dead.source, dead.attempts, dead.error)} `, retry));
  }
}
