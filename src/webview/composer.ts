/**
 * The composer: the chat box and its draft, the task a message replies to, sending (one send in
 * flight; the box is cleared only once the host says the text is durable) and the `@` context picker.
 */
import type { HostMessage, TaskView, WebviewMessage } from '../shared/protocol';
import type { AttachmentChips } from './attachments';
import { clear, h } from './dom';

/** The composer's part of what the view persists. */
export interface ComposerState {
  selectedSessionId?: string;
  draft?: string;
  replyToTaskId?: string;
}

export interface ComposerParts {
  input: HTMLElement & { value: string };
  sendButton: HTMLElement;
  replyTarget: HTMLElement;
  /** Where a failed send says why. */
  banner: HTMLElement;
  chips: AttachmentChips;
  post(message: WebviewMessage): void;
  state: ComposerState;
  save(): void;
  task(taskId: string): TaskView | undefined;
  /** Shows the conversation a sent message went to. */
  selectSession(sessionId: string): void;
}

export class Composer {
  private pendingSend: { requestId: string; text: string } | undefined;

  constructor(private readonly parts: ComposerParts) {}

  /** Restores the draft and starts listening to the box and the send button. */
  listen(): void {
    const { input, sendButton, state, save, post } = this.parts;
    input.value = state.draft ?? '';
    input.addEventListener('input', () => {
      state.draft = input.value;
      save();
    });
    input.addEventListener('keydown', (event: KeyboardEvent) => {
      // `@` at the start or after a space opens the context picker (an @ inside a word, e.g. an
      // e-mail address, is just typed).
      if (event.key === '@' && !event.isComposing && (input.value === '' || /\s$/.test(input.value))) {
        event.preventDefault();
        post({ type: 'context.pick' });
        return;
      }
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.send();
      }
    });
    sendButton.addEventListener('click', () => this.send());
  }

  focus(): void {
    this.parts.input.focus();
  }

  /** The next message replies to this task. */
  replyTo(taskId: string): void {
    this.parts.state.replyToTaskId = taskId;
    this.parts.save();
    this.renderReplyTarget();
    this.parts.input.focus();
  }

  renderReplyTarget(): void {
    const { replyTarget, state, save } = this.parts;
    clear(replyTarget);
    const task = state.replyToTaskId ? this.parts.task(state.replyToTaskId) : undefined;
    if (!task) return;
    const cancel = h('a', { href: '#' }, 'cancel');
    cancel.addEventListener('click', (e) => {
      e.preventDefault();
      state.replyToTaskId = undefined;
      save();
      this.renderReplyTarget();
    });
    replyTarget.appendChild(h('span', {}, `Replying to task “${task.name}” · `, cancel));
  }

  onSendResult(message: Extract<HostMessage, { type: 'sendResult' }>): void {
    const { input, sendButton, banner, chips, state, save } = this.parts;
    if (message.requestId !== this.pendingSend?.requestId) return;
    this.pendingSend = undefined;
    sendButton.removeAttribute('disabled');
    banner.querySelectorAll('.send-error').forEach((e) => e.remove());
    if (message.ok) {
      // Only now is the text durable in a trigger: clear the box.
      input.value = '';
      state.draft = '';
      chips.clear();
      state.replyToTaskId = undefined;
      this.renderReplyTarget();
      if (message.sessionId) this.parts.selectSession(message.sessionId);
    } else {
      banner.appendChild(h('div', { class: 'notice error send-error' }, message.error ?? 'The message could not be sent; it is still in the box.'));
    }
    save();
  }

  private send(): void {
    const { input, sendButton, chips, state, post } = this.parts;
    const text = input.value.trim();
    if (!text || this.pendingSend) return;
    const requestId = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    this.pendingSend = { requestId, text };
    sendButton.setAttribute('disabled', '');
    const attachments = chips.list;
    post({
      type: 'send',
      requestId,
      text,
      sessionId: state.selectedSessionId,
      replyToTaskId: state.replyToTaskId,
      ...(attachments.length ? { attachments } : {}),
    });
  }
}
