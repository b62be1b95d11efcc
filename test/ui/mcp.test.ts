import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openTasklaneView, screenshotSidebar, startUiSession, tasklaneFrame } from './support/workbench';
import { contextAction, inlineAction, openSideView, treeLabels, treeRow } from './support/treeView';
import type { UiSession } from './support/workbench';
import { until } from '../support/poll';

// Issue #15, the sidebar part (since issue #21 a view of its own): a broken MCP server is shown with its last error (and the rest of
// Tasklane keeps working), and a repository's server waits for Trust…, which asks in VS Code's own
// modal with the command line before anything runs. Real workbench, real server-everything.
const root = path.resolve(__dirname, '../..');
const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const missing = `tasklane-no-such-mcp-command-${process.pid}`;

describe('ui: the MCP servers view', function () {
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

  it('a user server whose command cannot start shows as failed with its error, in its own view', async function () {
    const { page } = session();
    await openTasklaneView(page);
    // The MCP Servers view appears once a server is configured; it is not a section of the chat.
    const view = await openSideView(page, 'MCP Servers', 60_000);
    const frame = await tasklaneFrame(page);
    assert.equal(await frame.locator('#mcp-section').count(), 0, 'the chat view holds no MCP section any more');
    const row = treeRow(view, 'broken failed: MCP server from user settings');
    await row.waitFor({ timeout: 60_000 });
    assert.match((await row.getAttribute('aria-label')) ?? '', /^broken failed: MCP server from user settings\. Last error: .*(ENOENT|spawn)/);
    assert.match((await row.textContent()) ?? '', /broken\s*failed/);
    // A broken server opens by itself: where it comes from and its error are its children (drawn a
    // moment after the row itself, so read once both are there).
    const labels = await until('the broken server to show its children', async () => {
      const now = await treeLabels(view);
      return now.some((l) => l.startsWith('user settings · ')) && now.some((l) => l.startsWith('Last error: ')) ? now : undefined;
    }).catch(async () => treeLabels(view));
    assert.ok(
      labels.some((l) => l === `user settings · ${missing} --flag`),
      labels.join('\n'),
    );
    assert.ok(
      labels.some((l) => /^Last error: .*(ENOENT|spawn)/.test(l)),
      labels.join('\n'),
    );
    await row.hover();
    assert.equal(await row.locator('.actions .action-label[aria-label^="Trust"]').count(), 0, 'a user-settings server offers no Trust…');
    // The chat input still works: a broken server blocks nothing.
    assert.equal(await frame.locator('#chat-input').count(), 1);
  });

  it("a repository's server waits for Trust…, which asks in a modal, then runs", async function () {
    const { page, server } = session();
    fs.mkdirSync(path.join(server.workspaceDir, '.vscode'), { recursive: true });
    const mcpJson = path.join(server.workspaceDir, '.vscode', 'mcp.json');
    const servers: Record<string, unknown> = { everything: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'] } };
    fs.writeFileSync(mcpJson, JSON.stringify({ servers }, null, 2));
    const view = await openSideView(page, 'MCP Servers');
    const row = treeRow(view, 'everything not trusted: MCP server from workspace .vscode/mcp.json');
    await row.waitFor({ timeout: 30_000 });
    // Another server arrives in mcp.json while the person looks: both wait for trust.
    servers.other = { type: 'stdio', command: process.execPath, args: ['other-server.js'] };
    fs.writeFileSync(mcpJson, JSON.stringify({ servers }, null, 2));
    await treeRow(view, 'other not trusted: MCP server from workspace .vscode/mcp.json').waitFor({ timeout: 30_000 });
    await inlineAction(row, 'Trust');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 15_000 });
    assert.match((await dialog.textContent()) ?? '', /server-everything/, 'the modal shows the command line');
    await dialog
      .locator('a.monaco-button, .monaco-button', { hasText: /^Trust$/ })
      .first()
      .click();
    const running = treeRow(view, 'everything running');
    await running.waitFor({ timeout: 60_000 });
    assert.match((await running.getAttribute('aria-label')) ?? '', /running · \d+ tools/);
    await running.hover();
    assert.equal(await running.locator('.actions .action-label[aria-label^="Trust"]').count(), 0, 'a trusted server offers no Trust… any more');
    // What was trusted can be taken back from the same row.
    await contextAction(page, running, 'Stop Trusting');
    let rows: string[] = [];
    await until(
      'the server to wait for Trust again',
      async () => (rows = await treeLabels(view)).some((l) => l.startsWith('everything not trusted: MCP server from workspace .vscode/mcp.json')),
      { timeoutMs: 30_000, detail: () => `rows: ${rows.join(' | ')}` },
    );
  });
});
