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
  await closeTooltips(row.page());
  await row.hover();
  await row.locator(`.actions .action-label[aria-label^="${title}"]`).click();
}

/** Runs an action of a row's context menu, named by its command title. */
export async function contextAction(page: Page, row: Locator, title: string): Promise<void> {
  await closeTooltips(page);
  await row.click({ button: 'right' });
  const item = page.locator('.monaco-menu .action-item .action-label', { hasText: title }).first();
  await item.waitFor({ timeout: 10_000 });
  // VS Code's menu ignores a click that comes too soon after it opened (so the right button's own
  // release picks nothing); on a busy machine ours can: click again until the menu has closed.
  const menu = page.locator('.monaco-menu');
  for (let attempt = 0; ; attempt++) {
    await item.click();
    const closed = await menu.waitFor({ state: 'hidden', timeout: 2_000 }).then(
      () => true,
      () => false,
    );
    if (closed) return;
    if (attempt === 2) throw new Error(`the context menu stayed open after clicking "${title}" three times`);
  }
}

/** Closes a tooltip left open over a row (the pointer rested there): it would take the next hover or click. */
async function closeTooltips(page: Page): Promise<void> {
  await page.mouse.move(0, 0);
  await page.keyboard.press('Escape');
  await page.locator('.context-view .hover-contents').waitFor({ state: 'hidden', timeout: 5_000 });
}
