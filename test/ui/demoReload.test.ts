import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { openTasklaneView, runCommand, screenshotSidebar, sendChatMessage, startUiSession, tasklaneFrame } from './support/workbench';
import type { UiSession } from './support/workbench';

/** The demo's words before its edit waits (test/fixtures/demoModel.ts demoTaskStep). */
const PROPOSING = 'Proposing the edit: review it on the card.';

/** Turns the model server's demo scenario on or off for unscripted requests (its POST /__demo). */
async function demo(ui: UiSession, on: boolean): Promise<void> {
  const response = await fetch(`${ui.model.url}/__demo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ on }) });
  assert.ok(response.ok, `the model server did not turn the demo ${on ? 'on' : 'off'}: ${response.status}`);
}

// Issue 36: the demo (what `npm start` runs) survives a reload mid-task. A message starts the demo
// task; while its edit waits for approval the window is reloaded (Developer: Reload Window); after
// the reload the thread shows the task truthfully, waiting for you with its approval to act on,
// and the words the model said before the reload are in its block once, not lost nor doubled.
// Approving it there lets the task go on and end done.
describe('ui: the demo survives a reload mid-task', function () {
  let ui: UiSession | undefined;
  let failed = false;

  before(async function () {
    ui = await startUiSession({
      name: 'ui-demo-reload',
      // As start.mjs configures the demo: its model id, its one allowlisted command, no charge.
      settings: {
        'tasklane.model.id': 'tasklane-demo',
        'tasklane.approval.allowedCommands': ['npm run build'],
        'tasklane.model.prices': { 'tasklane-demo': { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } },
      },
    });
    await demo(ui, true);
  });
  afterEach(async function () {
    if (this.currentTest?.state !== 'passed') failed = true;
    if (ui) await screenshotSidebar(ui.page, `ui-demo-reload-${this.currentTest?.title ?? 'step'}-end`);
  });
  after(async function () {
    // The shared workbench's next file gets its scripted model back.
    if (ui) await demo(ui, false);
    await ui?.stop({ keep: failed });
  });

  /** How many times the block shows `text` (its rows, the words it said, its summary). */
  const times = (frame: Frame, text: string) =>
    frame
      .locator('#transcript .task-block')
      .evaluateAll((blocks, t) => blocks.map((b) => (b.textContent ?? '').split(t).length - 1).reduce((a, n) => a + n, 0), text);

  it('reloaded while the edit waits: the approval is still there, the words once, and Approve ends it done', async function () {
    assert.ok(ui, 'the UI session did not start');
    const { page } = ui;
    await openTasklaneView(page);
    let frame = await tasklaneFrame(page);
    await sendChatMessage(frame, 'add greetAll to greet.js');
    const block = () => frame.locator('#transcript .task-block').last();
    await block().locator('.block-approval .approve').waitFor({ timeout: 90_000 });
    assert.equal(await times(frame, PROPOSING), 1, 'the words the model said before the reload');

    await runCommand(page, 'Developer: Reload Window');
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await openTasklaneView(page);
    frame = await tasklaneFrame(page, 90_000);
    await block().locator('.block-approval .approve').waitFor({ timeout: 60_000 });
    assert.equal(await block().locator('.block-state').textContent(), 'waiting for you');
    assert.equal(await block().locator('.block-approval').count(), 1, 'one approval to act on');
    assert.equal(await times(frame, PROPOSING), 1, 'the words said before the reload are in the block once after it');

    await block().locator('.block-approval .approve').click();
    await block()
      .locator('.block-state')
      .filter({ hasText: /^done$/ })
      .waitFor({ timeout: 90_000 });
    assert.match((await block().locator('.block-summary').textContent()) ?? '', /Added greetAll/);
  });
});
