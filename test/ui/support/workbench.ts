// Reusable helpers for UI tests: one code-server + scripted model + Chromium page per test file,
// and the moves every Tasklane UI test makes (open the view, find its webview frame, chat, screenshot).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Frame, Locator, Page } from 'playwright-core';
import type { CodeServer } from '../../harness/codeServer.mjs' with { 'resolution-mode': 'import' };
import type { ModelServer } from '../../harness/modelServer.mjs' with { 'resolution-mode': 'import' };

export const screenshotsDir = path.resolve(__dirname, '../screenshots');
const lmProviderDir = path.resolve(__dirname, '../../fixtures/lmProviderExtension');

/** What a UI test file shares across its tests. */
export interface UiSession {
  server: CodeServer;
  model: ModelServer;
  browser: Browser;
  page: Page;
  /**
   * Closes the page and browser, stops code-server and the model server, and removes the run's
   * folder unless `keep` (pass it when a test failed: the folder holds code-server's and the
   * extension host's logs).
   */
  stop(options?: { keep?: boolean }): Promise<void>;
}

/** Options of startUiSession. */
export interface UiSessionOptions {
  /** Run name (state under .vscode-test/runs/<name>-<pid>/); use one per test file. */
  name: string;
  /**
   * How Tasklane reaches the scripted model: `openai-compatible` (settings point at the server's
   * /v1) or `vscode-lm` (through the LM provider fixture extension). Default openai-compatible.
   */
  provider?: 'openai-compatible' | 'vscode-lm';
  /** Extra User settings. */
  settings?: Record<string, unknown>;
  /** Extra environment for code-server and the extension host. */
  env?: Record<string, string | undefined>;
  /** Keep Workspace Trust on (Restricted Mode tests). */
  workspaceTrust?: boolean;
  /** Keep the run's user data and workspace from the previous start of the same name (a seeded store). */
  reuse?: boolean;
  /** A fixed port (default: a free one). The workbench keys workspace storage by the URL, port included. */
  port?: number;
}

/** Starts the scripted model, code-server with Tasklane, and a Chromium page on the workbench. */
export async function startUiSession(options: UiSessionOptions): Promise<UiSession> {
  const { startCodeServer, TEST_RUN_SETTINGS } = await import('../../harness/codeServer.mjs');
  const { openWorkbench } = await import('../../harness/browser.mjs');
  const { startModelServer } = await import('../../harness/modelServer.mjs');
  const provider = options.provider ?? 'openai-compatible';
  const model = await startModelServer();
  let server: CodeServer | undefined;
  try {
    server = await startCodeServer({
      // Per process: engineers sharing one working tree may run UI tests at the same time.
      name: `${options.name}-${process.pid}`,
      extraExtensions: provider === 'vscode-lm' ? [lmProviderDir] : [],
      settings: {
        ...TEST_RUN_SETTINGS,
        'tasklane.model.provider': provider,
        ...(provider === 'openai-compatible'
          ? { 'tasklane.model.baseUrl': model.openaiBaseUrl, 'tasklane.model.id': 'scripted' }
          : { 'tasklane.model.id': 'scripted' }),
        ...options.settings,
      },
      env: {
        TASKLANE_TEST_MODEL_URL: model.url,
        // No key: Tasklane sends a placeholder to an OpenAI-compatible server (never OPENAI_API_KEY).
        OPENAI_API_KEY: undefined,
        ANTHROPIC_API_KEY: undefined,
        ...options.env,
      },
      workspaceTrust: options.workspaceTrust,
      reuse: options.reuse,
      ...(options.port ? { port: options.port } : {}),
    });
    const workbench = await openWorkbench(server);
    const running = server;
    return {
      server: running,
      model,
      browser: workbench.browser,
      page: workbench.page,
      stop: async (stopOptions) => {
        await workbench.close();
        await running.stop();
        await model.stop();
        if (stopOptions?.keep) process.stderr.write(`[ui] run kept for inspection: ${running.runDir}\n`);
        else fs.rmSync(running.runDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server?.stop();
    await model.stop();
    throw error;
  }
}

/** Tasklane's storage folder in a run (context.storageUri): the newest, once the extension made it. */
export function tasklaneStorageDir(server: CodeServer): string | undefined {
  const root = path.join(server.runDir, 'user-data', 'User', 'workspaceStorage');
  const dirs = (fs.existsSync(root) ? fs.readdirSync(root) : []).map((hash) => path.join(root, hash, 'tasklane.tasklane')).filter((dir) => fs.existsSync(dir));
  return dirs.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
}

const SEEDED_MARK = '.seeded-by-test';

/**
 * Starts a run whose Tasklane store was filled by `seed` while no window was open: start, let the
 * extension make its storage folder, stop, seed it, start again on the same run and port (the
 * workbench keys workspace storage by the URL: another port would mean another, empty folder).
 */
export async function startSeededUiSession(options: UiSessionOptions, seed: (storageDir: string) => Promise<void>): Promise<UiSession> {
  let ui = await startUiSession(options);
  for (let attempt = 0; ; attempt++) {
    await openTasklaneView(ui.page);
    await tasklaneFrame(ui.page, 90_000);
    const storageDir = tasklaneStorageDir(ui.server);
    if (!storageDir) throw new Error('the extension made no storage folder');
    if (fs.existsSync(path.join(storageDir, SEEDED_MARK))) return ui;
    if (attempt >= 3) throw new Error(`the workbench picked a new storage folder on each start (${storageDir})`);
    await ui.stop({ keep: true });
    for (const entry of fs.readdirSync(storageDir)) fs.rmSync(path.join(storageDir, entry), { recursive: true, force: true });
    await seed(storageDir);
    fs.writeFileSync(path.join(storageDir, SEEDED_MARK), '');
    ui = await startUiSession({ ...options, reuse: true, port: ui.server.port });
  }
}

/** Opens the Tasklane view: the activity-bar item, or the command palette if it is not visible. */
export async function openTasklaneView(page: Page): Promise<void> {
  const item = page.locator('.activitybar [role="tab"][aria-label^="Tasklane"], .activitybar a[aria-label^="Tasklane"]').first();
  try {
    await item.waitFor({ state: 'visible', timeout: 15_000 });
    // Clicking an already-active container would collapse the side bar: only click when needed.
    const selected = await item.evaluate((el) => (el.closest('[role="tab"]') ?? el).getAttribute('aria-selected') === 'true');
    if (!selected) await item.click();
  } catch {
    await runCommand(page, 'Tasklane: Focus on Chat View');
  }
  await page.locator('.part.sidebar .pane-header[aria-label*="Chat"], .part.sidebar .composite.title').first().waitFor({ timeout: 15_000 });
}

/** Runs a command by its palette title through the command palette. */
export async function runCommand(page: Page, title: string, attempts = 3): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  for (let attempt = 1; ; attempt++) {
    try {
      // Early after startup the palette can open before contributed commands are listed, or
      // another quick input can hold focus: close whatever is open and try again.
      await page.keyboard.press('Escape');
      await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill(`>${title}`);
      await row.waitFor({ timeout: 5_000 });
      await page.keyboard.press('Enter');
      return;
    } catch (error) {
      if (attempt >= attempts)
        throw new Error(`the command palette never listed "${title}" (${attempts} attempts); is the command contributed?`, { cause: error });
    }
  }
}

/**
 * Finds the frame of the Tasklane sidebar webview. Webviews are nested iframes served by
 * code-server; the content frame is the one that holds `#chat-input`.
 */
export async function tasklaneFrame(page: Page, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      try {
        if (await frame.locator('#chat-input').count()) return frame;
      } catch {
        // the frame navigated or detached while we looked: look again
      }
    }
    await page.waitForTimeout(250);
  }
  const urls = page
    .frames()
    .map((f) => f.url())
    .join('\n  ');
  throw new Error(`no frame with #chat-input within ${timeoutMs} ms; did the Tasklane view open? frames:\n  ${urls}`);
}

/** Types `text` into the chat input (a vscode-textarea) and presses Send. */
export async function sendChatMessage(frame: Frame, text: string): Promise<void> {
  // Playwright's CSS pierces open shadow roots: this is the <textarea> inside <vscode-textarea>.
  const textarea = frame.locator('#chat-input textarea');
  await textarea.waitFor({ state: 'visible', timeout: 15_000 });
  await textarea.click();
  await textarea.fill(text);
  await frame.locator('#send').click();
}

/** The transcript entries of a role (user, assistant, error, event). */
export function transcriptMessages(frame: Frame, role: 'user' | 'assistant' | 'error' | 'event', hasText?: string | RegExp): Locator {
  return frame.locator(`#transcript .msg[data-role="${role}"]`, hasText === undefined ? {} : { hasText });
}

/** Waits for an assistant message containing `text`; the error lists what the transcript shows. */
export async function waitForAssistantMessage(frame: Frame, text: string | RegExp, timeoutMs = 30_000): Promise<Locator> {
  const message = transcriptMessages(frame, 'assistant', text).first();
  try {
    await message.waitFor({ state: 'visible', timeout: timeoutMs });
  } catch (error) {
    const shown = await frame
      .locator('#transcript .msg')
      .evaluateAll((els) => els.map((el) => `${el.getAttribute('data-role')}: ${el.textContent?.trim().slice(0, 200)}`));
    throw new Error(`no assistant message matching ${String(text)} within ${timeoutMs} ms; transcript:\n${shown.join('\n') || '(empty)'}`, { cause: error });
  }
  return message;
}

function slug(name: string): string {
  return (
    name
      .replace(/[^a-z0-9]+/gi, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase()
      .slice(0, 100) || 'screenshot'
  );
}

/** Saves the side bar (or the whole page if no side bar is shown) to test/ui/screenshots/<name>.png. */
export async function screenshotSidebar(page: Page, name: string): Promise<string> {
  fs.mkdirSync(screenshotsDir, { recursive: true });
  const file = path.join(screenshotsDir, `${slug(name)}.png`);
  const sidebar = page.locator('.part.sidebar');
  if (await sidebar.isVisible().catch(() => false)) await sidebar.screenshot({ path: file });
  else await page.screenshot({ path: file });
  return file;
}

/** A task lives in a session of its own: clicks through the sessions until one shows a task card. */
export async function selectTaskSession(frame: Frame, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const sessions = frame.locator('.session');
    for (let i = 0; i < (await sessions.count()); i++) {
      await sessions.nth(i).click();
      if (await frame.locator('.task-card').count()) return;
    }
    await frame.waitForTimeout(250);
  }
  throw new Error(`no session with a task card appeared within ${timeoutMs / 1000} s`);
}
