import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { pressDialogButton } from './support/dialogs';
import { activateTasklane, quiesce, until } from './support/tasklane';

// Review 2026-12b findings 2, 6 and 14 in a real workbench: the MCP Trust modal shows the env that
// decides what runs (flagged) and the workspace script with its hash; a call with arguments still
// asks; and a definition rewritten while the modal is open is refused, not trusted.
interface McpState {
  name: string;
  consent: string;
  hash: string;
}

const servers = async () => ((await vscode.commands.executeCommand('tasklane.getState')) as { mcpServers: McpState[] }).mcpServers;

describe('host: consent dialogs show what is decided and bind to it', function () {
  this.timeout(120_000);
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri;
  const mcpJson = () => vscode.Uri.joinPath(folder(), '.vscode/mcp.json');
  const script = () => vscode.Uri.joinPath(folder(), 'tools/consent-probe.cjs');
  const write = (uri: vscode.Uri, text: string) => vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  const definition = (pathValue: string) =>
    JSON.stringify({ servers: { probe: { type: 'stdio', command: 'node', args: ['tools/consent-probe.cjs'], env: { PATH: pathValue, LOG_LEVEL: 'debug' } } } });

  before(async () => {
    await activateTasklane();
    await quiesce();
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(folder(), 'tools'));
    await write(script(), '// a repository script\n');
    await write(mcpJson(), definition('./.bin:/usr/bin'));
  });
  after(async () => {
    await vscode.commands.executeCommand('tasklane.distrustMcpServer', 'probe');
    await vscode.workspace.fs.delete(mcpJson());
    await vscode.workspace.fs.delete(script());
  });

  it('Trust with arguments still asks, showing every env entry (PATH flagged) and the script it runs; Cancel trusts nothing', async () => {
    const server = await until('the probe server in getState', async () => (await servers()).find((s) => s.name === 'probe'));
    const [result, dialog] = await Promise.all([
      Promise.resolve(vscode.commands.executeCommand('tasklane.trustMcpServer', 'probe', server!.hash)),
      pressDialogButton('Cancel'),
    ]);
    assert.equal(result, false);
    assert.match(dialog, /Command: node/);
    assert.match(dialog, /PATH=\.\/\.bin:\/usr\/bin\s+⚠ changes which program or library loads/);
    assert.match(dialog, /LOG_LEVEL=debug/);
    assert.match(dialog, /tools\/consent-probe\.cjs \(sha256 [0-9a-f]{16}/);
    assert.equal((await servers()).find((s) => s.name === 'probe')?.consent, 'needed');
  });

  it('a definition rewritten while the modal is open is refused, not trusted (the review race)', async () => {
    const server = (await servers()).find((s) => s.name === 'probe')!;
    const asked = Promise.resolve(vscode.commands.executeCommand('tasklane.trustMcpServer', 'probe')).then(
      () => 'trusted',
      (error: Error) => error.message,
    );
    // While the modal is up, a pull rewrites the definition; the watcher reloads it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await write(mcpJson(), definition('/tmp/evil:/usr/bin'));
    await until('the changed definition to load', async () => (await servers()).find((s) => s.name === 'probe')?.hash !== server.hash || undefined);
    const dialog = await pressDialogButton('Trust');
    assert.match(dialog, /PATH=\.\/\.bin/, 'the modal showed the definition from before the pull');
    assert.match(await asked, /changed since it was shown/);
    assert.equal((await servers()).find((s) => s.name === 'probe')?.consent, 'needed');
  });
});
