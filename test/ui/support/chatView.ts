import type { Locator, Page } from 'playwright-core';
import { quickInput } from './quickInput';

// The Chat view's own title actions (New Chat, Show Conversations, Select Model), used as a person
// does: the Chat view holds no conversation list, History is a native quick pick.

/** A title action of the Chat view (the Tasklane container also holds Chores and Storage: the Chat view's header, not the container's). */
export function chatViewAction(page: Page, label: 'New Chat' | 'Show Conversations' | 'Select Model'): Locator {
  return page.locator(`.part.sidebar .pane-header[aria-label^="Chat"] .action-label[aria-label^="${label}"]`);
}

/** New Chat in the Chat view's title. */
export async function newChat(page: Page): Promise<void> {
  await chatViewAction(page, 'New Chat').click();
}

/** The History title action's quick pick, once its rows are shown. */
export async function showConversations(page: Page): Promise<void> {
  // A pick still closing (the one a conversation was just opened from) has the same title and its
  // old filter: wait for it to go, so the rows read are the new pick's.
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
  await chatViewAction(page, 'Show Conversations').click();
  await quickInput(page, 'Tasklane: conversations');
  await page.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 30_000 });
}

/**
 * Opens the conversation titled `name` from History: typed into the quick input to filter, the
 * keyboard moved to the row whose title is exactly `name` (typing "session 3" also matches
 * "session 399"), then Enter.
 */
export async function openFromHistory(page: Page, name: string): Promise<void> {
  await showConversations(page);
  await page.keyboard.type(name);
  const focused = page.locator('.quick-input-list .monaco-list-row.focused');
  // A row's aria-label is its title, then ", " and its description.
  const isNamed = async () => {
    const label = (await focused.getAttribute('aria-label', { timeout: 5_000 })) ?? '';
    return label === name || label.startsWith(`${name}, `);
  };
  for (let moves = 0; !(await isNamed()); moves++) {
    if (moves >= 20) throw new Error(`History never focused a conversation titled "${name}"; it shows ${JSON.stringify(await listed(page))}`);
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
}

/** The headings of History's sections (src/host/conversationPicks.ts), in English. */
const HEADINGS = ['Waiting for you', 'Today', 'Yesterday', 'Older'];

/**
 * The conversation rows the quick pick shows now, in order, each as its aria-label ("title,
 * description"). The workbench adds a section's heading to the label of its first row (", Today"):
 * that is taken off; the last row, Search inside conversations, is left out.
 */
export async function listed(page: Page): Promise<string[]> {
  // The list is virtual: its rows' places are their data-index, not their order in the DOM.
  const rows = await page
    .locator('.quick-input-list .monaco-list-row')
    .evaluateAll((els) => els.map((row) => ({ index: Number(row.getAttribute('data-index')), label: row.getAttribute('aria-label') ?? '' })));
  const heading = new RegExp(`, (${HEADINGS.join('|')})$`);
  return rows
    .sort((a, b) => a.index - b.index)
    .map((row) => row.label.replace(heading, ''))
    .filter((label) => !HEADINGS.includes(label) && !label.includes('Search inside conversations'));
}
