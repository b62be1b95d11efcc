import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { openTasklaneView, route, runCommand, screenshotSidebar, screenshotsDir, sendChatMessage, startUiSession, tasklaneFrame } from './support/workbench';
import type { UiSession } from './support/workbench';
import { until as poll } from '../support/poll';
import { readOrNull } from '../support/files';
import { assertOneApprovePerPending } from './support/approvalsShown';

// Approval-gated edits as a user meets them, on the real workbench in Chromium: the change-set
// card, Open diff with an editable proposed side, Approve (one WorkspaceEdit, one Undo), Reject
// with a reason the task receives, a path escape refused and a sensitive file flagged.
describe('ui: reviewing proposed edits in the sidebar', function () {
  let ui: UiSession | undefined;
  let frame: Frame;
  let runs = 0;

  const session = (): UiSession => {
    assert.ok(ui, 'the UI session did not start');
    return ui;
  };
  const onDisk = (relative: string): string | null => readOrNull(path.join(session().server.workspaceDir, relative));
  const requestsText = async () => ((await session().model.requests()) as Array<{ body: unknown }>).map((r) => JSON.stringify(r.body)).join('\n');
  const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> => poll(what, probe, { timeoutMs, intervalMs: 200 });
  const modelSaw = (pattern: RegExp) => until(`the model to receive ${pattern}`, async () => (pattern.test(await requestsText()) ? true : undefined));

  /** A task whose first turn makes `calls`, then the turns of `after` (once the proposal is decided); returns its name. */
  async function propose(calls: Array<{ name: string; arguments: Record<string, unknown> }>, after: Array<Record<string, unknown>> = []): Promise<string> {
    const name = `ui-edit-${++runs}`;
    const r = route('ui-edit');
    await session().model.reset();
    await session().script(r, [
      // After the first test a task is active (waiting), so a new message first goes to the router model.
      ...(runs > 1 ? [{ toolCalls: [{ name: 'route_message', arguments: { decision: 'new', reason: 'a new request' } }] }] : []),
      { toolCalls: [{ name: 'task_start', arguments: { name, instruction: 'Make the edit', mode: 'simple' } }] },
      { toolCalls: calls },
      ...after,
    ]);
    await sendChatMessage(frame, `please make edit ${runs} ${r}`);
    return name;
  }
  const pendingCard = () => frame.locator('.block-approval[data-status="pending"]').first();

  before(async function () {
    ui = await startUiSession({ name: 'ui-approvals' });
    await openTasklaneView(ui.page);
    frame = await tasklaneFrame(ui.page);
  });
  afterEach(async function () {
    if (ui) await screenshotSidebar(ui.page, `ui-approvals-${this.currentTest?.title ?? 'step'}-end`);
  });
  after(async function () {
    await ui?.stop();
  });

  it('opens the diff from the card, edits the proposed side, approves; the files change and one Undo reverts both', async function () {
    const { page } = session();
    const originals = { greet: onDisk('src/greet.js') as string, math: onDisk('src/math.js') as string };
    await propose([
      { name: 'replace_in_file', arguments: { path: 'src/greet.js', edits: [{ oldText: "'world'", newText: "'everyone'" }] } },
      { name: 'replace_in_file', arguments: { path: 'src/math.js', edits: [{ oldText: 'return a + b;', newText: 'return Number(a) + Number(b);' }] } },
    ]);
    const card = pendingCard();
    await card.waitFor({ timeout: 30_000 });
    // The card appears with the first edit of the turn and is patched as the second joins the set.
    await card.locator('.approval-file').nth(1).waitFor({ timeout: 15_000 });
    assert.equal(await card.locator('.approval-file').count(), 2, 'one card with both files');
    await assertOneApprovePerPending(frame);
    assert.match((await card.textContent()) ?? '', /src\/greet\.js.*\+1 −1.*src\/math\.js.*\+1 −1/s);
    await screenshotSidebar(page, 'ui-approvals-1-card');

    await card.locator('.open-diff[data-path="src/greet.js"]').click();
    const modified = page.locator('.monaco-diff-editor .editor.modified .view-lines').first();
    // The first diff editor of a window loads its code then: on a loaded 2-core machine that took over 20 s.
    await modified.waitFor({ timeout: 60_000 });
    // The proposed side reads as the workspace file: the breadcrumb is src › greet.js, nothing of the storage folder.
    const crumbs = page.locator('.part.editor .breadcrumbs-control .monaco-breadcrumb-item');
    const shown = await until('the diff breadcrumb to name src/greet.js', async () => {
      const items = (await crumbs.allInnerTexts()).map((t) => t.trim()).filter(Boolean);
      return items.includes('src') && items.includes('greet.js') ? items : undefined;
    });
    assert.deepEqual(shown.slice(0, 2), ['src', 'greet.js'], `breadcrumb: ${shown.join(' › ')}`);
    for (const item of shown)
      assert.doesNotMatch(item, /proposals|workspaceStorage|tasklane\.tasklane|User|[0-9a-f]{8}-[0-9a-f]{4}/, `breadcrumb: ${shown.join(' › ')}`);
    // The tab's tooltip (a workbench hover) names both sides by their paths: /src/greet.js, no set id.
    await page.locator('.part.editor .tab.active').first().hover();
    const hover = page.locator('.workbench-hover', { hasText: 'greet.js' }).first();
    await hover.waitFor({ timeout: 15_000 });
    const tooltip = (await hover.innerText()).trim();
    assert.match(tooltip, /\/src\/greet\.js/, `the tab's tooltip reads ${tooltip}`);
    assert.doesNotMatch(tooltip, /proposals|workspaceStorage|tasklane\.tasklane|[0-9a-f]{8}-[0-9a-f]{4}/, `the tab's tooltip reads ${tooltip}`);
    fs.mkdirSync(screenshotsDir, { recursive: true });
    await page.screenshot({ path: path.join(screenshotsDir, 'ui-diff-breadcrumb.png') });
    await modified.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('// reviewed in the diff editor\n');
    await screenshotSidebar(page, 'ui-approvals-2-diff-edited');

    await card.locator('vscode-button.approve').click();
    // Decided: the approval leaves the block (a row in the thread keeps the decision).
    await card.waitFor({ state: 'detached', timeout: 30_000 });
    // The card leaves at the decision; the files are written and saved after it, and the task is told once they are.
    await modelSaw(/approved \(The change was approved and applied: src\/greet\.js, src\/math\.js/);
    await screenshotSidebar(page, 'ui-approvals-3-applied');
    const greet = originals.greet.replace("'world'", "'everyone'");
    assert.equal(onDisk('src/greet.js'), `${greet}// reviewed in the diff editor\n`, 'the edited proposal was not what got applied');
    assert.equal(onDisk('src/math.js'), originals.math.replace('return a + b;', 'return Number(a) + Number(b);'));

    // One Undo in an editor of one of the files reverts the whole change set; Save All writes it back.
    // Quick Open, filled only once it is there: keys typed before it opens go to whatever had the
    // focus (the sidebar, after Approve), and an empty picker lists only recent files. The
    // palette's input without its `>` is Quick Open.
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    const quickOpen = page.locator('.quick-input-widget .quick-input-box input');
    await quickOpen.waitFor({ state: 'visible', timeout: 10_000 });
    await quickOpen.fill('src/greet.js');
    // The workspace's src/greet.js, not the (now decided) proposed side Quick Open may also remember
    // (described by its absolute path, `/src`, as it is no file of the workspace folder).
    const workspaceGreet = page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'greet.js' })
      .filter({ hasNot: page.locator('.label-description', { hasText: /^\s*\// }) })
      .first();
    await workspaceGreet.waitFor({ timeout: 30_000 });
    await workspaceGreet.click();
    await page.locator('.part.editor .tab.active', { hasText: 'greet.js' }).first().waitFor({ timeout: 10_000 });
    // Quick Open leaves the focus in the opened editor.
    await page.keyboard.press('Control+Z');
    // VS Code may ask before undoing an edit that spans files (the whole set is what we want
    // undone); the undo has landed when the open editor shows the original text again. Whichever
    // comes first decides, so no wait is spent on a dialog that never comes.
    const acrossFiles = page.locator('.monaco-dialog-box .monaco-button', { hasText: /Undo in \d+ Files/ }).first();
    const undone = page.locator('.part.editor .monaco-editor .view-lines', { hasText: "'world'" }).first();
    await acrossFiles.or(undone).first().waitFor({ timeout: 10_000 });
    if (await acrossFiles.isVisible()) await acrossFiles.click();
    await undone.waitFor({ timeout: 10_000 });
    await runCommand(page, 'File: Save All Files');
    await until(
      'both files reverted on disk',
      async () => (onDisk('src/greet.js') === originals.greet && onDisk('src/math.js') === originals.math ? true : undefined),
      15_000,
    );
    await screenshotSidebar(page, 'ui-approvals-4-undone');
  });

  it("Approve in the diff editor's title bar applies what the diff shows; a plain editor has no such button", async function () {
    const { page } = session();
    await propose([{ name: 'create_file', arguments: { path: 'TITLE.md', content: 'from the task\n' } }]);
    const card = pendingCard();
    await card.waitFor({ timeout: 30_000 });
    await card.locator('.open-diff[data-path="TITLE.md"]').click();
    const modified = page.locator('.monaco-diff-editor .editor.modified .view-lines').first();
    await modified.waitFor({ timeout: 60_000 });
    const titleBar = page.locator('.part.editor .editor-actions');
    const approve = titleBar.getByRole('button', { name: 'Approve This Proposed Change' });
    await approve.waitFor({ timeout: 15_000 });
    assert.equal(await titleBar.getByRole('button', { name: 'Reject This Proposed Change' }).count(), 1, 'Reject is next to Approve');
    await modified.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('edited in the diff\n');
    const shot = path.join(screenshotsDir, 'ui-approvals-title-bar.png');
    fs.mkdirSync(screenshotsDir, { recursive: true });
    await page.screenshot({ path: shot });

    await approve.click();
    await until('the edited proposal applied', async () => (onDisk('TITLE.md') === 'from the task\nedited in the diff\n' ? true : undefined));
    await card.waitFor({ state: 'detached', timeout: 30_000 });
    await modelSaw(/approved \(The change was approved and applied: TITLE\.md/);
    await page.locator('.monaco-diff-editor').first().waitFor({ state: 'detached', timeout: 15_000 });

    // A workspace file in a plain editor: no Approve in its title bar. One that was there from the
    // start: Quick Open's file search may still hold the list it made before TITLE.md existed.
    await page.keyboard.press('F1');
    const quickOpen = page.locator('.quick-input-widget .quick-input-box input');
    await quickOpen.waitFor({ state: 'visible', timeout: 10_000 });
    await quickOpen.fill('src/math.js');
    await page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'math.js' })
      .filter({ hasNot: page.locator('.label-description', { hasText: /^\s*\// }) })
      .first()
      .click({ timeout: 30_000 });
    await page.locator('.part.editor .tab.active', { hasText: 'math.js' }).first().waitFor({ timeout: 10_000 });
    assert.equal(await approve.count(), 0, 'Approve shows in the title bar of a file that is no proposal');
    fs.rmSync(path.join(session().server.workspaceDir, 'TITLE.md'), { force: true });
  });

  it('reject with a reason: the disk is untouched and the task receives the reason', async function () {
    const readme = onDisk('README.md');
    await propose([
      { name: 'write_file', arguments: { path: 'README.md', content: '# replaced by the agent\n' } },
      { name: 'create_file', arguments: { path: 'NOTES.md', content: 'notes\n' } },
    ]);
    const card = pendingCard();
    await card.waitFor({ timeout: 30_000 });
    await card.locator('.reject-reason input').fill('the README is fine as it is');
    // While the reason is typed, the card changes (a file excluded): the reason survives the redraw.
    await card.locator('.approval-file[data-path="NOTES.md"] .toggle-file').click();
    await card.locator('.approval-file.rejected[data-path="NOTES.md"] .toggle-file', { hasText: 'include' }).waitFor({ timeout: 15_000 });
    assert.equal(await card.locator('.reject-reason input').inputValue(), 'the README is fine as it is', 'the typed reason was lost when the card redrew');
    await screenshotSidebar(session().page, 'ui-approvals-5-reject-reason');
    await card.locator('vscode-button.reject').click();
    await card.waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(onDisk('README.md'), readme);
    assert.equal(onDisk('NOTES.md'), null);
    await modelSaw(/rejected \(The change was rejected: the README is fine as it is/);
    await screenshotSidebar(session().page, 'ui-approvals-6-rejected');
  });

  it('a path escape is refused (no card, the model is told) and a sensitive file is flagged on its card', async function () {
    const before = await frame.locator('.block-approval').count();
    await propose([{ name: 'write_file', arguments: { path: '../escape.txt', content: 'escaped\n' } }]);
    await modelSaw(/\.\.\/escape\.txt resolves outside the workspace/);
    assert.equal(await frame.locator('.block-approval').count(), before, 'a refused edit must not produce a card');
    assert.equal(fs.existsSync(path.join(session().server.workspaceDir, '..', 'escape.txt')), false);

    const pkg = onDisk('package.json');
    await propose([{ name: 'replace_in_file', arguments: { path: 'package.json', edits: [{ oldText: '"private": true', newText: '"private": false' }] } }]);
    const card = pendingCard();
    await card.waitFor({ timeout: 30_000 });
    assert.equal(await card.locator('.approval-file[data-path="package.json"] .file-sensitive').count(), 1, 'package.json is not flagged as sensitive');
    assert.match((await card.locator('.approval-reason').textContent()) ?? '', /package\.json always needs approval/);
    await screenshotSidebar(session().page, 'ui-approvals-7-sensitive');
    assert.equal(onDisk('package.json'), pkg);
    await card.locator('vscode-button.reject').click();
    await frame.locator('.block-approval[data-status="pending"]').first().waitFor({ state: 'detached', timeout: 30_000 });
  });

  it("a rejected edit's task ends without Revert edits; an applied one's offers it until it is used, then not", async function () {
    const blockOf = (name: string) => frame.locator('#transcript .task-block', { has: frame.locator('.block-name', { hasText: name }) });
    const revertOf = (name: string) => blockOf(name).locator('vscode-button.revert-task');
    const ends = (summary: string) => [{ toolCalls: [{ name: 'task_end', arguments: { summary } }] }];

    // Rejected: nothing was applied, so the ended task has nothing to revert.
    const rejected = await propose([{ name: 'create_file', arguments: { path: 'REJECTED.md', content: 'no\n' } }], ends('Nothing changed.'));
    await pendingCard().waitFor({ timeout: 30_000 });
    await pendingCard().locator('vscode-button.reject').click();
    // The ended task's patch carries the host's word on what is left to undo: decided once it is drawn "done".
    await blockOf(rejected)
      .locator('.block-state', { hasText: /^done$/ })
      .waitFor({ timeout: 60_000 });
    assert.equal(await revertOf(rejected).count(), 0, 'a rejected edit offers Revert edits');
    assert.equal(await blockOf(rejected).locator('.block-reverted').isVisible(), false, 'nothing was applied, so nothing was reverted');
    assert.equal(onDisk('REJECTED.md'), null);

    // Applied: the ended task offers Revert edits; using it undoes the edit and the offer goes.
    const applied = await propose([{ name: 'create_file', arguments: { path: 'APPLIED.md', content: 'yes\n' } }], ends('Added APPLIED.md.'));
    await pendingCard().waitFor({ timeout: 30_000 });
    await pendingCard().locator('vscode-button.approve').click();
    // It changed a file and no checks are declared: done, not checked (issue 43).
    await blockOf(applied)
      .locator('.block-state', { hasText: /^done, not checked$/ })
      .waitFor({ timeout: 60_000 });
    await revertOf(applied).waitFor({ timeout: 15_000 });
    assert.equal(await blockOf(applied).locator('.block-reverted').isVisible(), false, 'the edit stands: the summary is true as it reads');
    assert.equal(onDisk('APPLIED.md'), 'yes\n');
    await screenshotSidebar(session().page, 'ui-approvals-8-revert-offered');
    await revertOf(applied).click();
    await until('APPLIED.md reverted on disk', async () => (onDisk('APPLIED.md') === null ? true : undefined), 30_000);
    // Settled (the host's reply came, after its patch): the block no longer says it reverts.
    await until('the revert to settle on the block', async () => ((await blockOf(applied).locator('.block-gesture').isVisible()) ? undefined : true), 30_000);
    // The summary ("Added APPLIED.md.") is kept, and the block says the edit it describes is undone.
    await blockOf(applied).locator('.block-reverted', { hasText: 'Its edits were reverted' }).waitFor({ timeout: 15_000 });
    assert.equal(await revertOf(applied).count(), 0, 'Revert edits is still offered after the revert');
    assert.equal(await blockOf(applied).locator('.block-state').textContent(), 'done, not checked');
    await screenshotSidebar(session().page, 'ui-approvals-9-reverted');
  });
});
