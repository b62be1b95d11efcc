import * as assert from 'node:assert/strict';
import { seedHistory } from './support/seedHistory';
import { listed, newChat, openFromHistory, showConversations } from './support/chatView';
import { openTasklaneView, route, screenshotSidebar, sendChatMessage, startSeededUiSession, tasklaneFrame, transcriptMessages } from './support/workbench';
import type { UiSession } from './support/workbench';

const SESSIONS = 400;
const NEEDLE = 'where does the walrus config live?';

// A long history lives in native UI: the Chat view is the thread and the composer, and the
// conversations are a quick pick (the view title's History action, as Copilot's chat history),
// hot and archived alike, what waits for the person first. A conversation picked there opens in
// the Chat view with its messages.
describe('ui history: conversations in the History quick pick, the Chat view holds the thread', function () {
  let ui: UiSession | undefined;
  let anyFailed = false;

  before(async function () {
    // Two workbench starts and the seeding: slow on a busy machine.
    this.timeout(600_000);
    // The store is seeded through its own APIs while no window is open on it.
    let archived = 0;
    ui = await startSeededUiSession({ name: 'ui-history' }, async (storageDir) => {
      archived = await seedHistory(storageDir, SESSIONS, { 3: NEEDLE });
    });
    assert.ok(archived > SESSIONS / 2, `only ${archived} sessions were archived`);
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'passed') anyFailed = true;
    if (ui) await screenshotSidebar(ui.page, this.currentTest?.fullTitle() ?? 'ui-history');
  });

  after(async () => ui?.stop({ keep: anyFailed }));

  it('the Chat view has no list; an old, archived conversation picked from History opens there with its messages', async function () {
    assert.ok(ui);
    const { page } = ui;
    await openTasklaneView(page);
    const frame = await tasklaneFrame(page, 60_000);
    await frame.locator('.model-line', { hasText: 'Model:' }).waitFor({ timeout: 60_000 });
    // Nothing of a list in the view: no rows, no search box, no New chat button (New Chat is the view title's).
    assert.equal(await frame.locator('#sessions, .session, #session-search, #new-chat, .session-viewport').count(), 0, 'a conversation list in the Chat view');
    assert.equal(await frame.locator('#current-session').textContent(), 'New chat');

    // History lists the newest first, under Today, and reaches into the archive.
    await showConversations(page);
    const rows = await listed(page);
    assert.match(rows[0] ?? '', /^session 399/, `History starts ${JSON.stringify(rows.slice(0, 3))}`);
    await page.keyboard.press('Escape');
    await openFromHistory(page, 'session 3');
    await transcriptMessages(frame, 'user', NEEDLE).waitFor({ timeout: 30_000 });
    await transcriptMessages(frame, 'assistant', 'answer 3').waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('#current-session').textContent(), 'session 3');
    assert.equal(await frame.locator('#current-session').getAttribute('data-session-id'), 's-seed-00003');

    // A newer one from the same list replaces it in the view.
    await openFromHistory(page, 'session 398');
    await transcriptMessages(frame, 'user', 'question 398').waitFor({ timeout: 30_000 });
    assert.equal(await transcriptMessages(frame, 'user', NEEDLE).count(), 0, 'the thread shows one conversation');
  });

  it('what waits in another conversation is listed first in History and opens at its task', async function () {
    assert.ok(ui);
    const { page } = ui;
    const frame = await tasklaneFrame(page);
    const r = route('history-waits');
    await ui.model.reset();
    await ui.script(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Pick a licence', instruction: 'Add a LICENSE file', mode: 'simple' } }] },
      { toolCalls: [{ name: 'ask_user', arguments: { question: 'MIT or Apache-2.0?' } }] },
    ]);
    await newChat(page);
    await sendChatMessage(frame, `add a licence ${r}`);
    const block = frame.locator('#transcript .task-block', { hasText: 'Pick a licence' });
    await block.locator('.block-state', { hasText: /^waiting for you$/ }).waitFor({ timeout: 60_000 });

    // Elsewhere now: an old conversation. History's first section is what waits.
    await openFromHistory(page, 'session 397');
    await transcriptMessages(frame, 'user', 'question 397').waitFor({ timeout: 30_000 });
    assert.equal(await block.count(), 0);
    await showConversations(page);
    const rows = await listed(page);
    assert.match(rows[0] ?? '', /^add a licence.*waiting for you/, `History starts ${JSON.stringify(rows.slice(0, 3))}`);
    // The first row is focused: Enter opens the conversation at the task that waits.
    await page.keyboard.press('Enter');
    await block.locator('.block-state', { hasText: /^waiting for you$/ }).waitFor({ timeout: 30_000 });
    assert.match((await frame.locator('#current-session').textContent()) ?? '', /^add a licence/);
  });
});
