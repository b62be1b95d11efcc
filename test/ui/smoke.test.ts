import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import {
  openTasklaneView,
  route,
  runCommand,
  screenshotSidebar,
  sendChatMessage,
  startUiSession,
  tasklaneFrame,
  transcriptMessages,
  waitForAssistantMessage,
} from './support/workbench';
import type { UiSession } from './support/workbench';
import { answer, pick } from './support/quickInput';

// One code-server for the whole file: a cold start costs ~15 s.
describe('ui smoke: chatting in the Tasklane sidebar', function () {
  let ui: UiSession | undefined;
  let anyFailed = false;

  before(async function () {
    ui = await startUiSession({ name: 'ui-smoke' });
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'passed') anyFailed = true;
    // A screenshot on every run, pass or fail: it is the first thing to look at when one breaks.
    if (ui) await screenshotSidebar(ui.page, this.currentTest?.fullTitle() ?? 'ui-smoke');
  });

  after(async function () {
    // Keep code-server's logs when something failed.
    await ui?.stop({ keep: anyFailed });
  });

  it('sends a message from the sidebar and shows the scripted reply', async function () {
    assert.ok(ui);
    const reply = `Scripted reply ${Date.now().toString(36)}`;
    await ui.model.reset();
    const r = route('smoke');
    await ui.script(r, [{ text: reply }]);

    await openTasklaneView(ui.page);
    const frame = await tasklaneFrame(ui.page);
    await sendChatMessage(frame, `Hello from the UI smoke test ${r}`);

    await transcriptMessages(frame, 'user', 'Hello from the UI smoke test').first().waitFor({ timeout: 15_000 });
    const message = await waitForAssistantMessage(frame, reply);
    assert.match((await message.textContent()) ?? '', new RegExp(reply));

    // The reply came from the model server, and the user's words reached it.
    const requests = JSON.stringify(await ui.model.requests());
    assert.ok(requests.includes('Hello from the UI smoke test'), 'the model server never received the message');

    const file = await screenshotSidebar(ui.page, 'ui-smoke-reply');
    assert.ok(fs.statSync(file).size > 1000, `${file} looks empty`);
  });

  it('restores the conversation and an unsent draft after the view is hidden and shown again', async function () {
    assert.ok(ui);
    await openTasklaneView(ui.page);
    let frame = await tasklaneFrame(ui.page);
    await transcriptMessages(frame, 'assistant').first().waitFor({ timeout: 15_000 });
    const before = await transcriptMessages(frame, 'assistant').allTextContents();
    const draft = `half-typed thought ${Date.now().toString(36)}`;
    const textarea = frame.locator('#chat-input textarea');
    await textarea.click();
    await textarea.fill(draft);

    // Another view container takes the side bar: VS Code disposes the hidden webview's page.
    await runCommand(ui.page, 'View: Show Explorer');
    await ui.page
      .locator('.part.sidebar .composite.title', { hasText: /Explorer/i })
      .first()
      .waitFor({ timeout: 15_000 });
    await openTasklaneView(ui.page);
    const hidden = frame;
    frame = await tasklaneFrame(ui.page);
    assert.ok(hidden.isDetached() && frame !== hidden, 'the webview was kept alive, so this proves nothing about restoring');

    await transcriptMessages(frame, 'assistant').first().waitFor({ timeout: 15_000 });
    assert.deepEqual(await transcriptMessages(frame, 'assistant').allTextContents(), before, 'the transcript did not come back');
    assert.equal(await frame.locator('#chat-input').evaluate((el) => (el as HTMLElement & { value: string }).value), draft, 'the draft was lost');
    await screenshotSidebar(ui.page, 'ui-smoke-restored');
  });

  it('a model change redraws the model line only: the conversation on screen stays as it is', async function () {
    assert.ok(ui);
    const frame = await tasklaneFrame(ui.page);
    const shown = transcriptMessages(frame, 'assistant').first();
    await shown.waitFor({ timeout: 15_000 });
    // A mark on the element on screen: a full redraw of the transcript would drop it.
    await shown.evaluate((el) => el.setAttribute('data-probe', 'kept'));
    // The person switches model through the palette, as they would: same server, another model id.
    await runCommand(ui.page, 'Tasklane: Select Model');
    await pick(ui.page, 'choose a model provider', 'OpenAI-compatible server');
    await answer(ui.page, 'Base URL', ui.model.openaiBaseUrl);
    assert.equal(await answer(ui.page, 'Model id', 'scripted-renamed'), 'scripted', 'the current model id is suggested');
    await answer(ui.page, 'API key', '');
    await frame.locator('.model-line', { hasText: 'scripted-renamed' }).waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('#transcript .msg[data-probe="kept"]').count(), 1, 'the model change redrew the whole conversation');
  });
});
