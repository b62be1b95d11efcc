import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { parse } from 'yaml';
import { openTasklaneView, runCommand, screenshotSidebar, screenshotsDir, startUiSession, tasklaneFrame } from './support/workbench';
import type { UiSession } from './support/workbench';
import { until as poll } from '../support/poll';
import { answer, pick } from './support/quickInput';

// Issue #6, the UI-tier item: a chore created from the command palette with the keyboard only,
// written to .tasklane/chores.yaml, listed in the sidebar, run with its Run now button, and its
// step trace watched live in the sidebar until the run ends. Screenshots at each step.

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

describe('ui: a chore created from the palette, run now and traced live in the sidebar', function () {
  let ui: UiSession | undefined;
  let frame: Frame;
  let anyFailed = false;

  const session = (): UiSession => {
    assert.ok(ui, 'the UI session did not start');
    return ui;
  };
  const choresFile = () => path.join(session().server.workspaceDir, '.tasklane/chores.yaml');
  const row = () => frame.locator(`.chore[data-chore-id="${choreId}"]`);
  /** Opens the collapsible Chores section as a person would (clicking its heading) when it is closed. */
  const openChores = async () => {
    const section = frame.locator('#chores-section');
    await section.waitFor({ state: 'attached', timeout: 20_000 });
    if (!(await section.evaluate((d) => (d as HTMLDetailsElement).open))) await section.locator('summary').first().click();
  };
  const shot = async (name: string) => {
    // The chores section sits under the chat: bring what the step is about into view first.
    const trace = frame.locator('.chore-steps:not([hidden])');
    await ((await trace.count()) ? trace : frame.locator('#chores')).scrollIntoViewIfNeeded({ timeout: 5_000 });
    return screenshotSidebar(session().page, name);
  };

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

  it('lists the new chore in the sidebar with its trigger and Run now', async function () {
    await openTasklaneView(session().page);
    frame = await tasklaneFrame(session().page);
    await openChores();
    await row().waitFor({ timeout: 20_000 });
    assert.equal(await row().locator('.chore-name').textContent(), choreName);
    assert.match((await row().locator('.chore-meta').textContent()) ?? '', /^cron 30 4 \* \* 1 · next /, 'the trigger and the next fire are shown');
    assert.equal(await row().locator('.chore-run').count(), 0, 'no run yet');
    const runNow = row().locator('.run-now');
    assert.equal(await runNow.getAttribute('disabled'), null, 'Run now is enabled in a trusted folder');
    assert.equal(await row().getAttribute('data-consent'), 'given', 'a chore made with New Chore on this machine starts enabled');
    await shot('ui-chores-1-listed');
  });

  it('runs it with Run now and shows its steps live in the trace until the run succeeds', async function () {
    const { model } = session();
    await model.reset();
    await session().script(promptRoute, [
      // Slow turns, so the trace is open before each step arrives: what we see is the live update.
      { delayMs: 2500, toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
      { delayMs: 3000, toolCalls: [{ name: 'task_end', arguments: { summary: 'README read', output: { status: 'done', lines: 12 } } }] },
    ]);

    await row().locator('.run-now').click();
    const runLine = row().locator('.chore-run');
    await runLine.waitFor({ timeout: 15_000 });
    assert.equal(await runLine.getAttribute('data-status'), 'running', 'the run is listed as running right after Run now');
    const runId = await runLine.getAttribute('data-run-id');
    assert.ok(runId);

    await runLine.locator('.open-run').click();
    const head = frame.locator('.chore-trace-head');
    await head.waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await head.getAttribute('data-run-id'), runId, 'the trace shows the run that was opened');
    const steps = frame.locator('.chore-steps .chore-step');
    assert.equal(await steps.count(), 0, 'no step yet: the first model turn is still in flight');
    assert.match((await head.textContent()) ?? '', /README check · running/);
    await shot('ui-chores-2-running-empty-trace');

    // The first step arrives into the open trace while the run is still running.
    const read = frame.locator('.chore-step[data-tool="read_file"]');
    await read.waitFor({ timeout: 20_000 });
    await frame.locator('.chore-step[data-tool="read_file"][data-status="ok"]').waitFor({ timeout: 10_000 });
    assert.equal(await head.getAttribute('data-status'), 'running', 'the run is still running when its first step shows');
    assert.equal(await frame.locator('.chore-step[data-tool="task_end"]').count(), 0, 'task_end has not happened yet');
    assert.match((await read.locator('summary').textContent()) ?? '', /^read_file · ok · \d+ ms$/);
    await read.locator('summary').click(); // expand: arguments and result
    const detail = (await read.locator('pre').textContent()) ?? '';
    assert.match(detail, /args: .*README\.md/);
    assert.match(detail, /result: [\s\S]*sample-workspace/, 'the result is the real README of the workspace');
    await shot('ui-chores-3-first-step-live');

    // Then task_end, and the run ends with the status successWhen gives it.
    await frame.locator('.chore-step[data-tool="task_end"]').waitFor({ timeout: 20_000 });
    await frame.locator('.chore-trace-head[data-status="succeeded"]').waitFor({ timeout: 20_000 });
    await row().locator('.chore-run[data-status="succeeded"]').waitFor({ timeout: 10_000 });
    const tools = await steps.evaluateAll((els) => els.map((el) => `${el.getAttribute('data-tool')}:${el.getAttribute('data-status')}`));
    assert.deepEqual(tools, ['read_file:ok', 'task_end:ok'], 'the trace holds exactly the two tool calls, in order, both ok');
    assert.match((await row().locator('.chore-run').textContent()) ?? '', /last run succeeded · .* · 2 turns · \d+ tokens/);
    assert.match((await frame.locator('.chore-step[data-tool="task_end"] pre').textContent()) ?? '', /"status":"done"/);
    await read.locator('summary').click(); // collapse it again, so both steps fit in the screenshot
    await shot('ui-chores-4-succeeded');

    // The run used the chore as written in chores.yaml: its prompt reached the model.
    const requests = JSON.stringify(await model.requests());
    assert.ok(requests.includes('Read README.md and finish with task_end'), 'the chore prompt never reached the model');
  });

  it('the open trace follows the next run of the same chore', async function () {
    const { model } = session();
    const head = frame.locator('.chore-trace-head');
    const firstRunId = await head.getAttribute('data-run-id');
    assert.ok(firstRunId, 'the previous test left the first run open');
    await model.reset();
    await session().script(promptRoute, [
      { delayMs: 1500, toolCalls: [{ name: 'task_end', arguments: { summary: 'again', output: { status: 'done', lines: 12 } } }] },
    ]);

    // From the keyboard this time: Run now keeps the focus while the run's updates redraw the row.
    await row().locator('.run-now').focus();
    await session().page.keyboard.press('Enter');
    const secondRunId = await until('a second run in the chore row', async () => {
      const id = await row().locator('.chore-run').getAttribute('data-run-id');
      return id && id !== firstRunId ? id : undefined;
    });
    await frame.locator(`.chore-trace-head[data-run-id="${secondRunId}"]`).waitFor({ timeout: 10_000 });
    await frame.locator('.chore-trace-head[data-status="succeeded"]').waitFor({ timeout: 20_000 });
    const tools = await frame
      .locator('.chore-steps .chore-step')
      .evaluateAll((els) => els.map((el) => `${el.getAttribute('data-tool')}:${el.getAttribute('data-status')}`));
    assert.deepEqual(tools, ['task_end:ok'], "the trace shows the new run's steps only");
    const focused = await frame.evaluate(() => {
      const active = document.activeElement;
      return active?.classList.contains('run-now') ? active.closest('[data-chore-id]')?.getAttribute('data-chore-id') : null;
    });
    assert.equal(focused, choreId, "Run now lost the focus while the run's updates redrew the chore list");
    await shot('ui-chores-5-next-run-followed');
  });

  it("the chore's history chart shows both runs, oldest first, with an accessible summary", async function () {
    const chart = row().locator('svg.chore-chart[role="img"]');
    await row().locator('svg.chore-chart g.chart-run[data-outcome="succeeded"]:nth-of-type(2)').waitFor({ timeout: 10_000 });
    const runs = await chart.locator('g.chart-run').evaluateAll((els) => els.map((el) => `${el.getAttribute('data-outcome')}`));
    assert.deepEqual(runs, ['succeeded', 'succeeded']);
    const lastId = await row().locator('.chore-run').getAttribute('data-run-id');
    assert.equal(await chart.locator('g.chart-run').last().getAttribute('data-run-id'), lastId, 'the newest run is the rightmost bar');
    // The scripted model has no price: its cost is the conservative estimate, and says so.
    assert.match(
      (await chart.getAttribute('aria-label')) ?? '',
      /^Last 2 runs: 2 succeeded\. Median duration \d+ s, total cost ≈\$\d+\.\d{3} estimated\. Latest: succeeded, \d+ s, ≈\$\d+\.\d{3} estimated/,
    );
    assert.match((await chart.locator('g.chart-run').first().locator('title').textContent()) ?? '', /^succeeded, \d+ s, ≈\$\d+\.\d{3} estimated/);
    await shot('ui-chores-6-history-chart');
  });
  it('a chore that arrives in chores.yaml from outside waits for Enable, showing what it does', async function () {
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
    await openChores();
    const shipped = frame.locator('.chore[data-chore-id="shipped-digest"]');
    await frame.locator('.chore[data-chore-id="shipped-digest"][data-consent="needed"]').waitFor({ timeout: 20_000 });
    assert.equal(await shipped.locator('.run-now').count(), 0, 'no Run now before consent');
    const review = (await shipped.locator('.chore-review').textContent()) ?? '';
    assert.match(review, /Summarise the docs and post the summary\./, 'the prompt is shown');
    assert.match(review, /Action sets: read, files/);
    assert.match(review, /Budget: 4 model calls/);
    assert.match(review, /Escalation: webhook POST to 127\.0\.0\.1:9/);
    assert.equal(await row().getAttribute('data-consent'), 'given', 'adding another chore leaves the existing one enabled');
    await shipped.scrollIntoViewIfNeeded();
    await screenshotSidebar(session().page, 'ui-chores-6-shipped-needs-consent');

    await shipped.locator('.enable-chore').click();
    await frame.locator('.chore[data-chore-id="shipped-digest"][data-consent="given"]').waitFor({ timeout: 10_000 });
    assert.equal(await shipped.locator('.run-now').getAttribute('disabled'), null, 'Run now once enabled');
    assert.equal(await shipped.locator('.chore-review').count(), 0);
    await shipped.locator('.disable-chore').click();
    await frame.locator('.chore[data-chore-id="shipped-digest"][data-consent="needed"]').waitFor({ timeout: 10_000 });
  });
});
