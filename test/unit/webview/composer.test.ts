import * as assert from 'node:assert/strict';
import type { HostMessage, WebviewMessage } from '../../../src/shared/protocol';
import { AttachmentChips } from '../../../src/webview/attachments';
import { Composer, type ComposerState } from '../../../src/webview/composer';
import { useDom } from './support/dom';

type SendResult = Extract<HostMessage, { type: 'sendResult' }>;

/**
 * One webview's life: a composer over the state the view persists (VS Code's getState/setState,
 * here a JSON copy, as it is across a hide/show or a reload).
 */
function view(stored: string | undefined) {
  const state: ComposerState = stored ? (JSON.parse(stored) as ComposerState) : {};
  const posted: WebviewMessage[] = [];
  const selected: string[] = [];
  let saved = JSON.stringify(state);
  const input = document.createElement('textarea');
  const sendButton = document.createElement('button');
  const composer = new Composer({
    input,
    sendButton,
    replyTarget: document.createElement('div'),
    banner: document.createElement('div'),
    chips: new AttachmentChips(document.createElement('div')),
    post: (message) => posted.push(message),
    state,
    save: () => (saved = JSON.stringify(state)),
    task: () => undefined,
    selectSession: (id) => selected.push(id),
  });
  composer.listen();
  const type = (text: string) => {
    input.value = text;
    input.dispatchEvent(new Event('input'));
  };
  const enter = () => input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
  return { composer, input, sendButton, posted, selected, type, enter, stored: () => saved };
}

const sends = (posted: WebviewMessage[]) => posted.filter((m): m is Extract<WebviewMessage, { type: 'send' }> => m.type === 'send');

describe('webview: the composer across a hide/show or reload', () => {
  useDom();

  it('a send whose answer the old view never got is re-posted with its id, then clears the box once', () => {
    const first = view(undefined);
    first.type('book me a flight');
    first.enter();
    const [sent] = sends(first.posted);
    assert.equal(sent.text, 'book me a flight');
    // The view is destroyed before the host's sendResult arrives.
    const second = view(first.stored());
    assert.equal(second.input.value, 'book me a flight', 'the text is not lost');
    second.enter();
    assert.equal(sends(second.posted).length, 0, 'Enter does not send it a second time while it is in flight');
    second.composer.resume();
    assert.equal(second.sendButton.hasAttribute('disabled'), true);
    assert.deepEqual(sends(second.posted), [sent], 'the same send, same request id (the host answers it once)');
    second.composer.onSendResult({ type: 'sendResult', requestId: sent.requestId, ok: true, sessionId: 's-1' } satisfies SendResult);
    assert.equal(second.input.value, '');
    assert.deepEqual(second.selected, ['s-1'], 'the view goes to the conversation the message went to');
    // Shown again: nothing comes back, nothing is sent.
    const third = view(second.stored());
    third.composer.resume();
    assert.equal(third.input.value, '');
    third.enter();
    assert.equal(sends(third.posted).length, 0);
  });

  it('a re-send of the same text after an unconfirmed failure keeps its request id', () => {
    const v = view(undefined);
    v.type('hello');
    v.enter();
    const [sent] = sends(v.posted);
    v.composer.onSendResult({ type: 'sendResult', requestId: sent.requestId, ok: false, error: 'Not saved yet: disk full.' });
    assert.equal(v.input.value, 'hello', 'the text stays in the box');
    const again = view(v.stored());
    again.enter();
    assert.equal(sends(again.posted)[0].requestId, sent.requestId);
    again.composer.onSendResult({ type: 'sendResult', requestId: sent.requestId, ok: true, sessionId: 's-1' });
    again.type('something else');
    again.enter();
    assert.notEqual(sends(again.posted)[1].requestId, sent.requestId, 'a new message is a new request');
  });
});
