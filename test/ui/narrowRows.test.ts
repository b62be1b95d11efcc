import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';

// Issue #36: in a narrow side bar a failed step row wrapped its words a letter a line, its long
// failure note taking the row's width. The row, as the webview builds it (renderStep), in the
// sidebar's own stylesheet, laid out by Chromium at the narrowest side bar (170 px): the words
// keep a readable width and the failure goes under them. No workbench: only the layout is tested.
const CSS = fs.readFileSync(path.resolve(__dirname, '../../media/sidebar.css'), 'utf8');

/** A failed edit's row and a command's, as stepRows.ts renders them (classes and order). */
const ROWS = `
<li class="step step-failed step-edit" data-state="failed"><span class="step-icon codicon codicon-edit" aria-hidden="true"></span><span class="step-text">Could not propose an edit to <code>src/components/greeting/greetAll.ts</code></span><span class="step-note">The text to replace was not found in src/components/greeting/greetAll.ts, so nothing was changed</span></li>
<li class="step step-failed step-command" data-state="failed"><span class="step-icon codicon codicon-terminal" aria-hidden="true"></span><span class="step-text">Ran <code>npm run build</code></span><span class="step-note">✗ exit code 2 · 14.2 s</span></li>`;

describe('ui: step rows at 170 px', function () {
  let browser: Browser | undefined;
  before(async function () {
    this.timeout(60_000);
    const { launchChromium } = await import('../harness/browser.mjs');
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  it('a failed row keeps its words readable: no letter-a-line wrapping, the failure under them', async function () {
    assert.ok(browser);
    const page = await browser.newPage({ viewport: { width: 170, height: 600 } });
    try {
      await page.setContent(
        `<html><head><style>${CSS}</style></head><body><main id="conversation"><section id="transcript"><article class="task-block"><ol class="steps">${ROWS}</ol></article></section></main></body></html>`,
      );
      // No named functions inside: the test's compiler would wrap them in a helper the page lacks.
      const rows = await page.locator('.step').evaluateAll((els) =>
        els.map((row) => {
          const text = row.querySelector('.step-text')!.getBoundingClientRect();
          const note = row.querySelector('.step-note')!.getBoundingClientRect();
          const lineHeight = parseFloat(getComputedStyle(row.querySelector('.step-text')!).lineHeight) || 16;
          return { textWidth: text.width, textLines: Math.round(text.height / lineHeight), noteBelow: note.top >= text.bottom - 1, noteWidth: note.width };
        }),
      );
      for (const [i, row] of rows.entries()) {
        assert.ok(row.textWidth >= 90, `row ${i}: its words have ${row.textWidth} px (a letter a line is ~10)`);
        assert.ok(row.textLines <= 4, `row ${i}: its words take ${row.textLines} lines`);
        assert.ok(row.noteBelow, `row ${i}: the failure is beside the words, squeezing them`);
        assert.ok(row.noteWidth >= 90, `row ${i}: the failure has ${row.noteWidth} px`);
      }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 1, `the page scrolls ${overflow} px sideways`);
    } finally {
      await page.close();
    }
  });
});
