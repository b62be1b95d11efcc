// Debian Chromium driven by playwright-core (`npx playwright install` cannot download here).
// Opening the workbench in a browser is also what starts code-server's extension host.
import * as fs from 'node:fs';
import { chromium } from 'playwright-core';

export const chromiumPath = process.env.TASKLANE_CHROMIUM ?? '/usr/bin/chromium';
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/** Launches a headless Chromium; throws a fix-it message when it is not installed. */
export async function launchChromium(options = {}) {
  if (!fs.existsSync(chromiumPath)) {
    throw new Error(`${chromiumPath} is missing: run scripts/provision.sh (apt-get install -y chromium)`);
  }
  return await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: options.headless ?? true });
}

/**
 * Opens the workbench of a started code-server and waits until it has rendered.
 * @param {{ workbenchUrl: string }} server from startCodeServer
 * @param {{ browser?: import('playwright-core').Browser, timeoutMs?: number, viewport?: { width: number, height: number } }} [options]
 * @returns {Promise<{ browser: import('playwright-core').Browser, page: import('playwright-core').Page, close: () => Promise<void> }>}
 */
export async function openWorkbench(server, options = {}) {
  const ownBrowser = !options.browser;
  const browser = options.browser ?? (await launchChromium());
  const page = await browser.newPage({ viewport: options.viewport ?? { width: 1400, height: 900 } });
  const close = async () => {
    await page.close().catch(() => undefined);
    if (ownBrowser) await browser.close().catch(() => undefined);
  };
  try {
    await page.goto(server.workbenchUrl, { waitUntil: 'domcontentloaded', timeout: options.timeoutMs ?? 60_000 });
    await page.waitForSelector('.monaco-workbench', { timeout: options.timeoutMs ?? 60_000 });
  } catch (error) {
    await close();
    throw new Error(`the workbench did not render at ${server.workbenchUrl}: ${error.message}`, { cause: error });
  }
  return { browser, page, close };
}
