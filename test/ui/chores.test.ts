import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Locator } from 'playwright-core';
import { parse } from 'yaml';
import { openTasklaneView, runCommand, screenshotSidebar, screenshotsDir, startUiSession, tasklaneFrame } from './support/workbench';
import { contextAction, expandRow, foldSideView, inlineAction, openSideView, treeLabels, treeRow } from './support/treeView';
import type { UiSession } from './support/workbench';
import { until as poll } from '../support/poll';
import { answer, pick } from './support/quickInput';

// Issue #6, the UI-tier item: a chore created from the command palette with the keyboard only,
// written to .tasklane/chores.yaml, listed in the Chores view (a native tree of its own in the
// Tasklane container since issue #21), run with its Run Now action, and its steps watched live
// under the run until it ends. Screenshots at each step.

const choreId = 'readme-check';
const choreName = 'README check';
const cron = '30 4 * * 1';
const prompt = 'Read README.md and finish with task_end and output {"status": "done", "lines": <number of lines>}.';
/** The run's requests carry the prompt: its answers are routed by this part of it (no quotes, which JSON escapes). */
const promptRoute = 'Read README.md and finish with task_end';

interface ChoresFile {
  chores: Array<{ id: string; name: string; trigger: { cron?: string }; prompt: string; successWhen?: string }>;
}

const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> =>
  poll(what, probe, { timeoutMs, intervalMs: 200 });

describe('ui: a chore created from the palette, run now and traced live in the Chores view', function () {
  let ui: UiSession | undefined;
  let frame: Frame;
  let anyFailed = false;

  const session = (): UiSession => {
    assert.ok(ui, 'the UI session did not start');
    return ui;
  };
  const choresFile = () => path.join(session().server.workspaceDir, '.tasklane/chores.yaml');
  let view: Locator;
  const row = () => treeRow(view, `${choreName} cron`);
  /** The runs under the chore, newest first: their accessible names. */
  const runs = async () => (await treeLabels(view)).filter((l) => /^(running|done, not checked|verified|failed) · /.test(l));
  const steps = async () => (await treeLabels(view)).filter((l) => /^\w+ · (ok|error|running)\b/.test(l));
  const shot = (name: string) => screenshotSidebar(session().page, name);

  before(async function () {
    ui = await startUiSession({ name: 'ui-chores' });
    await openTasklaneView(ui.page);
    frame = await tasklaneFrame(ui.page);
  });
  afterEach(function () {
    if (this.currentTest?.state !== 'passed') anyFailed = true;
  });
  after(async function () {
    if (ui && anyFailed) await screenshotSidebar(ui.page, 'ui-chores-failed').catch(() => undefined);
    await ui?.stop({ keep: anyFailed });
  });

  it('creates a blank chore through "Tasklane: New Chore" with the keyboard and writes chores.yaml', async function () {
    const { page } = session();
    assert.equal(fs.existsSync(choresFile()), false, 'the sample workspace starts without chores');

    await runCommand(page, 'Tasklane: New Chore');
    await pick(page, 'new chore: start from', 'Blank chore');
    assert.equal(await answer(page, 'new chore (2/5): id', choreId), 'my-chore', 'a blank chore suggests the id my-chore');
    assert.equal(await answer(page, 'new chore (3/5): name', choreName), choreId, 'the name defaults to the id');
    await pick(page, 'new chore (4/5): when does it run?', 'On a schedule (cron)');
    assert.equal(await answer(page, 'new chore (4/5): cron pattern', cron), '0 2 * * *');
    fs.mkdirSync(screenshotsDir, { recursive: true });
    // The whole workbench here: the guided flow lives in the quick input, not in the side bar.
    await answer(page, 'new chore (5/5): prompt', prompt, () => page.screenshot({ path: path.join(screenshotsDir, 'ui-chores-0-palette-prompt.png') }));

    // The file can exist a moment before its content is in it: wait for the chore, not the file.
    const text = await until('.tasklane/chores.yaml to be written', () => {
      const now = fs.existsSync(choresFile()) ? fs.readFileSync(choresFile(), 'utf8') : '';
      return (parse(now) as ChoresFile | null)?.chores ? now : undefined;
    });
    const written = parse(text) as ChoresFile;
    assert.equal(written.chores.length, 1, text);
    const chore = written.chores[0];
    assert.equal(chore.id, choreId);
    assert.equal(chore.name, choreName);
    assert.deepEqual(chore.trigger, { cron });
    assert.equal(chore.prompt.trim(), prompt);
    assert.equal(chore.successWhen, "status = 'done'");
    // The flow opens the file it wrote, so the user sees (and can refine) the chore.
    await page.locator('.tabs-container .tab', { hasText: 'chores.yaml' }).first().waitFor({ timeout: 15_000 });
  });

  it('lists the new chore in the Chores view with its trigger and Run Now', async function () {
    const { page } = session();
    await openTasklaneView(page);
    frame = await tasklaneFrame(page);
    assert.equal(await frame.locator('#chores-section, #chores').count(), 0, 'the chat view holds no chores section any more');
    view = await openSideView(page, 'Chores');
    // The chores get the side bar's height, as a person would give it them: the chat folds.
    await foldSideView(page, 'Chat');
    await row().waitFor({ timeout: 20_000 });
    // The accessible name starts with what the row shows, then says where the chore stands.
    assert.match((await row().getAttribute('aria-label')) ?? '', /^README check cron 30 4 \* \* 1 · next .*, enabled\. No runs yet\.$/);
    assert.match((await row().textContent()) ?? '', /README check\s*cron 30 4 \* \* 1 · next /, 'the trigger and the next fire are shown');
    await row().hover();
    assert.equal(await row().locator('.actions .action-label[aria-label^="Run Now"]').count(), 1, 'Run Now is offered in a trusted folder');
    assert.equal(await row().locator('.actions .action-label[aria-label^="Enable"]').count(), 0, 'a chore made with New Chore on this machine starts enabled');
    await shot('ui-chores-1-listed');
  });

  it('runs it with Run Now and shows its steps live under the run until it succeeds', async function () {
    const { model, page } = session();
    await model.reset();
    await session().script(promptRoute, [
      // Slow turns, so the run is open before each step arrives: what we see is the live update.
      { delayMs: 2500, toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
      { delayMs: 3000, toolCalls: [{ name: 'task_end', arguments: { summary: 'README read', output: { status: 'done', lines: 12 } } }] },
    ]);

    await inlineAction(row(), 'Run Now');
    await expandRow(row());
    const running = treeRow(view, 'running · ');
    await running.waitFor({ timeout: 15_000 });
    await expandRow(running);
    assert.deepEqual(await steps(), [], 'no step yet: the first model turn is still in flight');
    await shot('ui-chores-2-running-empty-trace');

    // The first step arrives under the open run while the run is still running.
    const read = treeRow(view, 'read_file · ok');
    await read.waitFor({ timeout: 20_000 });
    assert.equal(await treeRow(view, 'running · ').count(), 1, 'the run is still running when its first step shows');
    assert.equal(await treeRow(view, 'task_end').count(), 0, 'task_end has not happened yet');
    // Rows are redrawn as the run progresses: read the step's name from the tree as it is now.
    assert.ok(
      (await steps()).some((l) => /^read_file · ok · \d+ ms$/.test(l)),
      (await steps()).join('\n'),
    );
    await expandRow(read); // its arguments and result
    await until('the step to show its arguments and result', async () => ((await treeLabels(view)).some((l) => l.startsWith('result: ')) ? true : undefined));
    const labels = await treeLabels(view);
    assert.ok(
      labels.some((l) => /^args: .*README\.md/.test(l)),
      labels.join('\n'),
    );
    await shot('ui-chores-3-first-step-live');

    // Then task_end, and the run ends with the status successWhen gives it.
    await treeRow(view, 'task_end · ok').waitFor({ timeout: 20_000 });
    await treeRow(view, 'done, not checked · ').waitFor({ timeout: 20_000 });
    const shown = (await steps()).map((l) => l.replace(/ · \d+ ms$/, ''));
    assert.deepEqual(shown, ['read_file · ok', 'task_end · ok'], 'the run holds exactly the two tool calls, in order, both ok');
    assert.match((await treeRow(view, 'done, not checked · ').textContent()) ?? '', /done, not checked · .*2 turns · \d+ tokens/);
    await expandRow(treeRow(view, 'task_end · ok'));
    await until('the final step to show its output', async () => ((await treeLabels(view)).some((l) => /"status":"done"/.test(l)) ? true : undefined));
    await page.keyboard.press('Escape');
    await shot('ui-chores-4-succeeded');

    // The run used the chore as written in chores.yaml: its prompt reached the model.
    const requests = JSON.stringify(await model.requests());
    assert.ok(requests.includes('Read README.md and finish with task_end'), 'the chore prompt never reached the model');
  });

  it('the next run of the same chore is listed first, with its own steps', async function () {
    const { model } = session();
    await model.reset();
    await session().script(promptRoute, [
      { delayMs: 1500, toolCalls: [{ name: 'task_end', arguments: { summary: 'again', output: { status: 'done', lines: 12 } } }] },
    ]);
    await inlineAction(row(), 'Run Now');
    await until('a second run listed first under the chore', async () => {
      const listed = await runs();
      return listed.length === 2 && listed[0]!.startsWith('running · ') ? true : undefined;
    });
    const newest = treeRow(view, 'running · ');
    await expandRow(newest);
    await until('the second run to succeed', async () => ((await runs()).every((l) => l.startsWith('done, not checked · ')) ? true : undefined));
    assert.ok(
      (await steps()).some((l) => l.startsWith('task_end · ok')),
      (await treeLabels(view)).join('\n'),
    );
    await shot('ui-chores-5-next-run-followed');
  });

  it("the chore's row sums up its history: both runs, with an accessible summary", async function () {
    await until('the chore to sum up two runs', async () =>
      /Last 2 runs: 2 succeeded/.test((await row().getAttribute('aria-label')) ?? '') ? true : undefined,
    );
    // The scripted model has no price: its cost is the conservative estimate, and says so.
    assert.match(
      (await row().getAttribute('aria-label')) ?? '',
      /Last 2 runs: 2 succeeded\. Median duration \d+ s, total cost ≈\$\d+\.\d{3} estimated\. Latest: done, not checked, \d+ s, ≈\$\d+\.\d{3} estimated/,
    );
    assert.match((await runs())[0] ?? '', /^done, not checked · .*\. done, not checked, \d+ s, ≈\$\d+\.\d{3} estimated/);
    await shot('ui-chores-6-history');
  });

  it('a chore that arrives in chores.yaml from outside waits for Enable, showing what it does', async function () {
    const { page } = session();
    // The first chore's runs fold away (the view title's Collapse All), so the new one is in view. Before
    // the file changes: the new chore opens by itself, and a Collapse All after it would fold it again.
    await view.locator('.pane-header').hover();
    await view.locator('.pane-header .action-label[aria-label^="Collapse All"]').click();
    // Appended by another program (a pull, another editor): not made with New Chore here.
    fs.appendFileSync(
      choresFile(),
      [
        '  - id: shipped-digest',
        '    name: Shipped digest',
        '    trigger: { files: ["docs/**"] }',
        '    prompt: Summarise the docs and post the summary.',
        '    actionSets: [files]',
        '    budget: { maxIterations: 4 }',
        '    escalate: { webhook: { url: "http://127.0.0.1:9/hook" } }',
        '',
      ].join('\n'),
    );
    const shipped = treeRow(view, 'Shipped digest files docs/**', 'waits for Enable');
    await shipped.waitFor({ timeout: 20_000 });
    await shipped.hover();
    assert.equal(await shipped.locator('.actions .action-label[aria-label^="Run Now"]').count(), 0, 'no Run Now before consent');
    // It opens by itself on what it would do.
    const review = await until('the new chore to open on what it would do', async () => {
      const labels = (await treeLabels(view)).join('\n');
      return /Escalation: /.test(labels) ? labels : undefined;
    });
    assert.match(review, /Prompt: Summarise the docs and post the summary\./, 'the prompt is shown');
    assert.match(review, /Action sets: read, files/);
    assert.match(review, /Budget: 4 model calls/);
    assert.match(review, /Escalation: webhook POST to 127\.0\.0\.1:9/);
    assert.match((await row().getAttribute('aria-label')) ?? '', /, enabled\./, 'adding another chore leaves the existing one enabled');
    await screenshotSidebar(page, 'ui-chores-6-shipped-needs-consent');

    // Enable… asks in VS Code's modal, with what the chore does, before anything is enabled.
    await inlineAction(shipped, 'Enable');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 15_000 });
    assert.match((await dialog.textContent()) ?? '', /Summarise the docs and post the summary/);
    await dialog
      .locator('a.monaco-button, .monaco-button', { hasText: /^Enable$/ })
      .first()
      .click();
    const enabled = treeRow(view, 'Shipped digest files docs/**', ', enabled.');
    await enabled.waitFor({ timeout: 10_000 });
    await enabled.hover();
    assert.equal(await enabled.locator('.actions .action-label[aria-label^="Run Now"]').count(), 1, 'Run Now once enabled');
    await contextAction(page, enabled, 'Disable');
    await treeRow(view, 'Shipped digest files docs/**', 'waits for Enable').waitFor({ timeout: 10_000 });
  });
});
