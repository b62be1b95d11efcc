import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateTasklane, modelSaw, quiesce, requestsText, resetModel, scriptModel, until, useScriptedModel, waitForState } from './support/tasklane';

// MCP servers a repository ships, in a real extension host, against the reference server
// (@modelcontextprotocol/server-everything from the npm registry): nothing starts before the
// person trusts the exact definition; then the tools reach a task, each call waits for approval,
// and the real result reaches the model.
interface McpState {
  name: string;
  state: string;
  consent: string;
  hash: string;
  target: string;
  tools?: number;
}
interface Pending {
  id: string;
  kind: string;
  command?: string;
}

const repoRoot = process.env.TASKLANE_REPO_ROOT ?? '';
const everything = path.join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const marker = `tasklane-host-mcp-${process.pid}`;
const servers = async () => ((await vscode.commands.executeCommand('tasklane.getState')) as { mcpServers: McpState[] }).mcpServers;
const running = () => execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(marker)).length;

describe('host: MCP servers a repository ships', function () {
  this.timeout(120_000);
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri;
  const mcpJson = () => vscode.Uri.joinPath(folder(), '.vscode/mcp.json');
  const approval = () => vscode.workspace.getConfiguration('tasklane.approval');

  before(async () => {
    assert.ok(repoRoot, 'the host tier passes TASKLANE_REPO_ROOT');
    await activateTasklane();
    await quiesce();
    await useScriptedModel();
    const file = `{
  // JSONC, as VS Code writes it
  "servers": { "everything": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(everything)}, "stdio", "${marker}"], }, },
}`;
    await vscode.workspace.fs.writeFile(mcpJson(), new TextEncoder().encode(file));
  });
  beforeEach(() => resetModel());
  after(async () => {
    await vscode.commands.executeCommand('tasklane.distrustMcpServer', 'everything');
    await vscode.workspace.fs.delete(mcpJson());
    await approval().update('allowedCommands', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('tasklane.model').update('provider', undefined, vscode.ConfigurationTarget.Global);
  });

  it('untrusted: listed with what it would run, but no process and no tools', async () => {
    const server = await until('the server in getState', async () => (await servers()).find((s) => s.name === 'everything'));
    assert.equal(server?.consent, 'needed');
    assert.equal(server?.state, 'untrusted');
    assert.match(server?.target ?? '', /server-everything/);
    assert.equal(server?.tools, undefined);
    assert.equal(running(), 0, 'no server process before trust');
  });

  it('trusted: the call waits for approval, then the real result reaches the model', async () => {
    const server = (await servers()).find((s) => s.name === 'everything');
    assert.equal(await vscode.commands.executeCommand('tasklane.trustMcpServer', 'everything', server!.hash), true);
    await until('the tools to be listed', async () => ((await servers())[0]?.tools ?? 0) > 0 || undefined);
    assert.equal(running(), 1, 'one server process once trusted');
    await scriptModel([
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Echo through MCP', instruction: 'Call the echo tool', mode: 'simple', actionSets: ['mcp:everything'] } }] },
      { toolCalls: [{ name: 'mcp_everything_echo', arguments: { message: 'hello from the host tier' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'echoed' } }] },
    ]);
    await vscode.commands.executeCommand('tasklane.sendMessage', 'echo something through MCP');
    const state = await waitForState((s) => ((s as unknown as { approvals: Pending[] }).approvals ?? []).some((a) => a.kind === 'mcp'));
    const card = (state as unknown as { approvals: Pending[] }).approvals.find((a) => a.kind === 'mcp')!;
    assert.match(card.command ?? '', /^everything\/echo \{"message":"hello from the host tier"\}$/);
    const seen = (await requestsText()).length;
    await vscode.commands.executeCommand('tasklane.approve', card.id);
    await modelSaw(/MCP tool everything\/echo returned:\\nEcho: hello from the host tier/, seen);
  });

  it('a changed definition needs trust again and its tools stop being offered', async () => {
    const before = (await servers()).find((s) => s.name === 'everything')!;
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(mcpJson())).replace('"stdio", "tasklane', '"stdio", "changed", "tasklane');
    await vscode.workspace.fs.writeFile(mcpJson(), new TextEncoder().encode(text));
    const after = await until('the changed definition', async () => (await servers()).find((s) => s.hash !== before.hash));
    assert.equal(after.consent, 'needed');
    assert.equal(after.state, 'untrusted');
    await until('the old server process to stop', async () => running() === 0 || undefined);
    await approval().update('allowedCommands', ['mcp:everything/echo'], vscode.ConfigurationTarget.Global);
    await scriptModel([
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Echo again', instruction: 'Call echo', mode: 'simple', actionSets: ['mcp:everything'] } }] },
      { toolCalls: [{ name: 'mcp_everything_echo', arguments: { message: 'after the change' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'done' } }] },
    ]);
    const seen = (await requestsText()).length;
    await vscode.commands.executeCommand('tasklane.sendMessage', 'echo again');
    // Even allowlisted, an untrusted server's tool does not run.
    await modelSaw(/not trusted|no action 'mcp_everything_echo'/, seen);
  });
});
