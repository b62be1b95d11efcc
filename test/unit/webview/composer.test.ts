import * as assert from 'node:assert/strict';
import type { SidebarParams } from '../../../src/shared/sidebarApi';
import { AttachmentChips } from '../../../src/webview/attachments';
import { Composer, type ComposerState } from '../../../src/webview/composer';
import { useDom } from './support/dom';
import { mulberry32 } from '../../support/seededRandom';
import { fakeHost } from './support/requests';

/**
 * One webview's life: a composer over the state the view persists (VS Code's getState/setState,
 * here a JSON copy, as it is across a hide/show or a reload).
 */
function view(stored: string | undefined) {
  const state: ComposerState = stored ? (JSON.parse(stored) as ComposerState) : {};
  const host = fakeHost();
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
    request: host.request,
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
  /** The host's answer to this page's send of `requestId`: written (where it went) or not (why). */
  const answer = async (requestId: string, outcome: { ok: true; sessionId: string } | { ok: false; error: string }) => {
    if (outcome.ok) host.answer('send', { sessionId: outcome.sessionId }, { requestId });
    else host.fail('send', outcome.error, { requestId });
    await host.settled();
  };
  return { composer, input, sendButton, host, answer, selected, type, enter, stored: () => saved };
}

/** The sends a page made, as their params. */
const sends = (page: { host: ReturnType<typeof fakeHost> }) => page.host.calls('send').map((c) => c.params as SidebarParams['send']);

describe('webview: the composer across a hide/show or reload', () => {
  useDom();

  it('a send whose answer the old view never got is re-posted with its id, then clears the box once', async () => {
    const first = view(undefined);
    first.type('book me a flight');
    first.enter();
    const [sent] = sends(first);
    assert.equal(sent.text, 'book me a flight');
    // The view is destroyed before the host's sendResult arrives.
    const second = view(first.stored());
    assert.equal(second.input.value, 'book me a flight', 'the text is not lost');
    second.enter();
    assert.equal(sends(second).length, 0, 'Enter does not send it a second time while it is in flight');
    second.composer.resume();
    assert.equal(second.sendButton.hasAttribute('disabled'), true);
    assert.deepEqual(sends(second), [sent], 'the same send, same request id (the host answers it once)');
    await second.answer(sent.requestId, { ok: true, sessionId: 's-1' });
    assert.equal(second.input.value, '');
    assert.deepEqual(second.selected, ['s-1'], 'the view goes to the conversation the message went to');
    // Shown again: nothing comes back, nothing is sent.
    const third = view(second.stored());
    third.composer.resume();
    assert.equal(third.input.value, '');
    third.enter();
    assert.equal(sends(third).length, 0);
  });

  it('a re-send of the same text after an unconfirmed failure keeps its request id', async () => {
    const v = view(undefined);
    v.type('hello');
    v.enter();
    const [sent] = sends(v);
    await v.answer(sent.requestId, { ok: false, error: 'Not saved yet: disk full.' });
    assert.equal(v.input.value, 'hello', 'the text stays in the box');
    const again = view(v.stored());
    again.enter();
    assert.equal(sends(again)[0].requestId, sent.requestId);
    await again.answer(sent.requestId, { ok: true, sessionId: 's-1' });
    again.type('something else');
    again.enter();
    assert.notEqual(sends(again)[1].requestId, sent.requestId, 'a new message is a new request');
  });
});

/**
 * Seeded random interleavings of what the person does (type, Enter, hide/show or reload the view)
 * and what the host does (write the message and answer; fail before writing; fail after writing,
 * as a full disk does; answer a view that is gone). The host is the engine's promise in small: a
 * request id it has written is written once (engine/sendPath.ts). Invariants: nothing the person
 * sent is lost (written, or still in the box), nothing is written twice, and a view never shows a
 * send in flight with a Send that could send it again. A failing seed replays with COMPOSER_SEED=<seed>.
 */
describe('webview: the composer under random interleavings', () => {
  useDom();
  const seeds = process.env.COMPOSER_SEED ? [Number(process.env.COMPOSER_SEED)] : Array.from({ length: 40 }, (_, i) => i + 1);

  for (const seed of seeds) {
    it(`seed ${seed}`, async () => {
      const random = mulberry32(seed);
      const written = new Map<string, string>(); // request id → text
      const writes: string[] = [];
      let v = view(undefined);
      let inbox: Array<() => Promise<void>> = []; // the host's answers, not yet delivered to this view
      let handled = 0;
      let typed = 0;
      const host = () => {
        const sent = sends(v).slice(handled);
        handled += sent.length;
        const target = v;
        for (const send of sent) {
          const roll = random();
          let ok = true;
          if (written.has(send.requestId)) ok = true;
          else if (roll < 0.15)
            ok = false; // refused before anything was written
          else {
            written.set(send.requestId, send.text);
            writes.push(send.text);
            ok = roll >= 0.3; // 0.15–0.3: written, but the commit was reported failed
          }
          inbox.push(async () => {
            if (target !== v) return;
            const inBox = v.input.value;
            await v.answer(send.requestId, ok ? { ok, sessionId: 's-1' } : { ok, error: 'Not saved yet' });
            // No lost draft: the box is emptied only of a text that is written.
            if (inBox !== '' && v.input.value === '')
              assert.ok([...written.values()].includes(inBox.trim()), `seed ${seed}: "${inBox}" was cleared but never sent`);
          });
        }
      };
      const check = (when: string) => {
        const { sending } = JSON.parse(v.stored()) as ComposerState;
        if (sending) assert.equal(v.sendButton.hasAttribute('disabled') || !handled, true, `${when}: a send in flight with Send enabled`);
        assert.equal(new Set(writes).size, writes.length, `${when}: a message was written twice (${writes.join(' | ')})`);
      };
      for (let step = 0; step < 60; step++) {
        const roll = random();
        if (roll < 0.25) v.type(`message ${++typed}`);
        else if (roll < 0.5) v.enter();
        else if (roll < 0.6) {
          // Hide/show or reload: a new page from the stored state; answers to the old one are lost.
          v = view(v.stored());
          handled = 0;
          inbox = [];
          v.composer.resume();
        } else if (roll < 0.8) host();
        else for (const deliver of inbox.splice(0, Math.ceil(random() * inbox.length))) await deliver();
        check(`seed ${seed}, step ${step}`);
      }
      // The person keeps sending what is in the box until it is empty and everything is answered.
      for (let round = 0; round < 20 && (v.input.value !== '' || inbox.length || JSON.parse(v.stored()).sending); round++) {
        if (!JSON.parse(v.stored()).sending) v.enter();
        host();
        for (const deliver of inbox.splice(0)) await deliver();
      }
      check(`seed ${seed}, end`);
      assert.equal(v.input.value, '', `seed ${seed}: the box never emptied`);
    });
  }
});
