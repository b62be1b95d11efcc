import * as assert from 'node:assert/strict';
import { runCommand, startUiSession } from './support/workbench';
import type { UiSession } from './support/workbench';

// Review 2026-12c finding 2 on the real workbench: VS Code turns `[label](command:…)` in a
// notification's message into a one-click command. A run link whose id carries one (a web page
// writes the id) must show a warning with no link in it.
describe('ui: a hostile link id makes no clickable link in a notification', function () {
  let ui: UiSession | undefined;
  let failed = false;

  before(async function () {
    ui = await startUiSession({ name: 'ui-notification-links' });
  });
  afterEach(function () {
    if (this.currentTest?.state !== 'passed') failed = true;
  });
  after(async function () {
    await ui?.stop({ keep: failed });
  });

  it('a run link whose id carries [x](command:workbench.action.terminal.new) shows a warning without a link', async function () {
    assert.ok(ui, 'the UI session did not start');
    const { page } = ui;
    const id = '8f3a2c. [x](command:workbench.action.terminal.new)';
    await runCommand(page, 'Tasklane: Open Approval Link (from an escalation)');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(`vscode://tasklane.tasklane/run?id=${encodeURIComponent(id)}`);
    await page.keyboard.press('Enter');
    const text = /there is no chore run/;
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
    const listed = page.locator('.notifications-center .notification-list-item', { hasText: text }).first();
    await Promise.any([toast.waitFor({ state: 'visible', timeout: 30_000 }), listed.waitFor({ state: 'visible', timeout: 30_000 })]);
    const notification = (await toast.isVisible()) ? toast : listed;
    const message = notification.locator('.notification-list-item-message');
    assert.equal(await message.locator('a').count(), 0, `a link in: ${await message.innerText()}`);
    assert.doesNotMatch(await message.innerText(), /command:workbench/);
  });
});
