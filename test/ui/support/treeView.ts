import type { Locator, Page } from 'playwright-core';

// Tasklane's native views (Chores, MCP Servers, Storage) in the side bar, driven as a person would:
// the view's header to open it, a row by its accessible name, its inline and context-menu actions.

/** The view titled `title` in the Tasklane container, opened (its header clicked when collapsed). */
export async function openSideView(page: Page, title: string, timeoutMs = 30_000): Promise<Locator> {
  const header = page.locator(`.part.sidebar .pane-header[aria-label^="${title}"]`).first();
  await header.waitFor({ state: 'visible', timeout: timeoutMs });
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  // The header's parent is the view's pane, which holds its tree.
  return header.locator('xpath=..');
}

/**
 * Folds the Tasklane container's view titled `title` (the chat, say), so the views below get its
 * height: a tree renders only the rows in view, as a person sees only those.
 */
export async function foldSideView(page: Page, title: string): Promise<void> {
  const header = page.locator(`.part.sidebar .pane-header[aria-label^="${title}"]`).first();
  await header.waitFor({ state: 'visible', timeout: 15_000 });
  if ((await header.getAttribute('aria-expanded')) === 'true') await header.click();
}

/** The row of a tree view whose accessible name starts with `label` (and holds `holding`). */
export function treeRow(view: Locator, label: string, holding?: string): Locator {
  const quote = (text: string) => text.replace(/"/g, '\\"');
  return view.locator(`.monaco-list-row[aria-label^="${quote(label)}"]${holding ? `[aria-label*="${quote(holding)}"]` : ''}`).first();
}

/** The accessible names of a tree's rows as shown (expanded children included), top to bottom. */
export async function treeLabels(view: Locator): Promise<string[]> {
  return view.locator('.monaco-list-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? ''));
}

/** Expands a tree row (no-op when it is open). */
export async function expandRow(row: Locator): Promise<void> {
  await row.waitFor({ timeout: 15_000 });
  if ((await row.getAttribute('aria-expanded')) === 'false') await row.locator('.monaco-tl-twistie').click();
}

/** Clicks a row's inline action (the icon shown on hover), named by its command title. */
export async function inlineAction(row: Locator, title: string): Promise<void> {
  // A tooltip still open over another row (the pointer rested there) would take the hover: close it.
  await row.page().mouse.move(0, 0);
  await row.page().keyboard.press('Escape');
  await row.page().locator('.context-view .hover-contents').waitFor({ state: 'hidden', timeout: 5_000 });
  await row.hover();
  await row.locator(`.actions .action-label[aria-label^="${title}"]`).click();
}

/** Runs an action of a row's context menu, named by its command title. */
export async function contextAction(page: Page, row: Locator, title: string): Promise<void> {
  await row.click({ button: 'right' });
  const item = page.locator('.monaco-menu .action-item .action-label', { hasText: title }).first();
  await item.waitFor({ timeout: 10_000 });
  await item.click();
}
