import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { readOrNull } from '../support/files';
import { openTasklaneView, resizeSidebar, route, screenshotSidebar, sendChatMessage, startUiSession, tasklaneFrame } from './support/workbench';
import type { UiSession } from './support/workbench';
import { pick } from './support/quickInput';
import { chatViewAction, listed, newChat, showConversations } from './support/chatView';

const EDIT = {
  oldText: 'module.exports = { greet };',
  newText: "function greetAll(names) {\n  return names.map(greet).join('\\n');\n}\n\nmodule.exports = { greet, greetAll };",
};
const SUMMARY = 'Added greetAll to src/greet.js; npm run build passed.';

// The conversation shows the work: one message starts a task that reads a file, proposes an edit
// and runs a command, and the same thread shows, in order, the task's block, a readable row per
// step, the pending approval (decided right there) and the summary. The raw trace is the task's
// details view, which closes and does not follow into a new chat.
describe('ui: the thread shows the work of the task a message started', function () {
  let ui: UiSession | undefined;
  let frame: Frame;
  let anyFailed = false;

  before(async function () {
    // As the demo does: the build is allowlisted, so it runs without asking once the edit is approved.
    ui = await startUiSession({ name: 'ui-thread', settings: { 'tasklane.approval.allowedCommands': ['npm run build'] } });
    await openTasklaneView(ui.page);
    frame = await tasklaneFrame(ui.page);
  });
  afterEach(async function () {
    if (this.currentTest?.state !== 'passed') anyFailed = true;
    if (ui) await screenshotSidebar(ui.page, `ui-thread-${this.currentTest?.title ?? 'step'}-end`);
  });
  after(async function () {
    await ui?.stop({ keep: anyFailed });
  });

  const session = (): UiSession => {
    assert.ok(ui, 'the UI session did not start');
    return ui;
  };
  const block = () => frame.locator('#transcript .task-block').first();
  const stepTexts = () => block().locator('.step .step-text').allTextContents();

  it('one message: the block, a row per step, the approval in the thread, then the summary', async function () {
    const r = route('thread');
    await session().model.reset();
    await session().script(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Add greetAll', instruction: 'Add greetAll to src/greet.js, then build', mode: 'simple' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'src/greet.js' } }] },
      { toolCalls: [{ name: 'replace_in_file', arguments: { path: 'src/greet.js', edits: [EDIT] } }] },
      // After the approval:
      { toolCalls: [{ name: 'run_command', arguments: { command: 'npm run build' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: SUMMARY } }] },
    ]);
    // The five moments of issue 21's pictures: first open, at work, waiting, done, narrow. The first
    // once the page has its state (the model line), not the bare page before it.
    await frame.locator('.model-line', { hasText: 'Model:' }).waitFor({ timeout: 30_000 });
    await screenshotSidebar(session().page, 'ui-thread-0-first-open');
    await sendChatMessage(frame, `add greetAll to greet.js and build it ${r}`);

    // The task is drawn in this conversation, after the message that started it.
    await block().waitFor({ timeout: 30_000 });
    await screenshotSidebar(session().page, 'ui-thread-0-at-work');
    const order = await frame.locator('#transcript > *').evaluateAll((els) => els.map((el) => el.getAttribute('data-role')));
    assert.deepEqual(order.slice(0, 2), ['user', 'task'], `the transcript reads ${order.join(', ')}`);
    assert.equal(await frame.locator('#transcript .msg', { hasText: 'Started task' }).count(), 0, 'the thread shows only "Started task"');
    assert.match((await block().locator('.block-name').textContent()) ?? '', /Add greetAll/);

    // The pending approval, in the block, named for its file and in view.
    const approve = block().getByRole('button', { name: 'Approve the edit to src/greet.js' });
    await approve.waitFor({ timeout: 30_000 });
    // The card and the task's state come in separate updates: the state follows the card.
    await block()
      .locator('.block-state', { hasText: /^waiting for you$/ })
      .waitFor({ timeout: 15_000 });
    assert.deepEqual(await stepTexts(), ['Read src/greet.js', 'Proposed an edit to src/greet.js']);
    await block().getByRole('button', { name: 'Reject the edit to src/greet.js' }).waitFor();
    const inView = await approve.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const transcript = (document.querySelector('#transcript') as HTMLElement).getBoundingClientRect();
      return box.height > 0 && box.top >= transcript.top && box.bottom <= transcript.bottom && box.bottom <= window.innerHeight;
    });
    assert.ok(inView, 'the Approve button is not in view in the thread');
    await screenshotSidebar(session().page, 'ui-thread-1-waiting');

    await approve.click();
    await block().locator('.block-summary', { hasText: SUMMARY }).waitFor({ timeout: 60_000 });
    // It changed a file and the workspace declares no checks: its word says so, as its summary does (issue 43).
    assert.equal(await block().locator('.block-state').textContent(), 'done, not checked');
    const rows = await stepTexts();
    assert.deepEqual(rows, ['Read src/greet.js', 'Proposed an edit to src/greet.js', 'You approved; applied src/greet.js', 'Ran npm run build']);
    assert.match((await block().locator('.step', { hasText: 'Ran npm run build' }).locator('.step-note').textContent()) ?? '', /^✓ \d/);
    assert.equal(await block().locator('.step code', { hasText: 'npm run build' }).count(), 1, 'the command is not shown as code');
    // Text for people: no event kinds, no tool-call JSON.
    const text = (await block().textContent()) ?? '';
    assert.doesNotMatch(text, /action_(start|end)|replace_in_file|run_command|[{}]/);
    // The summary comes after the rows; the approval has left the block.
    const summaryAfterSteps = await block().evaluate((el) => {
      const steps = el.querySelector('.steps') as Element;
      const summary = el.querySelector('.block-summary') as Element;
      return (steps.compareDocumentPosition(summary) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
    });
    assert.ok(summaryAfterSteps, 'the summary is not at the end of the block');
    assert.equal(await block().locator('.block-approval').count(), 0);
    assert.match(readOrNull(path.join(session().server.workspaceDir, 'src/greet.js')) ?? '', /greetAll/);
    await screenshotSidebar(session().page, 'ui-thread-2-done');

    // History has one row for it: the conversation, titled by its message, its task counted in it
    // (no row of its own); the view names the conversation it shows.
    assert.match((await frame.locator('#current-session').textContent()) ?? '', /^add greetAll to greet\.js/);
    await showConversations(session().page);
    const conversations = await listed(session().page);
    assert.equal(conversations.length, 1, `History lists ${JSON.stringify(conversations)}`);
    assert.match(conversations[0] ?? '', /^add greetAll to greet\.js.*, 1 task$/);
    await session().page.keyboard.press('Escape');
  });

  it("the task's details open from its block, close with × and Escape, and stay out of a new chat", async function () {
    const area = frame.locator('#trace-area');
    const details = block().getByRole('button', { name: 'Details of task Add greetAll' });
    await details.click();
    await area.locator('.trace-row').first().waitFor({ timeout: 30_000 });
    assert.match((await area.locator('.trace-title').textContent()) ?? '', /Details: Add greetAll/);
    await screenshotSidebar(session().page, 'ui-thread-3-details');
    await area.getByRole('button', { name: 'Close details' }).click();
    await area.waitFor({ state: 'hidden', timeout: 10_000 });

    await details.click();
    await area.locator('.trace-row').first().waitFor({ timeout: 30_000 });
    await area.locator('.trace-viewport').focus();
    await session().page.keyboard.press('Escape');
    await area.waitFor({ state: 'hidden', timeout: 10_000 });

    await details.click();
    await area.waitFor({ state: 'visible', timeout: 10_000 });
    await newChat(session().page);
    await area.waitFor({ state: 'hidden', timeout: 10_000 });
    assert.equal(await frame.locator('#transcript .task-block').count(), 0, 'a new chat shows the other thread’s task');
  });

  it("the conversation picked from History opens with its task's block", async function () {
    // The test before ends on a new chat: nothing of the task is shown.
    assert.equal(await frame.locator('#transcript .task-block').count(), 0);
    await showConversations(session().page);
    await session().page.keyboard.press('Enter');
    await block().waitFor({ timeout: 15_000 });
    assert.equal(await frame.locator('#transcript .msg-user', { hasText: 'add greetAll to greet.js' }).count(), 1, 'the thread is the conversation');
    assert.equal(await block().locator('.block-state').textContent(), 'done, not checked');
    assert.match((await frame.locator('#current-session').textContent()) ?? '', /^add greetAll to greet\.js/);
  });

  it("the view title's New Chat, History and model actions", async function () {
    const page = session().page;
    // The Chat view's own header: the Tasklane container also holds Chores and Storage, so the actions
    // are the view's, not merged into the container's title.
    const action = (label: 'New Chat' | 'Show Conversations' | 'Select Model') => chatViewAction(page, label);
    // The thread of the test before is shown; New Chat (a codicon in the view title) empties it.
    await block().waitFor();
    await action('New Chat').click();
    await frame.locator('#transcript .empty').waitFor({ timeout: 10_000 });
    assert.equal(await frame.locator('#transcript .task-block').count(), 0);
    assert.equal(await frame.evaluate(() => document.activeElement?.id), 'chat-input', 'the composer is ready to type in');
    // History is a native quick pick of the conversations (as Copilot's history); picking one opens it.
    await action('Show Conversations').click();
    await pick(page, 'Tasklane: conversations', 'add greetAll to greet.js');
    await frame.locator('#transcript .msg-user', { hasText: 'add greetAll to greet.js' }).waitFor({ timeout: 15_000 });
    await block().waitFor({ timeout: 15_000 });
    // The model picker is the third action, drawn as a codicon.
    assert.match((await action('Select Model').getAttribute('class')) ?? '', /codicon-settings-gear/);
    await screenshotSidebar(page, 'ui-thread-4-view-title');
  });

  it('in the narrowest side bar the thread keeps its titles, the composer and Send, and nothing scrolls sideways', async function () {
    const page = session().page;
    await block().waitFor({ timeout: 15_000 });
    await resizeSidebar(page, 170);
    try {
      // The review saw "List T…" and titles with no room at all: the conversation's and the block's keep a few words' room.
      for (const title of [frame.locator('#current-session'), block().locator('.block-name')]) {
        const width = await title.evaluate((el) => el.getBoundingClientRect().width);
        assert.ok(width >= 60, `"${await title.textContent()}" has ${width} px`);
      }
      const send = frame.getByRole('button', { name: /^Send/ });
      assert.ok(await send.isVisible(), 'Send is not visible');
      const layout = await frame.evaluate(() => {
        const box = (document.querySelector('#chat-input') as HTMLElement).getBoundingClientRect();
        const root = document.documentElement;
        return { inputVisible: box.width > 40 && box.bottom <= window.innerHeight, overflow: root.scrollWidth - root.clientWidth };
      });
      assert.ok(layout.inputVisible, 'the composer is not in view');
      assert.ok(layout.overflow <= 1, `the view scrolls ${layout.overflow} px sideways`);
      await screenshotSidebar(page, 'ui-thread-5-narrow');
    } finally {
      await resizeSidebar(page, 300);
    }
  });
});
