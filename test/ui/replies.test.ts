import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Frame } from 'playwright-core';
import { openTasklaneView, route, screenshotSidebar, sendChatMessage, startUiSession, tasklaneFrame, waitForAssistantMessage } from './support/workbench';
import type { UiSession } from './support/workbench';

// Rendered replies on the real workbench: Markdown with highlighted code and its actions, file
// links that open the file, and a hostile reply (remote image, script, javascript: link) that
// fetches and runs nothing, behind the webview's CSP.
describe('ui: replies render as Markdown, safely', function () {
  let ui: UiSession | undefined;
  let frame: Frame;
  let anyFailed = false;
  // A local server standing in for an attacker's: any request to it is a failure.
  const hits: string[] = [];
  let bait: http.Server;
  let baitUrl = '';

  const session = (): UiSession => {
    assert.ok(ui, 'the UI session did not start');
    return ui;
  };

  before(async function () {
    bait = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' }).end();
    });
    await new Promise<void>((resolve) => bait.listen(0, '127.0.0.1', resolve));
    baitUrl = `http://127.0.0.1:${(bait.address() as AddressInfo).port}`;
    ui = await startUiSession({ name: 'ui-replies' });
    await openTasklaneView(ui.page);
    frame = await tasklaneFrame(ui.page);
  });
  afterEach(async function () {
    if (this.currentTest?.state !== 'passed') anyFailed = true;
    if (ui) await screenshotSidebar(ui.page, this.currentTest?.fullTitle() ?? 'ui-replies');
  });
  after(async function () {
    await ui?.stop({ keep: anyFailed });
    await new Promise((resolve) => bait?.close(resolve));
  });

  /** Sends `prompt`; the scripted model answers `reply`; resolves with the rendered message. */
  async function reply(prompt: string, text: string, marker: RegExp) {
    await session().model.reset();
    const r = route('reply');
    await session().script(r, [{ text }]);
    await sendChatMessage(frame, `${prompt} ${r}`);
    return waitForAssistantMessage(frame, marker);
  }

  it('renders a Markdown reply: strong, highlighted pre code with Copy / Insert / Propose, a table', async function () {
    const message = await reply(
      'show me markdown',
      'Here is **bold** text and a `README.md:1` link.\n\n```ts\nconst answer: number = 42;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n',
      /Here is bold/,
    );
    assert.equal(await message.locator('.md strong').textContent(), 'bold');
    const code = message.locator('.code-block pre code');
    assert.equal(await code.count(), 1, 'no pre code rendered');
    assert.match((await code.textContent()) ?? '', /const answer: number = 42;/);
    // Coloured as it comes into view (codeHighlighter.ts): a moment after the reply shows.
    await code.locator('span.hljs-keyword').first().waitFor({ timeout: 15_000 });
    assert.deepEqual(await message.locator('.code-block .code-action').allTextContents(), ['Copy', 'Insert at Cursor', 'Propose as Edit']);
    assert.equal(await message.locator('.md table td').count(), 2);
    // Nothing of the Markdown source shows through.
    assert.doesNotMatch((await message.textContent()) ?? '', /\*\*|```/);
    await screenshotSidebar(session().page, 'ui-replies-markdown');
  });

  it('a long reply shows its code at once and colours each block as it scrolls into view', async function () {
    const block = (n: number) => ['```ts', ...Array.from({ length: 60 }, (_, i) => `const v${n}_${i}: number = await load(${i});`), '```'].join('\n');
    const text = ['Long reply start.', ...Array.from({ length: 12 }, (_, n) => `Block ${n}:\n\n${block(n)}`), 'Long reply end.'].join('\n\n');
    const message = await reply('a long reply please', text, /Long reply start/);
    const codes = message.locator('.code-block pre code');
    assert.equal(await codes.count(), 12);
    // The view follows the end: the last block is in view and gets its colours without any input.
    await codes.last().locator('span.hljs-keyword').first().waitFor({ timeout: 15_000 });
    // The first block is many screens up: still plain text (but all of it, for Copy and reading).
    assert.equal(await codes.first().locator('span.hljs-keyword').count(), 0, 'a block far out of view was highlighted up front');
    assert.match((await codes.first().textContent()) ?? '', /const v0_59: number = await load\(59\);/);
    await codes.first().scrollIntoViewIfNeeded();
    await codes.first().locator('span.hljs-keyword').first().waitFor({ timeout: 15_000 });
  });

  it('a 2,000-line reply shows its end at once, renders the rest in sections, and stays at the bottom', async function () {
    // Every section placeholder the view adds and later replaces is counted in the page.
    // (tsx compiles with keepNames: a function passed to evaluate calls a __name helper the page lacks.)
    await frame.evaluate('window.__name = (f) => f');
    await frame.evaluate(() => {
      const seen = { added: 0, removed: 0 };
      (window as unknown as { __pending: typeof seen }).__pending = seen;
      const isPending = (n: Node) => n instanceof HTMLElement && n.classList.contains('md-pending');
      new MutationObserver((records) => {
        for (const r of records) {
          for (const n of r.addedNodes) {
            if (isPending(n)) seen.added++;
            if (n instanceof HTMLElement) seen.added += n.querySelectorAll('.md-pending').length;
          }
          for (const n of r.removedNodes) if (isPending(n)) seen.removed++;
        }
      }).observe(document.querySelector('#transcript') as HTMLElement, { childList: true, subtree: true });
    });
    const block = (n: number) =>
      ['```ts', ...Array.from({ length: 86 }, (_, i) => `const s${n}_${i}: string = await read("src/${n}/${i}.ts");`), '```'].join('\n');
    const steps = Array.from(
      { length: 20 },
      (_, n) => `## Step ${n + 1}\n\nChange **src/file${n}.ts** as [described][docs].\n\n- [x] read it\n- [ ] change it\n\n${block(n)}`,
    );
    const text = ['Sectioned reply start.', ...steps, 'Sectioned reply end.', '[docs]: https://example.com/docs'].join('\n\n');
    // The test before scrolled up to an old block: back to the end, where a person reading along is.
    const transcript = frame.locator('#transcript');
    await transcript.evaluate((t) => (t.scrollTop = t.scrollHeight));
    const message = await reply('a very long reply please', text, /Sectioned reply end/);
    await message.locator('.md-pending').first().waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(await message.locator('.md-pending').count(), 0, 'sections were left unrendered');
    const pending = await frame.evaluate(() => (window as unknown as { __pending: { added: number; removed: number } }).__pending);
    assert.ok(pending.added > 0, 'the long reply was rendered at once, not in sections');
    assert.equal(pending.removed, pending.added, 'a placeholder was not replaced by its section');
    // The whole reply, once all sections are in: every block, the first text, the reference
    // defined at the very end resolving in the first section.
    const codes = message.locator('.code-block pre code');
    assert.equal(await codes.count(), 20);
    assert.match((await message.textContent()) ?? '', /^Sectioned reply start\./);
    assert.match((await codes.first().textContent()) ?? '', /const s0_85: string = await read\("src\/0\/85.ts"\);/);
    assert.equal(await message.locator('a.md-link[href="https://example.com/docs"]').count(), 20);
    assert.equal(await message.locator('h2').count(), 20);
    // Sections rendered above the view did not pull the transcript away from the end it follows.
    const atBottom = await transcript.evaluate((t) => t.scrollTop + t.clientHeight >= t.scrollHeight - 4);
    assert.ok(atBottom, 'the transcript no longer shows the end of the reply');
    // The race a loaded machine makes: the view is pinned to the end, and the reply grows again
    // before that scroll's event is dispatched (a frame later). The event then finds the view off
    // the end, though nobody scrolled: the view must still follow and come back to the end.
    await message.locator('.md').evaluate((md) => {
      const t = document.querySelector('#transcript') as HTMLElement;
      const grow = () => md.appendChild(Object.assign(document.createElement('div'), { className: 'test-growth', style: 'height: 240px' }));
      grow();
      t.scrollTop = t.scrollHeight;
      grow();
    });
    await frame.waitForFunction(
      () => {
        const t = document.querySelector('#transcript') as HTMLElement;
        return t.scrollTop + t.clientHeight >= t.scrollHeight - 4;
      },
      undefined,
      { timeout: 5_000 },
    );
    await message.evaluate((m) => m.querySelectorAll('.test-growth').forEach((d) => d.remove()));
    await message.locator('h2').first().scrollIntoViewIfNeeded();
    await codes.first().locator('span.hljs-keyword').first().waitFor({ timeout: 15_000 });
  });

  it('opens README.md at its line from a path link in a reply', async function () {
    await frame.locator('#transcript a.file-link[data-path="README.md"]').last().click();
    await session().page.locator('.tabs-container .tab', { hasText: 'README.md' }).first().waitFor({ timeout: 15_000 });
  });

  it('@ attaches a file as a removable chip, and the model request carries its content', async function () {
    await session().model.reset();
    const r = route('attachment');
    await session().script(r, [{ text: 'Read your changelog.' }]);
    const textarea = frame.locator('#chat-input textarea');
    await textarea.click();
    await textarea.fill('');
    await textarea.press('@');
    const page = session().page;
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'File…' }).first().click();
    await page.locator('.quick-input-widget .quick-input-box input').fill('CHANGELOG.md');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'CHANGELOG.md' }).first().click();
    const chip = frame.locator('#attachments .chip', { hasText: 'CHANGELOG.md' });
    await chip.waitFor({ timeout: 15_000 });
    await sendChatMessage(frame, `what changed? ${r}`);
    await waitForAssistantMessage(frame, /Read your changelog/);
    const requests = JSON.stringify(await session().model.requests());
    assert.ok(requests.includes('First release: `greet` and `mean`.'), 'the model request does not carry the attached file');
    assert.ok(requests.includes('<attachment kind=\\"file\\" name=\\"CHANGELOG.md\\">'), 'the attachment is not marked as context');
    assert.equal(await frame.locator('#attachments .chip').count(), 0, 'the chip stays after the message was sent');
  });

  it('a reply with a remote image, a script and a javascript: link fetches nothing and leaves no live link', async function () {
    hits.length = 0;
    const hostile = [
      'Hostile reply.',
      `<img src="${baitUrl}/raw-img.png">`,
      `<script src="${baitUrl}/script.js"></script><script>fetch('${baitUrl}/inline-script')</script>`,
      `![chart](${baitUrl}/md-image.png)`,
      `[click me](javascript:fetch('${baitUrl}/js-link'))`,
      `<a href="${baitUrl}/raw-link" onclick="fetch('${baitUrl}/onclick')">raw</a>`,
    ].join('\n\n');
    const message = await reply('hostile', hostile, /Hostile reply/);
    const transcript = frame.locator('#transcript');
    assert.equal(await transcript.locator('img, script, iframe, object, embed').count(), 0, 'an element that fetches or runs was rendered');
    assert.equal(await transcript.locator('[href^="javascript:" i], [src], [onclick]').count(), 0, 'a live javascript: link or handler is left');
    const inert = message.locator('.md-link-inert', { hasText: 'click me' });
    assert.equal(await inert.count(), 1, 'the javascript: link text is not shown as inert text');
    await inert.click();
    // The remote image is at most a text link; the raw HTML is text.
    assert.match((await message.textContent()) ?? '', /<img src=/);
    assert.equal(await message.locator('a.md-image').count(), 1);

    // The CSP is the one the provider sets: no remote source for anything.
    const csp = (await frame.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')) ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-[^']+'/);
    // Images only from the webview's own resources (VS Code's cspSource) and data: — never a page or http: host.
    assert.doesNotMatch(csp, /img-src[^;]*(http:|127\.0\.0\.1|\s\*(\s|;|$))/);
    // And it holds even against markup that bypassed the renderer: a live <img> planted in the page.
    await frame.evaluate((url) => {
      const img = document.createElement('img');
      img.src = `${url}/planted.png`;
      img.id = 'planted';
      document.body.appendChild(img);
    }, baitUrl);
    const planted = await frame
      .locator('#planted')
      .evaluate(
        (img: HTMLImageElement) =>
          new Promise<string>((resolve) => (img.complete ? resolve(img.naturalWidth > 0 ? 'loaded' : 'blocked') : (img.onerror = () => resolve('blocked')))),
      );
    assert.equal(planted, 'blocked');

    // A full model round trip after the render: anything the reply could have fetched has been asked for by now.
    await reply('after the hostile one', 'All quiet.', /All quiet/);
    assert.deepEqual(hits, [], `the reply made the webview request ${hits.join(', ')}`);
  });
});
