import * as assert from 'node:assert/strict';
import { seedHistory } from './support/seedHistory';
import { openTasklaneView, route, screenshotSidebar, sendChatMessage, startSeededUiSession, tasklaneFrame, transcriptMessages } from './support/workbench';
import type { UiSession } from './support/workbench';

const SESSIONS = 400;
const NEEDLE = 'where does the walrus config live?';

// The sidebar with a long history: the session list draws a bounded number of rows, loads more
// as it scrolls (into the archive), and its search box finds an old session and opens it.
describe('ui history: the session list with many sessions', function () {
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

  it('draws a bounded number of rows and loads older pages, into the archive, as it scrolls', async function () {
    assert.ok(ui);
    await openTasklaneView(ui.page);
    const frame = await tasklaneFrame(ui.page, 60_000);
    const rows = frame.locator('.session-rows .session');
    await frame.locator('.session-rows .session', { hasText: `session ${SESSIONS - 1}` }).waitFor({ timeout: 30_000 });
    const viewport = frame.locator('.session-viewport');
    let drawnMax = 0;
    // Scroll to the end again and again: each time a further page arrives, until the oldest.
    const oldest = frame.locator('.session-rows .session', { hasText: /^session 0archived/ });
    const lastDrawn = () => frame.evaluate(() => [...document.querySelectorAll('.session-rows .session')].pop()?.getAttribute('data-session-id') ?? '');
    for (let i = 0; i < 60 && (await oldest.count()) === 0; i++) {
      const before = await lastDrawn();
      await viewport.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
      // The signal: the next page is drawn at the end (or the end is the oldest session).
      await frame.waitForFunction(
        (previous) => {
          const drawn = [...document.querySelectorAll('.session-rows .session')];
          const end = drawn[drawn.length - 1];
          return end?.getAttribute('data-session-id') !== previous || drawn.some((row) => /^session 0archived/.test(row.textContent ?? ''));
        },
        before,
        { timeout: 15_000 },
      );
      drawnMax = Math.max(drawnMax, await rows.count());
    }
    assert.equal(await oldest.count(), 1, 'scrolling never reached the oldest (archived) session');
    drawnMax = Math.max(drawnMax, await rows.count());
    assert.ok(drawnMax <= 40, `${drawnMax} rows in the DOM for ${SESSIONS} sessions`);
    assert.ok(drawnMax >= 3, `only ${drawnMax} rows drawn`);
    assert.equal((await frame.locator('.session-rows .session.archived').count()) > 0, true, 'archived sessions are marked');
  });

  it('the search box finds an old, archived session and opens it with its events', async function () {
    assert.ok(ui);
    const frame = await tasklaneFrame(ui.page);
    const search = frame.locator('#session-search input');
    await search.click();
    await search.fill('WALRUS');
    const hit = frame.locator('.session-hit', { hasText: 'session 3' });
    await hit.waitFor({ timeout: 30_000 });
    assert.match((await hit.textContent()) ?? '', /archived/);
    await hit.click();
    await transcriptMessages(frame, 'user', NEEDLE).waitFor({ timeout: 30_000 });
    await transcriptMessages(frame, 'assistant', 'answer 3').waitFor({ timeout: 30_000 });
    // Its events, paged like any trace.
    await frame.locator('#trace-area .trace-row').first().waitFor({ timeout: 30_000 });
    assert.match((await frame.locator('#current-session').textContent()) ?? '', /session 3/);

    // The trace is a listbox: the keyboard walks its events and shows each one's detail.
    const viewport = frame.locator('#trace-area .trace-viewport');
    const selected = frame.locator('#trace-area .trace-row[aria-selected="true"]');
    const detail = frame.locator('#trace-area .trace-detail');
    await viewport.focus();
    await ui.page.keyboard.press('End');
    await selected.waitFor({ timeout: 5_000 });
    const last = await selected.getAttribute('data-seq');
    assert.equal(await viewport.getAttribute('aria-activedescendant'), `trace-row-${last}`);
    await detail.waitFor({ state: 'visible', timeout: 5_000 });
    const lastDetail = await detail.textContent();
    assert.match(lastDetail ?? '', /answer 3/, "the last event's detail is the reply");
    await ui.page.keyboard.press('ArrowUp');
    assert.notEqual(await selected.getAttribute('data-seq'), last, 'ArrowUp selects the event before');
    assert.notEqual(await detail.textContent(), lastDetail);
    await ui.page.keyboard.press('Escape');
    await detail.waitFor({ state: 'hidden', timeout: 5_000 });
    assert.equal(await selected.count(), 0, 'Escape clears the selection');
  });

  it('a focused session row keeps the focus while the list updates, and never takes it from the editor', async function () {
    assert.ok(ui);
    const { page, model } = ui;
    const frame = await tasklaneFrame(page);
    // Back from the search of the test before: the list again, scrolled to the top.
    await frame.locator('#session-search input').fill('');
    await frame.locator('.session-viewport').waitFor({ state: 'visible', timeout: 10_000 });
    await frame.locator('.session-viewport').evaluate((el) => el.scrollTo({ top: 0 }));
    await model.reset();
    const [one, two] = [route('slow-one'), route('slow-two')];
    await ui.script(one, [{ delayMs: 2500, text: 'slow answer one' }]);
    await ui.script(two, [{ delayMs: 2500, text: 'slow answer two' }]);
    const focusedSession = () => frame.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.sessionId ?? null);
    const other = frame.locator('.session-rows .session', { hasText: `session ${SESSIONS - 2}` });
    const otherId = await other.getAttribute('data-session-id');
    const newest = frame.locator('.session-rows .session').first();

    // While the reply is on its way, the person moves to another session's row: the new session
    // arrives on top and changes state (working, then idle) around it.
    await frame.locator('#new-chat').click();
    await sendChatMessage(frame, `first slow question ${one}`);
    await other.focus();
    await transcriptMessages(frame, 'assistant', 'slow answer one').waitFor({ timeout: 30_000 });
    await newest.locator('.session-meta', { hasText: /^idle/ }).waitFor({ timeout: 15_000 });
    assert.match((await newest.textContent()) ?? '', /first slow question/);
    assert.equal(await focusedSession(), otherId, 'the focused session row lost the focus while the list updated');

    // Now the person leaves the sidebar from the row of the session that is about to change (a
    // redrawn row whose focus the sidebar would give back): it must not pull the focus from the editor.
    await sendChatMessage(frame, `second slow question ${two}`);
    await newest.focus();
    await page.keyboard.press('F1');
    const quickOpen = page.locator('.quick-input-widget .quick-input-box input');
    await quickOpen.waitFor({ state: 'visible', timeout: 10_000 });
    await quickOpen.fill('README.md');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'README.md' }).first().click();
    await page.locator('.part.editor .tab.active', { hasText: 'README.md' }).first().waitFor({ timeout: 10_000 });
    await transcriptMessages(frame, 'assistant', 'slow answer two').waitFor({ timeout: 30_000 });
    await newest.locator('.session-meta', { hasText: /^idle/ }).waitFor({ timeout: 15_000 });
    const inEditor = await page.evaluate(() => document.activeElement?.closest('.part.editor') !== null);
    assert.ok(inEditor, 'the list update took the focus out of the editor');
  });
});
