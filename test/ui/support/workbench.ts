// Reusable helpers for UI tests: one code-server, scripted model and Chromium for the whole tier,
// a fresh workspace folder (so a fresh Tasklane store) and window per test file, and the moves
// every Tasklane UI test makes (open the view, find its webview frame, chat, screenshot).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, BrowserContext, Frame, Locator, Page } from 'playwright-core';
import type { CodeServer } from '../../harness/codeServer.mjs' with { 'resolution-mode': 'import' };
import type { ModelServer } from '../../harness/modelServer.mjs' with { 'resolution-mode': 'import' };
import { until } from '../../support/poll';
import { routeSteps } from '../../support/routes';
import { tasklaneWarnings } from './runLogs';

export { route } from '../../support/routes';

export const screenshotsDir = path.resolve(__dirname, '../screenshots');
const lmProviderDir = path.resolve(__dirname, '../../fixtures/lmProviderExtension');

/** What a UI test file shares across its tests. */
export interface UiSession {
  /** The workbench's server; `workspaceDir` is this file's own folder. */
  server: CodeServer;
  model: ModelServer;
  browser: Browser;
  page: Page;
  /** Queues the scripted answers of the work marked `marker` (test/support/routes.ts). */
  script(marker: string, steps: Array<Record<string, unknown>>): Promise<unknown>;
  /** The model requests of the work marked `marker` (all of them without one). */
  requests<T = unknown>(marker?: string): Promise<T[]>;
  /**
   * Closes this file's window (and, for a workbench of its own, the browser, code-server and the
   * model server). The file's folder is removed unless `keep` (pass it when a test failed: the
   * run folder holds code-server's and the extension host's logs).
   */
  stop(options?: { keep?: boolean }): Promise<void>;
}

/** Options of startUiSession. */
export interface UiSessionOptions {
  /** Name of the file's workspace folder (and of its run, for a workbench of its own); one per test file. */
  name: string;
  /**
   * How Tasklane reaches the scripted model: `openai-compatible` (settings point at the server's
   * /v1) or `vscode-lm` (through the LM provider fixture extension). Default openai-compatible.
   */
  provider?: 'openai-compatible' | 'vscode-lm';
  /** Extra User settings, for this file's window only. */
  settings?: Record<string, unknown>;
  /** Extra environment for code-server and the extension host: needs a workbench of its own. */
  env?: Record<string, string | undefined>;
  /** Keep Workspace Trust on (Restricted Mode tests): needs a workbench of its own. */
  workspaceTrust?: boolean;
  /** Keep the run's user data and workspace from the previous start of the same name (a seeded store). */
  reuse?: boolean;
  /** A fixed port (default: a free one). The workbench keys workspace storage by the URL, port included. */
  port?: number;
  /** Browser viewport (default 1400×900). */
  viewport?: { width: number; height: number };
}

function scripting(model: ModelServer): Pick<UiSession, 'script' | 'requests'> {
  return {
    script: (marker, steps) => model.script(routeSteps(marker, steps)),
    requests: async <T>(marker?: string) => (await model.requests(marker)) as T[],
  };
}

/** The tier's one workbench: started by the first file that needs it, stopped by the root hook. */
interface SharedWorkbench {
  server: CodeServer;
  model: ModelServer;
  browser: Browser;
  /**
   * Every window of the tier opens in this one browser context, so the workbench's scripts come
   * from its HTTP and code caches after the first window (about 4 s less per window on a busy
   * 2-core machine). What the workbench keeps in the browser is cleared before each window
   * (`clearBrowserState`), so a file still starts as a first visit.
   */
  context: BrowserContext;
}
let shared: Promise<SharedWorkbench> | undefined;
/** A file's session stopped with `keep` (a test failed): the workbench's folder stays for its logs. */
let keepShared = false;

/** User settings that point Tasklane at the scripted model through `provider`. */
function modelSettings(model: ModelServer, provider: UiSessionOptions['provider'] = 'openai-compatible'): Record<string, unknown> {
  return {
    'tasklane.model.provider': provider,
    'tasklane.model.id': 'scripted',
    ...(provider === 'openai-compatible' ? { 'tasklane.model.baseUrl': model.openaiBaseUrl } : {}),
  };
}

/** Environment of every workbench: the model's URL, and no model keys (the suites decide which exist). */
function baseEnv(model: ModelServer): Record<string, string | undefined> {
  return { TASKLANE_TEST_MODEL_URL: model.url, OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined };
}

function sharedWorkbench(): Promise<SharedWorkbench> {
  shared ??= (async () => {
    const { startCodeServer, TEST_RUN_SETTINGS, uniqueRunName } = await import('../../harness/codeServer.mjs');
    const { launchChromium } = await import('../../harness/browser.mjs');
    const { startModelServer } = await import('../../harness/modelServer.mjs');
    const model = await startModelServer({ requireRoute: true });
    try {
      const server = await startCodeServer({
        name: uniqueRunName('ui-tier'),
        // Installed once for the tier; a file picks vscode-lm by setting the provider.
        extraExtensions: [lmProviderDir],
        settings: { ...TEST_RUN_SETTINGS },
        env: baseEnv(model),
        // A file's window is closed before the next opens: its extension host should go with it.
        reconnectionGraceSeconds: 5,
      });
      try {
        const browser = await launchChromium();
        return { server, model, browser, context: await browser.newContext() };
      } catch (error) {
        await server.stop();
        throw error;
      }
    } catch (error) {
      await model.stop();
      throw error;
    }
  })();
  return shared;
}

/** Stops the tier's workbench (the UI tier's root hook calls this once, after the last file). */
export async function stopSharedWorkbench(): Promise<void> {
  if (!shared) return;
  const running = await shared.catch(() => undefined);
  shared = undefined;
  if (!running) return;
  await running.browser.close().catch(() => undefined);
  await running.server.stop();
  await running.model.stop();
  if (keepShared) {
    process.stderr.write(`[ui] workbench kept for inspection: ${running.server.runDir}\n`);
    process.stderr.write(tasklaneWarnings(running.server.runDir));
  } else fs.rmSync(running.server.runDir, { recursive: true, force: true });
}

/**
 * Opens a test file's window: on the tier's shared workbench, a new window on a fresh copy of
 * sample-workspace with the file's settings (a new folder means a new extension host and an empty
 * Tasklane store), after the model's script and request log are cleared. A file that needs
 * Restricted Mode, its own environment or a restart on a seeded store gets a workbench of its own.
 */
export async function startUiSession(options: UiSessionOptions): Promise<UiSession> {
  if (options.workspaceTrust || options.env || options.reuse || options.port) return startOwnUiSession(options);
  const { makeWorkspace } = await import('../../harness/codeServer.mjs');
  const workbench = await sharedWorkbench();
  await workbench.model.reset();
  return openWindow(workbench, makeWorkspace(path.join(workbench.server.runDir, 'workspaces', options.name)), options);
}

/** A new window of the shared workbench on `workspaceDir`, with the file's settings. */
async function openWindow({ server, model, browser, context }: SharedWorkbench, workspaceDir: string, options: UiSessionOptions): Promise<UiSession> {
  const { writeUserSettings } = await import('../../harness/codeServer.mjs');
  writeUserSettings(server, { ...modelSettings(model, options.provider), ...options.settings });
  const page = await context.newPage();
  const own: CodeServer = { ...server, workspaceDir, workbenchUrl: `${server.url}/?folder=${encodeURIComponent(workspaceDir)}` };
  try {
    await page.setViewportSize(options.viewport ?? { width: 1400, height: 900 });
    await clearBrowserState(page, server.url);
    await page.goto(own.workbenchUrl, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  } catch (error) {
    await page.close().catch(() => undefined);
    throw new Error(`the workbench did not render at ${own.workbenchUrl}: ${(error as Error).message}`, { cause: error });
  }
  return {
    server: own,
    model,
    browser,
    page,
    ...scripting(model),
    stop: async (stopOptions) => {
      await page.close().catch(() => undefined);
      keepShared ||= stopOptions?.keep === true;
      if (!stopOptions?.keep) fs.rmSync(workspaceDir, { recursive: true, force: true });
    },
  };
}

/**
 * Forgets what the workbench keeps in the browser for this server's origin (IndexedDB: the
 * window's and the profile's UI state, such as views moved or hidden and editor history; Web
 * Storage), from a page on that origin that is not a workbench. The previous file's window is
 * closed by now; a deletion its connection would block is left to finish when that goes.
 */
async function clearBrowserState(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/healthz`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.evaluate(async () => {
    localStorage.clear();
    sessionStorage.clear();
    const names = (await indexedDB.databases()).flatMap((db) => (db.name ? [db.name] : []));
    await Promise.all(
      names.map(
        (name) =>
          new Promise<void>((resolve) => {
            const request = indexedDB.deleteDatabase(name);
            request.onsuccess = request.onerror = request.onblocked = () => resolve();
          }),
      ),
    );
  });
}

/** A workbench of the file's own: code-server, scripted model and Chromium, started and stopped with it. */
async function startOwnUiSession(options: UiSessionOptions): Promise<UiSession> {
  const { startCodeServer, TEST_RUN_SETTINGS, uniqueRunName } = await import('../../harness/codeServer.mjs');
  const { openWorkbench } = await import('../../harness/browser.mjs');
  const { startModelServer } = await import('../../harness/modelServer.mjs');
  const model = await startModelServer({ requireRoute: true });
  let server: CodeServer | undefined;
  try {
    server = await startCodeServer({
      // Per run: engineers sharing one working tree may run UI tests at the same time.
      name: uniqueRunName(options.name),
      extraExtensions: [lmProviderDir],
      settings: { ...TEST_RUN_SETTINGS, ...modelSettings(model, options.provider), ...options.settings },
      env: { ...baseEnv(model), ...options.env },
      workspaceTrust: options.workspaceTrust,
      reuse: options.reuse,
      ...(options.port ? { port: options.port } : {}),
    });
    const workbench = await openWorkbench(server, options.viewport ? { viewport: options.viewport } : {});
    const running = server;
    return {
      server: running,
      model,
      browser: workbench.browser,
      page: workbench.page,
      ...scripting(model),
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

/**
 * Tasklane's storage folder (context.storageUri) of this session's workspace folder, once the
 * extension made it. A shared workbench holds one workspace storage per test file; the remote
 * extension host describes each in meta.json by the folder's name (`{"id", "name"}`), and each
 * file's folder has a name of its own.
 */
export function tasklaneStorageDir(server: CodeServer): string | undefined {
  const root = path.join(server.userDataDir, 'User', 'workspaceStorage');
  for (const id of fs.existsSync(root) ? fs.readdirSync(root) : []) {
    const dir = path.join(root, id, 'tasklane.tasklane');
    let name: unknown;
    try {
      name = (JSON.parse(fs.readFileSync(path.join(root, id, 'meta.json'), 'utf8')) as { name?: unknown }).name;
    } catch {
      continue; // not written (yet)
    }
    if (name === path.basename(server.workspaceDir) && fs.existsSync(dir)) return dir;
  }
  return undefined;
}

/** Whether no live process holds a Tasklane store lease (lease.json) below `storageDir`. */
function leaseReleased(storageDir: string): boolean {
  const leases: string[] = [];
  const look = (dir: string, depth: number) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && depth > 0) look(full, depth - 1);
      else if (entry.name === 'lease.json') leases.push(full);
    }
  };
  look(storageDir, 2);
  return leases.every((file) => {
    try {
      process.kill((JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number }).pid, 0);
      return false; // its holder is alive
    } catch {
      return true; // unreadable (being removed) or its holder is gone
    }
  });
}

/**
 * Opens a window whose Tasklane store was filled by `seed` while no extension host had it open:
 * a window on a fresh folder lets the extension make its storage folder; the window is closed
 * and its extension host left to end (the store's lease released); the store is seeded; a new
 * window opens on the same folder (same server and port, so the same workspace storage).
 */
export async function startSeededUiSession(options: UiSessionOptions, seed: (storageDir: string) => Promise<void>): Promise<UiSession> {
  const first = await startUiSession(options);
  await openTasklaneView(first.page);
  await tasklaneFrame(first.page, 90_000);
  const storageRoot = path.join(first.server.userDataDir, 'User', 'workspaceStorage');
  const storageDir = await until('the extension to make its storage folder', () => tasklaneStorageDir(first.server), {
    detail: () => `${storageRoot} holds ${(fs.existsSync(storageRoot) ? fs.readdirSync(storageRoot) : []).join(', ') || 'nothing'}`,
  });
  await first.page.close();
  await until("the closed window's extension host to release the store", () => leaseReleased(storageDir), { timeoutMs: 60_000, intervalMs: 250 });
  for (const entry of fs.readdirSync(storageDir)) fs.rmSync(path.join(storageDir, entry), { recursive: true, force: true });
  await seed(storageDir);
  return openWindow(await sharedWorkbench(), first.server.workspaceDir, options);
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

/** Drags the side bar's edge until it is about `width` px wide (VS Code stops it at 170). */
export async function resizeSidebar(page: Page, width: number): Promise<void> {
  const sidebar = page.locator('.part.sidebar');
  const box = await sidebar.boundingBox();
  if (!box) throw new Error('the side bar is not shown');
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width + 1, y);
  await page.mouse.down();
  await page.mouse.move(box.x + width, y, { steps: 8 });
  await page.mouse.up();
  const after = await sidebar.boundingBox();
  if (!after || Math.abs(after.width - Math.max(width, 170)) > 60)
    throw new Error(`the side bar is ${after?.width ?? '?'} px wide after dragging its edge to ${width}`);
}

/**
 * A task a message started is drawn as a block in that conversation (shown after the send):
 * waits for it, and returns the first block.
 */
export async function waitForTaskBlock(frame: Frame, timeoutMs = 30_000): Promise<Locator> {
  const block = frame.locator('#transcript .task-block').first();
  await block.waitFor({ timeout: timeoutMs });
  return block;
}
