/**
 * history.sidebar_open: ms from showing the Tasklane view to the first painted row of its session
 * list, in the real workbench in Chromium, with the history fixture (bench/history.bench.ts) as the
 * extension's store; the baseline is the same with an empty store, in the same run. The view is
 * hidden and shown again for each sample, so VS Code builds a fresh webview that asks the host
 * for its initial state (the first page of sessions) each time.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openTasklaneView, runCommand, startSeededUiSession, startUiSession, tasklaneFrame } from '../test/ui/support/workbench';
import type { UiSession } from '../test/ui/support/workbench';

const SAMPLES = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Starts a run whose Tasklane store is `fixture` (its store/ and agent/ folders), or empty. */
async function startWith(name: string, fixture: string | undefined): Promise<UiSession> {
  if (!fixture) return startUiSession({ name });
  const ui = await startSeededUiSession({ name }, async (storageDir) => {
    // The extension keeps the database and the event streams in one folder.
    for (const part of ['store', 'agent']) fs.cpSync(path.join(fixture, part), storageDir, { recursive: true });
  });
  await (await tasklaneFrame(ui.page, 90_000)).locator('.session-rows .session').first().waitFor({ timeout: 120_000 });
  return ui;
}

/** Hides the view, shows it again, and returns the ms until a session row is painted. */
async function sample(page: Page): Promise<number> {
  await runCommand(page, 'View: Show Explorer');
  await page.waitForTimeout(500);
  const started = performance.now();
  await openTasklaneView(page);
  const frame = await tasklaneFrame(page, 60_000);
  await frame.locator('.session-rows .session').first().waitFor({ state: 'visible', timeout: 60_000 });
  // The row is in the DOM; wait for the frame to paint it.
  await frame.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined))));
  return performance.now() - started;
}

export async function measureSidebarOpen(fixture: string, meta: { sessions: number }): Promise<Record<string, unknown>> {
  const runs: Record<'full' | 'empty', number[]> = { full: [], empty: [] };
  for (const [kind, dir] of [
    ['empty', undefined],
    ['full', fixture],
  ] as const) {
    const ui = await startWith(`bench-history-sidebar-${kind}-${process.pid}`, dir);
    try {
      for (let i = 0; i < SAMPLES + 1; i++) {
        const ms = kind === 'empty' ? await sampleEmpty(ui.page) : await sample(ui.page);
        if (i > 0) runs[kind].push(ms); // the first is a warm-up
      }
    } finally {
      await ui.stop();
    }
  }
  const value = median(runs.full);
  const baseline = median(runs.empty);
  return {
    name: 'history.sidebar_open',
    value: Math.round(value * 100) / 100,
    unit: 'ms',
    sessions: meta.sessions,
    samples: runs.full.map((x) => Math.round(x)),
    baseline: Math.round(baseline * 100) / 100,
    baselineName: 'empty store, same run (first paint of the list: New chat and search box)',
    ratio: Math.round((value / baseline) * 100) / 100,
    target: 300,
  };
}

/** With no session, the list's first paint is its New chat button and search box. */
async function sampleEmpty(page: Page): Promise<number> {
  await runCommand(page, 'View: Show Explorer');
  await page.waitForTimeout(500);
  const started = performance.now();
  await openTasklaneView(page);
  const frame = await tasklaneFrame(page, 60_000);
  await frame.locator('#session-search').waitFor({ state: 'visible', timeout: 60_000 });
  await frame.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined))));
  return performance.now() - started;
}
