/**
 * The model's words while a turn runs (src/webview/streamView.ts): a conversation's reply renders
 * as Markdown while it streams, block by block; a task's words stream into its block, not only
 * behind a spinner, and stay there rendered when its turn ends.
 */
import * as assert from 'node:assert/strict';
import { StreamView } from '../../../src/webview/streamView';
import { TaskBlock } from '../../../src/webview/taskBlock';
import { useDom } from './support/dom';
import { fakeHost } from './support/requests';
import { taskView } from './support/views';

describe('webview: words while a turn runs', function () {
  useDom();

  function setUp(shown: string, blocks: Record<string, HTMLElement> = {}) {
    const transcript = document.createElement('section');
    const send = document.createElement('button');
    document.body.append(transcript, send);
    const stream = new StreamView(
      transcript,
      send,
      () => shown,
      async () => undefined,
      (sessionId) => blocks[sessionId],
    );
    const turn = (sessionId: string, turnId: string, running: boolean) => stream.onMessage({ type: 'turnState', sessionId, turnId, running });
    const say = (sessionId: string, turnId: string, text: string) =>
      stream.onMessage({ type: 'streamDelta', sessionId, turnId, delta: { kind: 'text', text } });
    return { transcript, stream, turn, say };
  }

  it('a streaming reply renders its complete blocks as Markdown before it ends', function () {
    const { transcript, turn, say } = setUp('c-1');
    turn('c-1', 'turn-1', true);
    say('c-1', 'turn-1', '## Plan\n\nI will **read** ');
    const bubble = transcript.querySelector('.msg-streaming')!;
    assert.equal(bubble.querySelector('h2')?.textContent, 'Plan', 'the heading is rendered while the reply streams');
    assert.equal(bubble.querySelector('.stream-tail')?.textContent, 'I will **read** ', 'the paragraph forming is text until it is complete');
    say('c-1', 'turn-1', 'the file.\n\nThen ');
    assert.equal(bubble.querySelector('strong')?.textContent, 'read', 'the paragraph rendered once the next block began');
    assert.equal(bubble.querySelector('.stream-tail')?.textContent, 'Then ');
    turn('c-1', 'turn-1', false);
    assert.equal(transcript.querySelector('.msg-streaming'), null, 'the conversation’s bubble goes with its turn (the committed reply takes its place)');
  });

  it('a task’s words stream into its block and stay there, rendered, when its turn ends', function () {
    const block = new TaskBlock(taskView({ id: 't-1', sessionId: 't-1' }), { request: fakeHost().request, openDetails: () => undefined });
    const { transcript, turn, say } = setUp('c-1', { 't-1': block.said });
    transcript.appendChild(block.element);
    turn('t-1', 'turn-7', true);
    say('t-1', 'turn-7', 'I will read `src/greet.js` first.\n\nThen');
    const said = block.element.querySelector('.block-said-area .msg')!;
    assert.ok(said, 'the words are in the block');
    assert.equal(said.getAttribute('aria-busy'), 'true');
    assert.equal(said.querySelector('code')?.textContent, 'src/greet.js', 'rendered as Markdown while it streams');
    assert.equal(transcript.querySelectorAll(':scope > .msg-streaming').length, 0, 'not a bubble of the conversation');
    turn('t-1', 'turn-7', false);
    assert.match(block.element.querySelector('.block-said-area')?.textContent ?? '', /^I will read src\/greet\.js first\.\s*Then\s*$/);
    assert.equal(said.querySelector('.stream-tail'), null, 'its last words are rendered too');
    assert.equal(said.getAttribute('aria-busy'), null, 'no longer streaming');
    // The next turn's words take their place.
    turn('t-1', 'turn-8', true);
    say('t-1', 'turn-8', 'Editing now.');
    assert.equal(block.element.querySelector('.block-said-area')?.textContent, 'Editing now.');
  });

  it('a block drawn while its task’s turn streams shows what was said so far', function () {
    const blocks: Record<string, HTMLElement> = {};
    const { turn, say } = setUp('c-1', blocks);
    turn('t-1', 'turn-1', true);
    say('t-1', 'turn-1', 'Looking at the tests. ');
    const block = new TaskBlock(taskView(), { request: fakeHost().request, openDetails: () => undefined });
    blocks['t-1'] = block.said;
    say('t-1', 'turn-1', 'They pass.');
    assert.equal(block.said.textContent, 'Looking at the tests. They pass.');
  });
});
