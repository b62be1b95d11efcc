import * as assert from 'node:assert/strict';
import { openTasklaneView, route, screenshotSidebar, sendChatMessage, startUiSession, tasklaneFrame, waitForTaskBlock } from './support/workbench';
import type { UiSession } from './support/workbench';

// A budget pause continued from the sidebar: with tasklane.budget.maxActionsPerTask = 2 a scripted
// task that keeps reading files pauses, its card shows Continue / Cancel, and Continue resumes it.
describe('ui: a task paused by its action budget is continued from the sidebar', function () {
  let ui: UiSession | undefined;
  let anyFailed = false;

  before(async function () {
    ui = await startUiSession({ name: 'ui-budget', settings: { 'tasklane.budget.maxActionsPerTask': 2 } });
  });
  afterEach(function () {
    if (this.currentTest?.state !== 'passed') anyFailed = true;
  });
  after(async function () {
    await ui?.stop({ keep: anyFailed });
  });

  it('pauses at the limit, shows Continue/Cancel, and Continue lets the task finish', async function () {
    assert.ok(ui);
    await ui.model.reset();
    const r = route('budget');
    await ui.script(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Budget demo', instruction: 'Read files', mode: 'simple' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'CHANGELOG.md' } }] },
      // After Continue:
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'Finished after the budget was raised' } }] },
    ]);
    await openTasklaneView(ui.page);
    const frame = await tasklaneFrame(ui.page);
    await sendChatMessage(frame, `read the files ${r}`);
    // The task's block in the conversation carries its counters and its gestures.
    const card = await waitForTaskBlock(frame);
    const continueButton = card.locator('.continue-task');
    await continueButton.waitFor({ state: 'visible', timeout: 30_000 });
    // One word for ending a task, the one its state then shows ("cancelled"): no "Abort" beside "Cancel".
    assert.equal(await card.locator('.cancel-task').textContent(), 'Cancel', 'Cancel is offered next to Continue');
    assert.equal(await card.getByText('Abort').count(), 0, 'no Abort anywhere on the card');
    assert.equal(await card.locator('.block-head .codicon-debug-pause').count(), 1, "the state's icon is drawn from the codicon font");
    assert.match((await card.locator('.pause-reason').textContent()) ?? '', /budget/i);
    assert.equal(await card.locator('.block-state').textContent(), 'paused');
    await screenshotSidebar(ui.page, 'ui-budget-1-paused');
    const requestsBefore = (await ui.requests(r)).length;

    await continueButton.click();
    await card.locator('.block-state', { hasText: /^done$/ }).waitFor({ timeout: 30_000 });
    await screenshotSidebar(ui.page, 'ui-budget-2-continued');
    assert.ok((await ui.requests(r)).length > requestsBefore, 'the task called the model again after Continue');
    assert.equal(await card.locator('.continue-task').count(), 0, 'Continue is gone once the task runs again');
  });

  it("a running task's card updates after each action around the same Cancel button, and one click cancels", async function () {
    assert.ok(ui);
    await ui.model.reset();
    const r = route('cancel');
    await ui.script(r, [
      // A task already exists (the test before): the router hears the new message first.
      { toolCalls: [{ name: 'route_message', arguments: { decision: 'new', reason: 'a new request' } }] },
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Cancel demo', instruction: 'Read files', mode: 'simple' } }] },
      { delayMs: 1500, toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
      // Slow, so the task is still running when the person cancels.
      { delayMs: 20_000, toolCalls: [{ name: 'read_file', arguments: { path: 'CHANGELOG.md' } }] },
    ]);
    const frame = await tasklaneFrame(ui.page);
    await sendChatMessage(frame, `read more files ${r}`);
    // The view follows the message to the conversation it started: the task's block is drawn there.
    const card = frame.locator('#transcript .task-block', { hasText: 'Cancel demo' });
    const cancel = card.locator('.cancel-task');
    await cancel.waitFor({ state: 'visible', timeout: 30_000 });
    // Mark the button on screen, then let the card change (its action counter) under it.
    await cancel.evaluate((el) => el.setAttribute('data-probe', 'kept'));
    const counters = (await card.locator('.counters').textContent()) ?? '';
    await frame.waitForFunction(
      (before) => {
        const now = [...document.querySelectorAll('#transcript .task-block')]
          .find((c) => c.textContent?.includes('Cancel demo'))
          ?.querySelector('.counters')?.textContent;
        return now !== undefined && now !== before;
      },
      counters,
      { timeout: 30_000 },
    );
    assert.equal(await card.locator('.cancel-task[data-probe="kept"]').count(), 1, 'the block update replaced the Cancel button');
    await cancel.click();
    await card.locator('.block-state', { hasText: /^cancelled$/ }).waitFor({ timeout: 30_000 });
  });
});
