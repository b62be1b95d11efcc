import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { seedHistory } from './support/seedHistory';
import { assertOneApprovePerPending } from './support/approvalsShown';
import { listed, newChat, showConversations } from './support/chatView';
import { openTasklaneView, route, screenshotSidebar, sendChatMessage, startSeededUiSession, tasklaneFrame } from './support/workbench';
import type { UiSession } from './support/workbench';

// Issue #21, "the thread has the room": at 1400×900, with 20 conversations in the history, three
// decided proposals and a pending one, the thread keeps at least half of the chat view's height
// and Send stays in view. The history takes none of it: the conversations are listed by the
// History quick pick, not in the Chat view (issue 36). The history is written by the store's own APIs before the window opens
// (as the history test does); the proposals come from a task the scripted model drives.
const SESSIONS = 20;
const step = (n: number) => ({
  oldText: n === 0 ? 'module.exports = { greet };' : `module.exports = { greet }; // ${n}`,
  newText: `module.exports = { greet }; // ${n + 1}`,
});

describe('ui layout: the thread has the room at 900 px', function () {
  let ui: UiSession | undefined;
  let frame: Frame;
  let anyFailed = false;

  before(async function () {
    this.timeout(600_000);
    ui = await startSeededUiSession({ name: 'ui-layout', viewport: { width: 1400, height: 900 } }, async (storageDir) => {
      await seedHistory(storageDir, SESSIONS);
    });
    await openTasklaneView(ui.page);
    frame = await tasklaneFrame(ui.page, 60_000);
  });
  afterEach(function () {
    if (this.currentTest?.state !== 'passed') anyFailed = true;
  });
  after(async () => ui?.stop({ keep: anyFailed }));

  it('with 20 sessions, 3 decided cards and a pending one, the thread has half the view and Send is visible', async function () {
    assert.ok(ui);
    // The store is open (the model line is drawn from it) and its history is there, in History.
    await frame.locator('.model-line', { hasText: 'Model:' }).waitFor({ timeout: 60_000 });
    await showConversations(ui.page);
    const rows = await listed(ui.page);
    assert.match(rows[0] ?? '', new RegExp(`^session ${SESSIONS - 1}\\b`), `History starts ${JSON.stringify(rows.slice(0, 3))}`);
    await ui.page.keyboard.press('Escape');
    const r = route('layout');
    await ui.model.reset();
    await ui.script(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Number the exports', instruction: 'Edit src/greet.js four times', mode: 'simple' } }] },
      ...[0, 1, 2, 3].map((n) => ({ toolCalls: [{ name: 'replace_in_file', arguments: { path: 'src/greet.js', edits: [step(n)] } }] })),
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'Numbered.' } }] },
    ]);
    await newChat(ui.page);
    await sendChatMessage(frame, `number the exports of greet.js ${r}`);
    const block = frame.locator('#transcript .task-block').first();
    await block.waitFor({ timeout: 30_000 });
    // Three proposals decided in the thread, one after the other; the fourth stays pending.
    for (let decided = 0; decided < 3; decided++) {
      const approve = block.getByRole('button', { name: 'Approve the edit to src/greet.js' });
      await approve.waitFor({ timeout: 30_000 });
      await approve.click();
      // A decided proposal is a row in the thread; only what waits offers Approve.
      await block.locator('.step-decision').nth(decided).waitFor({ timeout: 30_000 });
    }
    await block.locator('.block-approval[data-status="pending"]').waitFor({ timeout: 30_000 });
    await block.getByRole('button', { name: 'Approve the edit to src/greet.js' }).waitFor({ timeout: 30_000 });
    assert.equal(await block.locator('.step-decision').count(), 3, 'three decisions in the thread');
    assert.equal(await frame.locator('[data-approval-id]').count(), 1, 'only the pending proposal shows as an approval');
    await assertOneApprovePerPending(frame);
    assert.equal(await frame.locator('#sessions, .session, #session-search').count(), 0, 'no conversation list in the Chat view');

    // Measured in the page (no helper function: the test's transpiler would name it for Node only).
    const measured = await frame.evaluate(() => {
      const send = (document.querySelector('#send') as HTMLElement).getBoundingClientRect();
      const thread = (document.querySelector('#transcript') as HTMLElement).getBoundingClientRect();
      return { view: window.innerHeight, thread: thread.height, send: { top: send.top, bottom: send.bottom, height: send.height } };
    });
    await screenshotSidebar(ui.page, 'ui-layout-900');
    assert.ok(measured.thread >= measured.view * 0.5, `the thread has ${Math.round(measured.thread)} of ${measured.view} px`);
    assert.ok(measured.send.height > 0 && measured.send.top >= 0 && measured.send.bottom <= measured.view, `Send is out of view: ${JSON.stringify(measured)}`);
  });
});
