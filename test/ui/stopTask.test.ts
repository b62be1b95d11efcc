import * as assert from 'node:assert/strict';
import { until } from '../support/poll';
import { openTasklaneView, route, screenshotSidebar, sendChatMessage, startUiSession, tasklaneFrame, waitForTaskBlock } from './support/workbench';
import type { UiSession } from './support/workbench';
import { listed, showConversations } from './support/chatView';

interface Recorded {
  held?: boolean;
}

// Issue #36, "the thread in motion": a working task's words stream into its block, and Stop on the
// block pauses the task after its current step (the step's action still runs); Continue resumes it.
// The scripted model holds the task's step open after a few chunks (holdAfterChunks) until released.
describe('ui: Stop on a working task', function () {
  let ui: UiSession | undefined;
  let anyFailed = false;

  before(async function () {
    ui = await startUiSession({ name: 'ui-stop-task' });
  });
  afterEach(function () {
    if (this.currentTest?.state !== 'passed') anyFailed = true;
  });
  after(async function () {
    await ui?.stop({ keep: anyFailed });
  });

  it('streams the task’s words into its block; Stop shows at once, pauses after the step, Continue resumes', async function () {
    assert.ok(ui);
    await ui.model.reset();
    const r = route('stop-task');
    await ui.script(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Stop demo', instruction: 'Read the readme', mode: 'simple' } }] },
      {
        text: 'I will **read** the readme first.\n\nThen I look at the tests.',
        toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }],
        holdAfterChunks: 6,
      },
      // After Continue:
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'Read it after a Stop' } }] },
    ]);
    await openTasklaneView(ui.page);
    const frame = await tasklaneFrame(ui.page);
    await sendChatMessage(frame, `read the readme ${r}`);
    const block = await waitForTaskBlock(frame);
    // The words while it works are in its block, rendered as Markdown while the step is held.
    await block.locator('.block-said-area strong', { hasText: 'read' }).waitFor({ timeout: 30_000 });
    await until('the task step to be held', async () => (await ui!.requests<Recorded>(r)).at(-1)?.held === true);
    const requestsAtStop = (await ui.requests(r)).length;

    const stop = block.locator('.stop-task');
    await stop.click();
    assert.equal(await block.locator('.block-gesture').textContent(), 'Stops after its current step.', 'the block says it at once');
    assert.equal(await block.locator('.stop-task').count(), 0, 'Stop is not offered twice');
    await screenshotSidebar(ui.page, 'ui-stop-task-1-stopping');

    await ui.model.release();
    await block.locator('.block-state', { hasText: /^paused$/ }).waitFor({ timeout: 30_000 });
    assert.match((await block.locator('.pause-reason').textContent()) ?? '', /You stopped the task/);
    assert.equal((await ui.requests(r)).length, requestsAtStop, 'no model call after Stop');
    // History does not list it as waiting for you: a task the person stopped waits for nothing.
    await showConversations(ui.page);
    const rows = await listed(ui.page);
    const row = rows.find((label) => label.startsWith('read the readme'));
    assert.ok(row, `History lists ${JSON.stringify(rows)}`);
    assert.doesNotMatch(row, /waiting for you/);
    await ui.page.keyboard.press('Escape');
    await screenshotSidebar(ui.page, 'ui-stop-task-2-paused');

    await block.locator('.continue-task').click();
    await block.locator('.block-state', { hasText: /^done$/ }).waitFor({ timeout: 30_000 });
    assert.equal((await ui.requests(r)).length, requestsAtStop + 1, 'Continue ran the next step');
  });
});
