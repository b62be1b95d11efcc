import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { openTasklaneView, screenshotSidebar, sendChatMessage, startUiSession, tasklaneFrame, transcriptMessages, waitForAssistantMessage } from './support/workbench';
import type { UiSession } from './support/workbench';

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
    await ui.model.script([{ text: reply }]);

    await openTasklaneView(ui.page);
    const frame = await tasklaneFrame(ui.page);
    await sendChatMessage(frame, 'Hello from the UI smoke test');

    await transcriptMessages(frame, 'user', 'Hello from the UI smoke test').first().waitFor({ timeout: 15_000 });
    const message = await waitForAssistantMessage(frame, reply);
    assert.match((await message.textContent()) ?? '', new RegExp(reply));

    // The reply came from the model server, and the user's words reached it.
    const requests = JSON.stringify(await ui.model.requests());
    assert.ok(requests.includes('Hello from the UI smoke test'), 'the model server never received the message');

    const file = await screenshotSidebar(ui.page, 'ui-smoke-reply');
    assert.ok(fs.statSync(file).size > 1000, `${file} looks empty`);
  });
});
