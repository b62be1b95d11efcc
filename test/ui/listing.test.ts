import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { answer, pick } from './support/quickInput';
import { expandRow, foldSideView, inlineAction, openSideView, treeLabels, treeRow } from './support/treeView';
import { openTasklaneView, resizeSidebar, runCommand, screenshotsDir, sendChatMessage, startUiSession, tasklaneFrame } from './support/workbench';
import type { UiSession } from './support/workbench';
import { until } from '../support/poll';

// The pictures of the Marketplace listing (docs/marketplace/README.md), taken from the real
// workbench: a task working in the thread, its edit waiting for approval there and in the diff
// editor with Approve in its title bar, and a chore in the
// Chores view before and after its first run. In the UI tier they land in test/ui/screenshots/ like every
// other test's; `npm run screenshots` runs this file with TASKLANE_LISTING_SCREENSHOTS set to
// docs/marketplace/screenshots/, the committed pictures the listing links to.
//
// The words a person sees are the routes: the scripted model answers the request that carries
// them (test/fixtures/modelServer.ts, "Routing"), so no `[label#id]` marker shows in a picture.

const listingDir = process.env.TASKLANE_LISTING_SCREENSHOTS ? path.resolve(process.env.TASKLANE_LISTING_SCREENSHOTS) : undefined;

const MESSAGE = 'Add a greetAll helper to src/greet.js, then run the build.';
const EDIT = {
  oldText: 'module.exports = { greet };',
  newText: "function greetAll(names) {\n  return names.map(greet).join('\\n');\n}\n\nmodule.exports = { greet, greetAll };",
};
const SUMMARY = 'Added greetAll(names) to src/greet.js; npm run build passed.';

const CHORE_ID = 'weekly-readme-check';
const CHORE_PROMPT = 'Check that README.md still describes the scripts in package.json; report what is out of date.';
const CHORES_YAML = [
  `  - id: ${CHORE_ID}`,
  '    name: Weekly README check',
  '    trigger: { cron: "0 9 * * 1", timezone: Europe/Paris }',
  `    prompt: ${CHORE_PROMPT}`,
  '    actionSets: []',
  '    budget: { maxIterations: 6, maxCostUsd: 0.5 }',
  '    successWhen: "status = \'done\'"',
  '',
].join('\n');

describe('ui: the pictures of the Marketplace listing', function () {
  let ui: UiSession | undefined;
  let frame: Frame;
  let anyFailed = false;

  const session = (): UiSession => {
    assert.ok(ui, 'the UI session did not start');
    return ui;
  };
  const block = () => frame.locator('#transcript .task-block').first();

  /** The side bar (or `part`) as a PNG: listing pictures by their own name, else test/ui/screenshots/ui-listing-<name>.png. */
  async function picture(page: Page, name: string, part = '.part.sidebar'): Promise<string> {
    const file = listingDir ? path.join(listingDir, `${name}.png`) : path.join(screenshotsDir, `ui-listing-${name}.png`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Let the last layout and the code colouring settle: a picture, not a test of timing.
    await page.waitForTimeout(500);
    await page.locator(part).first().screenshot({ path: file });
    const size = fs.statSync(file).size;
    assert.ok(size > 10_000, `${file} is ${size} bytes: ${part} did not render`);
    return file;
  }

  before(async function () {
    ui = await startUiSession({
      name: 'ui-listing',
      viewport: { width: 1280, height: 820 },
      settings: {
        'tasklane.approval.allowedCommands': ['npm run build'],
        // No distillation call may take a routed answer meant for the task.
        'tasklane.memory.enabled': false,
        // Priced like a hosted model, so the pictures show costs, not the conservative estimate.
        'tasklane.model.prices': { scripted: { input: 3, output: 15 } },
        // The diff picture shows the editor only: no breadcrumb path into the storage folder, no
        // offer to open the repositories around the test's workspace.
        'breadcrumbs.enabled': false,
        'git.openRepositoryInParentFolders': 'never',
      },
    });
    await openTasklaneView(ui.page);
    frame = await tasklaneFrame(ui.page);
    await resizeSidebar(ui.page, 560);
  });
  afterEach(function () {
    if (this.currentTest?.state !== 'passed') anyFailed = true;
  });
  after(async function () {
    await ui?.stop({ keep: anyFailed });
  });

  it('a task in the thread: its steps, the edit waiting for approval, then its summary', async function () {
    const { model, page, server } = session();
    await model.reset();
    await model.script(
      [
        {
          toolCalls: [{ name: 'task_start', arguments: { name: 'Add greetAll', instruction: `${MESSAGE} Keep greet() unchanged.`, mode: 'simple' } }],
        },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'src/greet.js' } }] },
        { toolCalls: [{ name: 'replace_in_file', arguments: { path: 'src/greet.js', edits: [EDIT] } }] },
        { toolCalls: [{ name: 'run_command', arguments: { command: 'npm run build' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: SUMMARY } }] },
      ].map((step) => ({ ...step, route: MESSAGE })),
    );
    await sendChatMessage(frame, MESSAGE);

    const approve = block().getByRole('button', { name: 'Approve the edit to src/greet.js' });
    await approve.waitFor({ timeout: 60_000 });
    await block()
      .locator('.block-state', { hasText: /^waiting for you$/ })
      .waitFor({ timeout: 15_000 });
    await approve.scrollIntoViewIfNeeded();
    await picture(page, 'approval');

    // The same edit in the diff editor, decided from its title bar's Approve.
    await block().getByRole('link', { name: 'Open diff of src/greet.js' }).click();
    await page.locator('.monaco-diff-editor .editor.modified .view-lines').first().waitFor({ timeout: 60_000 });
    const titleApprove = page.locator('.part.editor .editor-actions').getByRole('button', { name: 'Approve This Proposed Change' });
    await titleApprove.waitFor({ timeout: 15_000 });
    await picture(page, 'diff-approve', '.part.editor');
    await titleApprove.click();
    await block().locator('.block-summary', { hasText: SUMMARY }).waitFor({ timeout: 60_000 });
    assert.equal(await block().locator('.block-state').textContent(), 'done, not checked');
    assert.deepEqual(await block().locator('.step .step-text').allTextContents(), [
      'Read src/greet.js',
      'Proposed an edit to src/greet.js',
      'You approved; applied src/greet.js',
      'Ran npm run build',
    ]);
    assert.match(fs.readFileSync(path.join(server.workspaceDir, 'src/greet.js'), 'utf8'), /greetAll/);
    await picture(page, 'thread');
  });

  it('a chore from the repository: its row says what it would do, then runs once it is enabled', async function () {
    const { model, page, server } = session();
    // A chore of this machine first (New Chore makes .tasklane/chores.yaml), as chores.test.ts does.
    await runCommand(page, 'Tasklane: New Chore');
    await pick(page, 'new chore: start from', 'Blank chore');
    await answer(page, 'new chore (2/5): id', 'nightly-notes');
    await answer(page, 'new chore (3/5): name', 'Nightly notes');
    await pick(page, 'new chore (4/5): when does it run?', 'On a schedule (cron)');
    await answer(page, 'new chore (4/5): cron pattern', '0 2 * * *');
    await answer(page, 'new chore (5/5): prompt', 'Summarise the day in NOTES.md.');
    const file = path.join(server.workspaceDir, '.tasklane/chores.yaml');
    await until('New Chore to write chores.yaml', () => (fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('nightly-notes') ? true : undefined));
    // Then one arrives as a pull would bring it: not made here, so it waits for Enable.
    fs.appendFileSync(file, CHORES_YAML);
    await openTasklaneView(page);
    // The chores get the side bar: the Chores view opens and the chat folds, as a person would.
    const view = await openSideView(page, 'Chores');
    await foldSideView(page, 'Chat');
    const chore = treeRow(view, 'Weekly README check cron 0 9 * * 1 (Europe/Paris)', 'waits for Enable');
    await chore.waitFor({ timeout: 30_000 });
    // It opens by itself on what it would do.
    await treeRow(view, `Prompt: ${CHORE_PROMPT}`).waitFor({ timeout: 10_000 });
    await picture(page, 'chore-review');

    await model.reset();
    await model.script(
      [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'package.json' } }] },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
        {
          toolCalls: [{ name: 'task_end', arguments: { summary: 'README.md describes every script.', output: { status: 'done', outOfDate: [] } } }],
        },
      ].map((step) => ({ ...step, route: CHORE_PROMPT })),
    );
    await inlineAction(chore, 'Enable');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 15_000 });
    await dialog
      .locator('a.monaco-button, .monaco-button', { hasText: /^Enable$/ })
      .first()
      .click();
    const enabled = treeRow(view, 'Weekly README check cron 0 9 * * 1 (Europe/Paris)', ', enabled.');
    await enabled.waitFor({ timeout: 10_000 });
    await inlineAction(enabled, 'Run Now');
    await expandRow(enabled);
    const run = treeRow(view, 'done, not checked · ');
    await run.waitFor({ timeout: 60_000 });
    await expandRow(run);
    await until('the run to list its three steps', async () => {
      const steps = (await treeLabels(view)).filter((l) => /^\w+ · (ok|error|running)\b/.test(l)).map((l) => l.split(' · ')[0]);
      return steps.length === 3 ? steps : undefined;
    }).then((steps) => assert.deepEqual(steps, ['read_file', 'read_file', 'task_end']));
    await picture(page, 'chore');
  });
});
