import type { Page } from 'playwright-core';

// The palette's quick input (a pick or an input box), driven with the keyboard as a person would.

/** The quick input (palette, pick or input box) whose title contains `title`, once it is shown. */
export async function quickInput(page: Page, title: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  try {
    await widget.locator('.quick-input-title', { hasText: title }).waitFor({ state: 'visible', timeout: 15_000 });
  } catch (error) {
    const shown = await widget
      .locator('.quick-input-title')
      .textContent()
      .catch(() => null);
    throw new Error(`the quick input "${title}" never showed; the title is ${JSON.stringify(shown)}`, { cause: error });
  }
}

/** Picks the item labelled `label` in a quick pick by typing it to filter, then Enter. */
export async function pick(page: Page, title: string, label: string): Promise<void> {
  await quickInput(page, title);
  await page.keyboard.type(label);
  const focused = page.locator('.quick-input-list .monaco-list-row.focused');
  await focused.filter({ hasText: label }).waitFor({ timeout: 5_000 });
  await page.keyboard.press('Enter');
}

/** Replaces the suggested value of an input box with `text` and accepts it; returns the suggested value. */
export async function answer(page: Page, title: string, text: string, beforeEnter?: () => Promise<unknown>): Promise<string> {
  await quickInput(page, title);
  const input = page.locator('.quick-input-widget .quick-input-box input');
  const suggested = await input.inputValue();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(text);
  await beforeEnter?.();
  // Accepting the value moves on to the next quick input (or closes it): wait for the title to change.
  const before = await page.locator('.quick-input-widget .quick-input-title').textContent();
  await page.keyboard.press('Enter');
  await page.waitForFunction(
    (previous) => {
      const widget = document.querySelector('.quick-input-widget') as HTMLElement | null;
      const titleNow = widget?.querySelector('.quick-input-title')?.textContent;
      return !widget || widget.style.display === 'none' || titleNow !== previous;
    },
    before,
    { timeout: 10_000 },
  );
  return suggested;
}
