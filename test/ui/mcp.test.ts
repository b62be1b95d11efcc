import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openTasklaneView, screenshotSidebar, startUiSession, tasklaneFrame } from './support/workbench';
import type { UiSession } from './support/workbench';

// Issue #15, the sidebar part: a broken MCP server is shown with its last error (and the rest of
// Tasklane keeps working), and a repository's server waits for Trust…, which asks in VS Code's own
// modal with the command line before anything runs. Real workbench, real server-everything.
const root = path.resolve(__dirname, '../..');
const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const missing = `tasklane-no-such-mcp-command-${process.pid}`;

describe('ui: the MCP servers section', function () {
  let ui: UiSession | undefined;
  let anyFailed = false;
  const session = () => {
    assert.ok(ui, 'the UI session did not start');
    return ui;
  };

  before(async function () {
    ui = await startUiSession({
      name: 'ui-mcp',
      settings: { 'tasklane.mcp.servers': { broken: { type: 'stdio', command: missing, args: ['--flag'] } } },
    });
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'passed') anyFailed = true;
    if (ui) await screenshotSidebar(ui.page, this.currentTest?.fullTitle() ?? 'ui-mcp');
  });

  after(async function () {
    await ui?.stop({ keep: anyFailed });
  });

  it('a user server whose command cannot start shows as failed with its error', async function () {
    const { page } = session();
    await openTasklaneView(page);
    const frame = await tasklaneFrame(page);
    const section = frame.locator('#mcp-section');
    await section.waitFor({ state: 'visible', timeout: 30_000 });
    // Collapsed by default; its summary says something is broken.
    await frame.locator('#mcp-note', { hasText: '1 broken' }).waitFor({ timeout: 60_000 });
    await section.locator('summary').click();
    const row = frame.locator('.mcp-server[data-server="broken"]');
    await row.locator('.mcp-state', { hasText: 'failed' }).waitFor({ timeout: 15_000 });
    assert.equal(await row.getAttribute('data-state'), 'failed');
    assert.match((await row.locator('.mcp-meta').textContent()) ?? '', new RegExp(`user settings · ${missing} --flag`));
    assert.match((await row.locator('.mcp-error').textContent()) ?? '', /Last error: .*(ENOENT|spawn)/);
    assert.match((await row.getAttribute('aria-label')) ?? '', /MCP server broken from user settings: failed\. Last error:/);
    assert.equal(await row.locator('.mcp-trust').count(), 0, 'a user-settings server offers no Trust…');
    // The chat input still works: a broken server blocks nothing.
    assert.equal(await frame.locator('#chat-input').count(), 1);
  });

  it("a repository's server waits for Trust…, which asks in a modal, then runs", async function () {
    const { page, server } = session();
    fs.mkdirSync(path.join(server.workspaceDir, '.vscode'), { recursive: true });
    const mcpJson = path.join(server.workspaceDir, '.vscode', 'mcp.json');
    const servers: Record<string, unknown> = { everything: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'] } };
    fs.writeFileSync(mcpJson, JSON.stringify({ servers }, null, 2));
    const frame = await tasklaneFrame(page);
    const row = frame.locator('.mcp-server[data-server="everything"]');
    await row.waitFor({ timeout: 30_000 });
    assert.equal(await row.getAttribute('data-state'), 'untrusted');
    assert.match((await row.locator('.mcp-meta').textContent()) ?? '', /workspace \.vscode\/mcp\.json/);
    // Keyboard: the Trust… button is reachable and activates with Enter.
    const trust = row.locator('.mcp-trust');
    await trust.focus();
    // The list updates while the person is in it: another server arrives in mcp.json. The focused
    // Trust… keeps the focus through the redraw, so Enter still lands on it.
    servers.other = { type: 'stdio', command: process.execPath, args: ['other-server.js'] };
    fs.writeFileSync(mcpJson, JSON.stringify({ servers }, null, 2));
    await frame.locator('.mcp-server[data-server="other"]').waitFor({ timeout: 30_000 });
    await frame.locator('#mcp-note', { hasText: '2 not trusted' }).waitFor({ timeout: 15_000 });
    const focusedIn = await frame.evaluate(() => document.activeElement?.closest('.mcp-server')?.getAttribute('data-server') ?? null);
    assert.equal(focusedIn, 'everything', 'the focused Trust… lost the focus when the list updated');
    await page.keyboard.press('Enter');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 15_000 });
    assert.match((await dialog.textContent()) ?? '', /server-everything/, 'the modal shows the command line');
    await dialog
      .locator('a.monaco-button, .monaco-button', { hasText: /^Trust$/ })
      .first()
      .click();
    await frame
      .locator('.mcp-server[data-server="everything"][data-state="running"] .mcp-state', { hasText: /running · \d+ tools/ })
      .waitFor({ timeout: 60_000 });
    assert.equal(await row.locator('.mcp-trust').count(), 0, 'a trusted server offers no Trust… any more');
  });
});
