import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { route, screenshotSidebar, startUiSession, tasklaneFrame } from './support/workbench';
import type { UiSession } from './support/workbench';

const EDIT = { oldText: 'module.exports = { greet };', newText: 'module.exports = { greet, hello: greet };' };
/** The Chat view's focus keybinding (package.json `contributes.keybindings`, `tasklane.sidebar.focus`). */
const FOCUS_CHAT = 'Control+Shift+Alt+T';

/** What has the focus inside the webview: the composer, a block's Approve, or something else (described). */
async function focusedIn(frame: Frame): Promise<string> {
  return frame.evaluate(() => {
    const active = document.activeElement;
    if (!active || active === document.body) return 'nothing';
    if (active.id === 'chat-input') return 'composer';
    if (active.matches('.block-approval .approve')) return `approve ${active.closest('[data-approval-id]')?.getAttribute('data-approval-id') ?? ''}`.trim();
    return `${active.tagName.toLowerCase()}${active.id ? `#${active.id}` : ''}.${[...active.classList].join('.')}`;
  });
}

// Issue 36: a whole task done with the keyboard only, in the real workbench. The Chat view is
// focused by its keybinding, the message typed and sent with Enter, Tab reaches the Approve of the
// approval that comes, Enter approves it, focus goes back to the composer, and the task ends done.
// No mouse click anywhere: every step is a key press.
describe('ui: a whole task with the keyboard only', function () {
  let ui: UiSession | undefined;
  let failed = false;

  before(async function () {
    ui = await startUiSession({ name: 'ui-keyboard' });
  });
  afterEach(async function () {
    if (this.currentTest?.state !== 'passed') failed = true;
    if (ui) await screenshotSidebar(ui.page, `ui-keyboard-${this.currentTest?.title ?? 'step'}-end`);
  });
  after(async function () {
    await ui?.stop({ keep: failed });
  });

  it('focus keybinding, type, Enter, Tab to Approve, Enter: the task ends done', async function () {
    assert.ok(ui, 'the UI session did not start');
    const { page } = ui;
    const r = route('keys');
    await ui.script(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Add hello', instruction: 'Export hello from src/greet.js', mode: 'simple' } }] },
      { toolCalls: [{ name: 'replace_in_file', arguments: { path: 'src/greet.js', edits: [EDIT] } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'Exported hello.' } }] },
    ]);

    // The workbench has the focus; the keybinding opens the Chat view and lands in its composer.
    // Early after startup the extension's keybindings may not be registered yet (as runCommand
    // finds for its commands): the key is pressed again until the view opens.
    let frame: Frame | undefined;
    for (let attempt = 1; !frame; attempt++) {
      await page.keyboard.press('Escape');
      await page.keyboard.press(FOCUS_CHAT);
      frame = await tasklaneFrame(page, 10_000).catch((error: unknown) => {
        if (attempt >= 6) throw new Error(`${FOCUS_CHAT} never opened the Chat view (${attempt} presses)`, { cause: error });
        return undefined;
      });
    }
    await frame
      .waitForFunction(() => document.activeElement?.id === 'chat-input', undefined, { timeout: 30_000 })
      .catch(async () => {
        assert.fail(`the focus keybinding did not land in the composer (focus: ${await focusedIn(frame)})`);
      });

    await page.keyboard.type(`export hello ${r}`);
    await page.keyboard.press('Enter');
    const block = frame.locator('#transcript .task-block', { hasText: 'Add hello' });
    await block.locator('.block-approval .approve').waitFor({ timeout: 60_000 });
    assert.equal(await focusedIn(frame), 'composer', 'sending kept the focus in the composer');
    assert.equal(await frame.locator('#chat-input textarea').inputValue(), '', 'the sent message left the box');

    await page.keyboard.press('Tab');
    const approvalId = await block.locator('.block-approval').getAttribute('data-approval-id');
    assert.equal(await focusedIn(frame), `approve ${approvalId}`, 'Tab from the empty composer reaches the Approve that waits');

    await page.keyboard.press('Enter');
    await block.locator('.block-approval').waitFor({ state: 'detached', timeout: 5_000 });
    assert.equal(await focusedIn(frame), 'composer', 'nothing else waits: focus is back in the composer');
    await block
      .locator('.block-state')
      .filter({ hasText: /^done, not checked$/ })
      .waitFor({ timeout: 60_000 });
    assert.match((await block.locator('.block-summary').textContent()) ?? '', /^Exported hello./);
  });
});
