// Pictures of the thread's five moments (issue #21): first open, a task at work, a pending
// approval, a finished task and the narrow side bar, in a 1400×900 window, with one scripted
// conversation. The same script photographs an older checkout too (the harness in test/harness is
// the same since before the thread redesign), which is how docs/ux/thread-moments was made.
//
//   npm run build && node scripts/threadMoments.mjs [--repo <checkout>] [--out <dir>] [--prefix <name>]
//
// --repo   the checkout whose build and harness to use (default: this one); it must be built and
//          provisioned (scripts/provision.sh; .vscode-test holds code-server and Node 24).
// --out    where the PNGs go (default: test/ui/screenshots of this checkout).
// --prefix the name's start, e.g. `after` writes after-1-first-open.png … after-5-narrow.png.
//
// The conversation: one message starts a task that reads src/greet.js, proposes an edit to it
// (pending until Approve), then runs `npm run build` (allowlisted, so no card) and ends with a
// summary. A thread with task blocks (the redesign, and today's Chat view: the thread and the
// composer, no list in the view) is photographed where the message was sent. The `#sessions` and
// `.approval-card` selectors below serve only checkouts from before the thread redesign, whose
// sidebar listed sessions in the view and showed a task in a session of its own: there the
// finished task is shown after a click on that session, as a person had to. Today's page has no
// `#sessions`; it never takes that path.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .map((arg, i, all) => (arg.startsWith('--') ? [arg.slice(2), all[i + 1]] : undefined))
    .filter(Boolean),
);
const repo = path.resolve(args.repo ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const outDir = path.resolve(args.out ?? path.join(repo, 'test/ui/screenshots'));
const prefix = args.prefix ?? 'moment';
const harness = (file) => import(pathToFileURL(path.join(repo, 'test/harness', file)).href);

const EDIT = {
  oldText: 'module.exports = { greet };',
  newText: "function greetAll(names) {\n  return names.map(greet).join('\\n');\n}\n\nmodule.exports = { greet, greetAll };",
};
const SUMMARY = 'Added greetAll to src/greet.js; npm run build passed.';
const STEPS = [
  { toolCalls: [{ name: 'task_start', arguments: { name: 'Add greetAll', instruction: 'Add greetAll to src/greet.js, then build', mode: 'simple' } }] },
  { toolCalls: [{ name: 'read_file', arguments: { path: 'src/greet.js' } }] },
  // Held until the "at work" picture is taken: the task has read the file and waits for its model.
  { toolCalls: [{ name: 'replace_in_file', arguments: { path: 'src/greet.js', edits: [EDIT] } }], holdAfterChunks: 0 },
  { toolCalls: [{ name: 'run_command', arguments: { command: 'npm run build' } }] },
  { toolCalls: [{ name: 'task_end', arguments: { summary: SUMMARY } }] },
];

const { startCodeServer, uniqueRunName, TEST_RUN_SETTINGS } = await harness('codeServer.mjs');
const { startModelServer } = await harness('modelServer.mjs');
const { openWorkbench } = await harness('browser.mjs');

const model = await startModelServer();
let server;
let workbench;
try {
  server = await startCodeServer({
    name: uniqueRunName('thread-moments'),
    tasklaneDir: repo,
    settings: {
      ...TEST_RUN_SETTINGS,
      'tasklane.model.provider': 'openai-compatible',
      'tasklane.model.id': 'scripted',
      'tasklane.model.baseUrl': model.openaiBaseUrl,
      'tasklane.approval.allowedCommands': ['npm run build'],
    },
    env: { TASKLANE_TEST_MODEL_URL: model.url, OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined },
  });
  workbench = await openWorkbench(server, { viewport: { width: 1400, height: 900 }, timeoutMs: 120_000 });
  await photograph(workbench.page);
} finally {
  await workbench?.close().catch(() => undefined);
  await server?.stop();
  await model.stop();
  if (server) fs.rmSync(server.runDir, { recursive: true, force: true });
}

async function photograph(page) {
  fs.mkdirSync(outDir, { recursive: true });
  const shot = async (name) => {
    const file = path.join(outDir, `${prefix}-${name}.png`);
    await page.locator('.part.sidebar').screenshot({ path: file });
    process.stdout.write(`${file}\n`);
  };
  await openView(page);
  const frame = await chatFrame(page);
  await model.script(STEPS);

  // 1. First open: once the view has its state (the model line), not the bare page before it.
  await frame.locator('.model-line', { hasText: 'Model:' }).waitFor({ timeout: 60_000 });
  await shot('1-first-open');

  const textarea = frame.locator('#chat-input textarea');
  await textarea.click();
  await textarea.fill('add greetAll to greet.js and build it');
  await frame.locator('#send').click();

  // 2. At work: the file read, the model asked for the next step (held). The redesign's task block
  // shows the read; an older sidebar shows a "Started task" line in the conversation.
  const block = frame.locator('#transcript .task-block').first();
  const started = frame.locator('#transcript .msg', { hasText: 'Started task' }).first();
  await block.or(started).first().waitFor({ timeout: 60_000 });
  const redesigned = (await block.count()) > 0;
  await until('the edit step to be asked for (and held)', async () => (await model.requests()).some((r) => r.held));
  if (redesigned) await block.locator('.step', { hasText: 'Read src/greet.js' }).waitFor({ timeout: 30_000 });
  await shot('2-at-work');
  await model.release();

  // 3. Waiting: the proposal's Approve, in the block or on the older approval card.
  const approve = redesigned
    ? block.getByRole('button', { name: 'Approve the edit to src/greet.js' })
    : frame.locator('.approval-card[data-status="pending"] vscode-button.approve').first();
  await approve.waitFor({ timeout: 60_000 });
  if (redesigned) await block.locator('.block-state', { hasText: /^waiting for you$/ }).waitFor({ timeout: 30_000 });
  else await frame.locator('#sessions .session', { hasText: 'Add greetAll' }).first().waitFor({ timeout: 30_000 });
  await shot('3-waiting');

  // 4. Done: the summary in the block, or (a checkout before the redesign) in the task's own
  // session, opened from the in-view list those checkouts had.
  await approve.click();
  if (redesigned) await block.locator('.block-summary', { hasText: SUMMARY }).waitFor({ timeout: 120_000 });
  else {
    await frame.locator('.approval-card[data-status="applied"]').first().waitFor({ timeout: 60_000 });
    await frame.locator('#sessions .session', { hasText: 'Add greetAll' }).first().click();
    await frame.locator('#transcript .msg', { hasText: SUMMARY }).waitFor({ timeout: 120_000 });
    await frame.locator('.task-card.status-completed').waitFor({ timeout: 30_000 });
  }
  await shot('4-done');

  // 5. Narrow: the same thread with the side bar dragged to its narrowest (VS Code stops at 170).
  await resizeSidebar(page, 170);
  await shot('5-narrow');
}

async function until(what, probe, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

async function openView(page) {
  const item = page.locator('.activitybar [role="tab"][aria-label^="Tasklane"], .activitybar a[aria-label^="Tasklane"]').first();
  await item.waitFor({ state: 'visible', timeout: 60_000 });
  const selected = await item.evaluate((el) => (el.closest('[role="tab"]') ?? el).getAttribute('aria-selected') === 'true');
  if (!selected) await item.click();
  // Off the activity bar, so its hover does not cover the view in the first picture.
  await page.mouse.move(900, 450);
}

async function chatFrame(page, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      if (
        await frame
          .locator('#chat-input')
          .count()
          .catch(() => 0)
      )
        return frame;
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`no Tasklane chat view (a frame with #chat-input) within ${timeoutMs} ms`);
}

async function resizeSidebar(page, width) {
  const sidebar = page.locator('.part.sidebar');
  const box = await sidebar.boundingBox();
  if (!box) throw new Error('the side bar is not shown');
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width + 1, y);
  await page.mouse.down();
  await page.mouse.move(box.x + width, y, { steps: 8 });
  await page.mouse.up();
  const target = Math.max(width, 170); // VS Code stops the side bar at 170 px
  await until(`the side bar to be about ${target} px wide`, async () => Math.abs(((await sidebar.boundingBox())?.width ?? 0) - target) < 30);
}
