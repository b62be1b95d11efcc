import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { openTasklaneView, route, screenshotSidebar, sendChatMessage, startUiSession, tasklaneFrame, transcriptMessages } from './support/workbench';
import type { UiSession } from './support/workbench';

const EDIT = { oldText: 'module.exports = { greet };', newText: 'module.exports = { greet, hello: greet };' };

// The review's moments in motion (issue 36): an answer typed in the conversation reaches the task
// that asked; a decision shows at once; a view hidden and shown again does not bring a sent
// message back or send it twice.
describe('ui: the thread in motion', function () {
  let ui: UiSession | undefined;
  let frame: Frame;
  let anyFailed = false;

  before(async function () {
    ui = await startUiSession({ name: 'ui-in-motion' });
    await openTasklaneView(ui.page);
    frame = await tasklaneFrame(ui.page);
  });
  afterEach(async function () {
    if (this.currentTest?.state !== 'passed') anyFailed = true;
    if (ui) await screenshotSidebar(ui.page, `ui-in-motion-${this.currentTest?.title ?? 'step'}-end`);
  });
  after(async function () {
    await ui?.stop({ keep: anyFailed });
  });

  const session = (): UiSession => {
    assert.ok(ui, 'the UI session did not start');
    return ui;
  };
  const block = () => frame.locator('#transcript .task-block').last();
  const state = () => block().locator('.block-state');

  it('an answer typed in the conversation reaches the waiting task’s next model request', async function () {
    const r = route('answer');
    await session().script(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Pick a flight', instruction: 'Book a flight', mode: 'simple' } }] },
      { toolCalls: [{ name: 'ask_user', arguments: { question: 'The cheaper flight or the faster one?' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'Booked the cheaper flight.' } }] },
    ]);
    await sendChatMessage(frame, `book me a flight ${r}`);
    await state()
      .filter({ hasText: /^waiting for you$/ })
      .waitFor({ timeout: 60_000 });
    await sendChatMessage(frame, 'the cheaper one');
    await state()
      .filter({ hasText: /^done$/ })
      .waitFor({ timeout: 60_000 });
    const last = JSON.stringify((await session().requests<{ body: unknown }>(r)).at(-1)?.body);
    assert.match(last, /The cheaper flight or the faster one\?/);
    assert.match(last, /the cheaper one/);
    await transcriptMessages(frame, 'event', 'Sent to “Pick a flight” as its answer.').waitFor({ timeout: 15_000 });
  });

  it('Approve on the block: the block leaves "waiting for you" within a second', async function () {
    const r = route('approve');
    await session().script(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Add hello', instruction: 'Export hello from src/greet.js', mode: 'simple' } }] },
      { toolCalls: [{ name: 'replace_in_file', arguments: { path: 'src/greet.js', edits: [EDIT] } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'Exported hello.' } }] },
    ]);
    await sendChatMessage(frame, `export hello ${r}`);
    const approve = block().getByRole('button', { name: 'Approve the edit to src/greet.js' });
    await approve.waitFor({ timeout: 60_000 });
    await state()
      .filter({ hasText: /^waiting for you$/ })
      .waitFor({ timeout: 15_000 });
    const clicked = Date.now();
    await approve.click();
    await frame.waitForFunction(
      () => {
        const blocks = document.querySelectorAll('#transcript .task-block');
        return blocks[blocks.length - 1]?.querySelector('.block-state')?.textContent !== 'waiting for you';
      },
      undefined,
      { timeout: 1_000 },
    );
    const took = Date.now() - clicked;
    assert.ok(took <= 1_000, `the block said "waiting for you" for ${took} ms after Approve`);
    assert.equal(await block().locator('.block-approval').count(), 0, 'one Approve per approval: it left the block');
    await state()
      .filter({ hasText: /^done, not checked$/ })
      .waitFor({ timeout: 60_000 });
  });

  it('hiding and showing the view never brings a sent message back nor sends it twice', async function () {
    const r = route('reshow');
    await session().script(r, [{ toolCalls: [{ name: 'send_message', arguments: { text: 'Answered once.' } }] }]);
    await sendChatMessage(frame, `say something ${r}`);
    await transcriptMessages(frame, 'assistant', 'Answered once.').waitFor({ timeout: 60_000 });
    const page = session().page;
    // Toggle the side bar off and on: the view is hidden, then shown again (a new page).
    await page.keyboard.press('Control+B');
    await page.locator('.part.sidebar').waitFor({ state: 'hidden', timeout: 15_000 });
    await page.keyboard.press('Control+B');
    frame = await tasklaneFrame(page);
    await transcriptMessages(frame, 'assistant', 'Answered once.').waitFor({ timeout: 30_000 });
    const box = frame.locator('#chat-input textarea');
    assert.equal(await box.inputValue(), '', 'the sent message came back into the box');
    assert.equal(await transcriptMessages(frame, 'user', `say something ${r}`).count(), 1);
    assert.equal((await session().requests(r)).length, 1, 'sent once');
  });
});
