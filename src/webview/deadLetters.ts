import type { ViewState } from '../shared/protocol';
import type { WebviewWordKey } from '../shared/webviewWords';
import type { Request } from './requests';
import { clear, h } from './dom';
import { word } from './words';

/**
 * Each trigger source (the core's TRIGGER_SOURCES, src/core/store/triggerRows.ts) as the person
 * reads it; test/unit/webview/pseudoLocale.test.ts checks every source has its words. A source
 * this page does not know (a newer core) shows its code as the value of one sentence.
 */
const SOURCE_WORDS: Record<string, WebviewWordKey> = {
  user_message: 'triggerUserMessage',
  task_continuation: 'triggerTaskContinuation',
  scheduled: 'triggerScheduled',
  scheduled_once: 'triggerScheduledOnce',
  scheduled_immediate: 'triggerScheduledImmediate',
  file_event: 'triggerFileEvent',
  task_event: 'triggerTaskEvent',
  approval: 'triggerApproval',
  memory: 'triggerMemory',
  proactive: 'triggerProactive',
  restart_notice: 'triggerRestartNotice',
  resume: 'triggerResume',
};

function sourceWords(source: string): string {
  const key = SOURCE_WORDS[source];
  return key ? word(key) : word('triggerOther', source);
}

/** The dead letters (triggers set aside after their last attempt), each with its Retry. */
export function renderDeadLetters(area: HTMLElement, deadLetters: ViewState['deadLetters'], request: Request): void {
  clear(area);
  for (const dead of deadLetters) {
    const retry = h('vscode-button', { secondary: true, class: 'retry-dead' }, word('deadLetterRetry'));
    // A failed retry is said by the host; the engine publishes the new list when it works.
    retry.addEventListener('click', () => void request('deadLetters.retry', { triggerId: dead.id }).catch(() => undefined));
    area.appendChild(
      h('div', { class: 'dead-letter notice error' }, `${word('deadLetterFailed', sourceWords(dead.source), dead.attempts, dead.error)} `, retry),
    );
  }
}
