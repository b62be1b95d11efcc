import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { settledEnd } from '../../src/core/engine/streaming';
import { until } from '../support/poll';
import {
  openTasklaneView,
  route,
  screenshotSidebar,
  sendChatMessage,
  startUiSession,
  tasklaneFrame,
  transcriptMessages,
  waitForAssistantMessage,
} from './support/workbench';
import type { UiSession } from './support/workbench';

interface Recorded {
  held?: boolean;
  aborted?: boolean;
  chunksSent?: number;
}

/** The first `chunks` pieces (8 characters each) of a send_message call's JSON, decoded as the sidebar shows them. */
const shownAfter = (text: string, chunks: number) => settled((JSON.parse(`${JSON.stringify({ text }).slice(0, chunks * 8)}"}`) as { text: string }).text);
/** What the bubble shows of streamed text: its unfinished last word is held back (streaming.ts). */
const settled = (text: string) => text.slice(0, settledEnd(text));

// One code-server for the file. The scripted model holds its stream open after a few chunks
// (holdAfterChunks) and lets go on POST /__release: the test looks at a reply that has started
// and not ended without any sleep deciding the outcome.
describe('ui streaming: tokens as they arrive, and Stop', function () {
  let ui: UiSession | undefined;
  let frame: Frame;
  let anyFailed = false;

  /** The last model request of the work `marker` once `check` holds for it. */
  function untilRequest(marker: string, check: (r: Recorded) => boolean, what: string): Promise<Recorded> {
    let last: Recorded | undefined;
    return until(
      `the model server to see ${what}`,
      async () => {
        last = (await ui!.requests<Recorded>(marker)).at(-1);
        return last && check(last) ? last : undefined;
      },
      { detail: () => `last request: ${JSON.stringify(last)}` },
    );
  }

  before(async function () {
    ui = await startUiSession({ name: 'ui-streaming' });
    await openTasklaneView(ui.page);
    frame = await tasklaneFrame(ui.page);
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'passed') anyFailed = true;
    if (ui) await screenshotSidebar(ui.page, this.currentTest?.fullTitle() ?? 'ui-streaming');
  });

  after(async function () {
    await ui?.stop({ keep: anyFailed });
  });

  it('shows the tokens of a slow streamed reply before it ends, then the committed reply in its place', async function () {
    assert.ok(ui);
    const reply = `A streamed reply ${Date.now().toString(36)} that arrives in many small pieces, well after its first words.`;
    await ui.model.reset();
    const r = route('stream');
    await ui.script(r, [{ toolCalls: [{ name: 'send_message', arguments: { text: reply } }], holdAfterChunks: 4 }]);
    await sendChatMessage(frame, `Stream me something ${r}`);

    const bubble = frame.locator('#transcript .msg-streaming');
    const early = shownAfter(reply, 4);
    await bubble.filter({ hasText: early }).waitFor({ timeout: 30_000 });
    // While the words are on screen the model is still holding the rest: the reply has not ended.
    const held = await untilRequest(r, (request) => request.held === true, 'the held stream');
    assert.equal(held.chunksSent, 4);
    assert.equal((await bubble.textContent())?.includes(reply), false, 'the bubble already had the whole reply');
    assert.equal(await transcriptMessages(frame, 'assistant', reply).count(), 0, 'the reply was committed before it ended');
    assert.ok(await frame.locator('#stop').isVisible(), 'Stop shows while the turn runs');
    assert.ok(await frame.locator('#send').isHidden(), 'Send is replaced by Stop');
    await screenshotSidebar(ui.page, 'ui-streaming-live');

    await ui.model.release();
    await waitForAssistantMessage(frame, reply);
    await bubble.waitFor({ state: 'detached', timeout: 15_000 });
    await frame.locator('#send').waitFor({ state: 'visible', timeout: 15_000 });
    assert.ok(await frame.locator('#stop').isHidden());
    assert.equal(await transcriptMessages(frame, 'assistant', reply).count(), 1, 'the reply shows once');
  });

  it('follows the end of a growing reply, and stops following once the person scrolls up', async function () {
    assert.ok(ui);
    const lines = Array.from({ length: 120 }, (_, i) => `line ${String(i).padStart(3, '0')}`);
    const reply = lines.join('\n');
    await ui.model.reset();
    // 9-character lines in 8-character chunks: after 80 chunks ~70 lines are out, more than the view holds.
    const r = route('long-list');
    await ui.script(r, [{ text: reply, holdAfterChunks: 80 }]);
    await sendChatMessage(frame, `Give me a long list ${r}`);
    const transcript = frame.locator('#transcript');
    await frame.locator('#transcript .msg-streaming', { hasText: 'line 070' }).waitFor({ timeout: 30_000 });
    await untilRequest(r, (request) => request.held === true, 'the held stream');
    const gap = () => transcript.evaluate((el) => el.scrollHeight - el.clientHeight - el.scrollTop);
    assert.ok((await transcript.evaluate((el) => el.scrollHeight - el.clientHeight)) > 200, 'the reply overflows the view');
    assert.ok((await gap()) <= 24, `the view followed the streamed text to the end (gap ${await gap()} px)`);

    // The person scrolls up to read; the rest of the reply must not pull the view back down.
    await transcript.evaluate((el) => (el.scrollTop = 0));
    await ui.model.release();
    await waitForAssistantMessage(frame, 'line 119');
    assert.equal(await transcript.evaluate((el) => el.scrollTop), 0, 'the view jumped to the end while the person was reading');
  });

  it('Stop in the sidebar ends the turn: Send comes back, the partial reply shows as stopped, the request was aborted', async function () {
    assert.ok(ui);
    const reply = `An answer ${Date.now().toString(36)} that the person will stop long before it is finished, on purpose.`;
    await ui.model.reset();
    const r = route('stop');
    await ui.script(r, [{ toolCalls: [{ name: 'send_message', arguments: { text: reply } }], holdAfterChunks: 5 }]);
    await sendChatMessage(frame, `Say something long ${r}`);

    const partial = shownAfter(reply, 5);
    await frame.locator('#transcript .msg-streaming', { hasText: partial }).waitFor({ timeout: 30_000 });
    await untilRequest(r, (request) => request.held === true, 'the held stream');
    await frame.locator('#stop').click();

    const stopped = frame.locator('#transcript .msg[data-role="assistant"][data-stopped]', { hasText: partial });
    await stopped.waitFor({ timeout: 15_000 });
    assert.equal((await stopped.locator('.msg-text').textContent())?.trim(), partial.trim());
    assert.equal((await stopped.locator('.stopped-mark').textContent())?.trim(), 'stopped');
    await frame.locator('#send').waitFor({ state: 'visible', timeout: 15_000 });
    assert.ok(await frame.locator('#stop').isHidden(), 'Stop goes away with the turn');
    assert.equal(await frame.locator('#transcript .msg-streaming').count(), 0, 'no live bubble is left');
    assert.equal(await transcriptMessages(frame, 'error').count(), 0, 'a stop is not an error');
    const last = await untilRequest(r, (request) => request.aborted === true, 'the request aborted');
    assert.equal(last.chunksSent, 5, 'nothing more was sent after the stop');
    await screenshotSidebar(ui.page, 'ui-streaming-stopped');
  });
});

// The same through VS Code's Language Model API (the fixture provider streams from the scripted
// server): Stop must reach the provider as a cancellation, which closes its HTTP request.
describe('ui streaming through vscode.lm: text as it arrives, and Stop cancels the provider', function () {
  let ui: UiSession | undefined;
  let anyFailed = false;

  before(async function () {
    ui = await startUiSession({ name: 'ui-streaming-lm', provider: 'vscode-lm' });
  });
  afterEach(async function () {
    if (this.currentTest?.state !== 'passed') anyFailed = true;
    if (ui) await screenshotSidebar(ui.page, this.currentTest?.fullTitle() ?? 'ui-streaming-lm');
  });
  after(async function () {
    await ui?.stop({ keep: anyFailed });
  });

  it('shows the first words, then Stop keeps them as a stopped reply and the request is aborted', async function () {
    assert.ok(ui);
    const reply = `Through vscode.lm ${Date.now().toString(36)}: words that keep coming until someone stops them.`;
    await ui.model.reset();
    const r = route('lm-stop');
    await ui.script(r, [{ text: reply, holdAfterChunks: 3 }]);
    await openTasklaneView(ui.page);
    const frame = await tasklaneFrame(ui.page);
    await sendChatMessage(frame, `Talk to me through vscode.lm ${r}`);

    const partial = settled(reply.slice(0, 3 * 8));
    await frame.locator('#transcript .msg-streaming', { hasText: partial }).waitFor({ timeout: 30_000 });
    await frame.locator('#stop').click();
    const stopped = frame.locator('#transcript .msg[data-role="assistant"][data-stopped]', { hasText: partial });
    await stopped.waitFor({ timeout: 15_000 });
    assert.equal((await stopped.locator('.msg-text').textContent())?.trim(), partial.trim());
    await frame.locator('#send').waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal(await transcriptMessages(frame, 'error').count(), 0, 'a stop is not an error');
    const session = ui;
    const last = await until("the provider's request to be aborted", async () => {
      const request = (await session.requests<Recorded>(r)).at(-1);
      return request?.aborted ? request : undefined;
    });
    assert.equal(last.chunksSent, 3);
  });
});
