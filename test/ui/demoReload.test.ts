import * as assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import { openTasklaneView, route, runCommand, screenshotSidebar, sendChatMessage, startUiSession, tasklaneFrame } from './support/workbench';
import type { UiSession } from './support/workbench';
import { until } from '../support/poll';

/** The demo's words before its edit waits (test/fixtures/demoModel.ts demoTaskStep). */
const PROPOSING = 'Proposing the edit: review it on the card.';

/**
 * Shows the Chat view by its command: after a reload the activity bar's item can read as not
 * selected for a moment, and clicking it then would hide the side bar instead.
 */
async function showChat(page: Page): Promise<void> {
  await runCommand(page, 'Tasklane: Focus on Chat View');
}

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
    await showChat(page);
    frame = await tasklaneFrame(page, 90_000);
    await block().locator('.block-approval .approve').waitFor({ timeout: 60_000 });
    assert.equal(await block().locator('.block-state').textContent(), 'waiting for you');
    assert.equal(await block().locator('.block-approval').count(), 1, 'one approval to act on');
    assert.equal(await times(frame, PROPOSING), 1, 'the words said before the reload are in the block once after it');

    await block().locator('.block-approval .approve').click();
    await block()
      .locator('.block-state')
      .filter({ hasText: /^done, not checked$/ })
      .waitFor({ timeout: 90_000 });
    assert.match((await block().locator('.block-summary').textContent()) ?? '', /Added greetAll/);
  });

  it('reloaded while a task’s turn streams: the turn runs again and its words are in the block once', async function () {
    assert.ok(ui, 'the UI session did not start');
    const { page } = ui;
    // A scripted task (the demo cannot hold a stream): its second turn speaks slowly and is held
    // mid-way; the reload cuts it, the restored task asks again and gets the same turn, whole.
    const r = route('reload-stream');
    const words = 'Reading the module before changing it, so the edit fits what is there.';
    const reading = { text: words, toolCalls: [{ name: 'read_file', arguments: { path: 'src/greet.js' } }] };
    await ui.script(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Read greet', instruction: 'Read src/greet.js and say what it exports', mode: 'simple' } }] },
      { ...reading, holdAfterChunks: 3 },
      reading,
      // Held too, so the block is looked at between the turn that ran again and the task's end.
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'It exports greet.' } }], holdAfterChunks: 1 },
    ]);
    await showChat(page);
    let frame = await tasklaneFrame(page);
    await sendChatMessage(frame, `read greet ${r}`);
    const block = () => frame.locator('#transcript .task-block', { hasText: 'Read greet' });
    await block().locator('.block-said-area .msg').waitFor({ timeout: 60_000 });

    await runCommand(page, 'Developer: Reload Window');
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await showChat(page);
    frame = await tasklaneFrame(page, 90_000);
    await block().locator('.step', { hasText: 'Read src/greet.js' }).waitFor({ timeout: 90_000 });
    await frame.waitForFunction((w) => document.querySelector('#transcript .block-said-area')?.textContent?.includes(w), words, { timeout: 30_000 });
    assert.equal(await times(frame, words), 1, 'the words of the turn, once');
    // Released only once the task's last turn is held: a release before its request reaches the
    // hold opens nothing, and that turn would then wait for ever (the words show while the turn
    // that ran again still streams, before the task asks for its next turn).
    await until('the task_end turn to be held', async () => {
      const requests = await ui!.requests<{ held?: boolean }>(r);
      return requests.length >= 4 && requests.at(-1)?.held === true;
    });
    await ui.model.release();
    await block()
      .locator('.block-state')
      .filter({ hasText: /^done$/ })
      .waitFor({ timeout: 90_000 });
    assert.equal(await times(frame, 'It exports greet.'), 1, 'the summary once');
    // The words of the cut turn were never committed; the turn that ran again said them once.
    const rows = await block().locator('.step-text').allTextContents();
    assert.equal(rows.filter((t) => t.startsWith('Read src/greet.js')).length, 1, `one read, not two: ${rows.join(' | ')}`);
  });
});
