/**
 * The composer: the chat box and its draft, the task a message replies to, sending (one send in
 * flight; the box is cleared only once the host says the text is durable) and the `@` context picker.
 */
import type { TaskView } from '../shared/protocol';
import type { SidebarParams } from '../shared/sidebarApi';
import type { Request } from './requests';
import { failureText } from './requests';
import type { SendState } from './viewStore';
import { reduceSend } from './viewStore';
import type { AttachmentChips } from './attachments';
import { clear, h } from './dom';
import { word } from './words';

/** The composer's part of what the view persists. */
export interface ComposerState {
  selectedSessionId?: string;
  draft?: string;
  replyToTaskId?: string;
  /**
   * The send in flight, as posted. Persisted because the view can be destroyed before the host's
   * answer arrives (hide/show, reload): the new view posts it again with the same request id, and
   * the host recognises it (answered once) and answers with where it went, which clears the box.
   */
  sending?: SidebarParams['send'];
  /**
   * A send the host could not confirm (it may still be written later, e.g. once a full disk has
   * room): sending the same text again reuses its request id, so it is answered once.
   */
  unconfirmed?: { requestId: string; text: string };
}

export interface ComposerParts {
  input: HTMLElement & { value: string };
  sendButton: HTMLElement;
  replyTarget: HTMLElement;
  /** Where a failed send says why. */
  banner: HTMLElement;
  chips: AttachmentChips;
  request: Request;
  state: ComposerState;
  save(): void;
  task(taskId: string): TaskView | undefined;
  /** Shows the conversation a sent message went to. */
  selectSession(sessionId: string): void;
  /**
   * Tab in an empty box: focuses the first thing that waits for the person in the thread shown (an
   * Approve) and says whether there was one. The thread is above the box, so Tab would otherwise
   * leave the view past Send; with nothing typed, what waits is the next thing to do.
   */
  focusWaiting?(): boolean;
}

export class Composer {
  constructor(private readonly parts: ComposerParts) {}

  /**
   * After the view was re-created: a send whose answer the old view never got is posted again
   * (same request id, so the host does not answer it twice); the box stays disabled until then.
   */
  resume(): void {
    const { sending } = this.parts.state;
    if (!sending) return;
    this.parts.sendButton.setAttribute('disabled', '');
    this.ask(sending);
  }

  /** Restores the draft and starts listening to the box and the send button. */
  listen(): void {
    const { input, sendButton, state, save, request, chips } = this.parts;
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
        request('context.pick', {}).then(
          ({ attachment }) => {
            if (attachment) chips.add(attachment);
            input.focus();
          },
          // The host says why in a notification; the box keeps what was typed.
          () => input.focus(),
        );
        return;
      }
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.send();
      }
      const plainTab = event.key === 'Tab' && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey;
      if (plainTab && input.value.trim() === '' && this.parts.focusWaiting?.()) event.preventDefault();
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
    const cancel = h('a', { href: '#' }, word('composerCancelReply'));
    cancel.addEventListener('click', (e) => {
      e.preventDefault();
      state.replyToTaskId = undefined;
      save();
      this.renderReplyTarget();
    });
    replyTarget.appendChild(h('span', {}, `${word('composerReplyingTo', task.name)} · `, cancel));
  }

  /** Posts the send and settles it with the host's answer (the reply of this request, whatever page made it). */
  private ask(sending: SidebarParams['send']): void {
    this.parts.request('send', sending).then(
      ({ sessionId }) => this.settle(sending.requestId, { ok: true, sessionId }),
      (error: unknown) => this.settle(sending.requestId, { ok: false, error: failureText(error) }),
    );
  }

  /** The host's answer to the send of `requestId`: durable (clear the box once) or not (keep it, say why). */
  private settle(requestId: string, message: { ok: true; sessionId: string } | { ok: false; error: string }): void {
    const { input, sendButton, banner, chips, state, save } = this.parts;
    if (requestId !== state.sending?.requestId) return;
    // The rules are the view store's (reduceSend): the box is cleared only of the text now durable.
    const { send, wentTo } = reduceSend(
      { draft: input.value, sending: state.sending, unconfirmed: state.unconfirmed },
      message.ok ? { type: 'sent', requestId, sessionId: message.sessionId } : { type: 'sendFailed', requestId, error: message.error },
    );
    this.keep(send);
    sendButton.removeAttribute('disabled');
    banner.querySelectorAll('.send-error').forEach((e) => e.remove());
    if (wentTo) {
      chips.clear();
      state.replyToTaskId = undefined;
      this.renderReplyTarget();
      this.parts.selectSession(wentTo);
    } else if (!message.ok) {
      banner.appendChild(h('div', { class: 'notice error send-error' }, message.error || word('composerSendFailed')));
    }
    save();
  }

  /** Takes the send's next state into the box and the persisted state. */
  private keep(send: SendState): void {
    const { input, state } = this.parts;
    if (input.value !== send.draft) input.value = send.draft;
    state.draft = send.draft;
    if (send.sending) state.sending = send.sending;
    else delete state.sending;
    if (send.unconfirmed) state.unconfirmed = send.unconfirmed;
    else delete state.unconfirmed;
  }

  private send(): void {
    const { input, sendButton, chips, state, save } = this.parts;
    const { ask } = reduceSend(
      { draft: input.value, sending: state.sending, unconfirmed: state.unconfirmed },
      { type: 'send', newId: `${Date.now()}-${Math.random().toString(36).slice(2)}`, ...(state.replyToTaskId ? { replyToTaskId: state.replyToTaskId } : {}) },
      state.selectedSessionId,
    );
    if (!ask) return;
    sendButton.setAttribute('disabled', '');
    const attachments = chips.list;
    state.sending = { ...ask, ...(attachments.length ? { attachments } : {}) };
    // Saved before it is posted: a view destroyed in between still knows it was sent.
    save();
    this.ask(state.sending);
  }
}
