// Types for browser.mjs.
import type { Browser, Page } from 'playwright-core';

/** An open workbench page; close() also closes the browser when openWorkbench launched it. */
export interface OpenWorkbench {
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

export const chromiumPath: string;
export const chromiumArgs: string[];
export function launchChromium(options?: { headless?: boolean }): Promise<Browser>;
export function openWorkbench(
  server: { workbenchUrl: string },
  options?: { browser?: Browser; timeoutMs?: number; viewport?: { width: number; height: number } },
): Promise<OpenWorkbench>;
