import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  activateTasklane,
  heldAt,
  modelSaw,
  quiesce,
  releaseGate,
  requestsText,
  resetModel,
  route,
  scriptModel,
  until,
  useScriptedModel,
  waitForState,
} from './support/tasklane';
import { asPerson, sendMessage } from './support/asPerson';

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
const running = () =>
  execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(marker)).length;

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
    assert.equal(await asPerson(() => vscode.commands.executeCommand('tasklane.trustMcpServer', 'everything', server!.hash), 'Trust'), true);
    await until('the tools to be listed', async () => ((await servers())[0]?.tools ?? 0) > 0 || undefined);
    assert.equal(running(), 1, 'one server process once trusted');
    const r = route('mcp-echo');
    await scriptModel(r, [
      {
        toolCalls: [
          { name: 'task_start', arguments: { name: 'Echo through MCP', instruction: 'Call the echo tool', mode: 'simple', actionSets: ['mcp:everything'] } },
        ],
      },
      { toolCalls: [{ name: 'mcp_everything_echo', arguments: { message: 'hello from the host tier' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'echoed' } }] },
    ]);
    await sendMessage(`echo something through MCP ${r}`);
    const state = await waitForState((s) => ((s as unknown as { approvals: Pending[] }).approvals ?? []).some((a) => a.kind === 'mcp'));
    const card = (state as unknown as { approvals: Pending[] }).approvals.find((a) => a.kind === 'mcp')!;
    assert.match(card.command ?? '', /^everything\/echo \{"message":"hello from the host tier"\}$/);
    const seen = (await requestsText(r)).length;
    await asPerson(() => vscode.commands.executeCommand('tasklane.approve', card.id), 'Approve');
    await modelSaw(/MCP tool everything\/echo returned:\\nEcho: hello from the host tier/, seen, r);
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
    const r = route('mcp-echo-again');
    await scriptModel(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Echo again', instruction: 'Call echo', mode: 'simple', actionSets: ['mcp:everything'] } }] },
      // Not offered any more (the server is not trusted): the engine's answer to the call is what is checked.
      { anyTool: true, toolCalls: [{ name: 'mcp_everything_echo', arguments: { message: 'after the change' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'done' } }] },
    ]);
    await sendMessage(`echo again ${r}`);
    // Even allowlisted, an untrusted server's tool does not run: its set is not offered any more
    // (task_start refuses it, naming the sets that exist), and its tool is not an action.
    await modelSaw(/not trusted|no action 'mcp_everything_echo'|unknown action set .{1,6}mcp:everything.{1,6}: the sets that exist are/, 0, r);
  });
});

// The user's own servers (trusted by their author): a crash, a hang and the Streamable HTTP
// transport, each seen by a task the way the model sees it. Signals: the server's state in
// getState (crashed), the server's own "listening" line, the model request that carries the result.
describe('host: MCP servers of the user: crash, hang, Streamable HTTP', function () {
  this.timeout(120_000);
  const soloMarker = `tasklane-host-mcp-solo-${process.pid}`;
  const user = () => vscode.workspace.getConfiguration('tasklane.mcp');
  const allowed = () => vscode.workspace.getConfiguration('tasklane.approval');
  let web: ChildProcess | undefined;
  let port = 0;

  /** A task that calls one MCP tool; resolves with the model request text that carries its result. */
  async function callThroughTask(server: string, tool: string, args: object, expect: RegExp): Promise<string> {
    const r = route('mcp-call');
    await scriptModel(r, [
      {
        toolCalls: [
          {
            name: 'task_start',
            arguments: { name: `Call ${server}/${tool} ${Date.now()}`, instruction: `Call ${tool}`, mode: 'simple', actionSets: [`mcp:${server}`] },
          },
        ],
      },
      { toolCalls: [{ name: `mcp_${server}_${tool.replace(/-/g, '_')}`, arguments: args }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'called' } }] },
    ]);
    await sendMessage(`call ${server}/${tool} ${r}`);
    return modelSaw(expect, 0, r);
  }

  before(async () => {
    await activateTasklane();
    await quiesce();
    await useScriptedModel();
    port = await new Promise<number>((resolve, reject) => {
      const probe = net.createServer();
      probe.on('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    web = spawn(process.execPath, [everything, 'streamableHttp'], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      let said = '';
      web!.stderr?.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (/listening on port/.test(said)) resolve();
      });
      web!.on('exit', (code) => reject(new Error(`server-everything (HTTP) exited ${code}: ${said}`)));
    });
    await allowed().update(
      'allowedCommands',
      ['mcp:solo/echo', 'mcp:solo/trigger-long-running-operation', 'mcp:web/echo', 'mcp:pages/add_tool', 'mcp:pages/late_tool'],
      vscode.ConfigurationTarget.Global,
    );
    await user().update(
      'servers',
      {
        solo: { type: 'stdio', command: process.execPath, args: [everything, 'stdio', soloMarker] },
        web: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
        // Pages its tools/list and adds a tool on request, saying so with list_changed.
        pages: { type: 'stdio', command: process.execPath, args: [path.join(repoRoot, 'test/fixtures/pagingMcpServer.mjs')] },
      },
      vscode.ConfigurationTarget.Global,
    );
    // Their tools reach the agent once listed: the signal is the tool count in getState.
    await until('both servers to list their tools', async () => {
      const listed = (await servers()).filter((s) => ['solo', 'web', 'pages'].includes(s.name) && (s.tools ?? 0) > 0);
      return listed.length === 3 || undefined;
    });
  });
  beforeEach(() => resetModel());
  after(async () => {
    web?.kill();
    await user().update('servers', undefined, vscode.ConfigurationTarget.Global);
    await user().update('callTimeoutSeconds', undefined, vscode.ConfigurationTarget.Global);
    await allowed().update('allowedCommands', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('tasklane.model').update('provider', undefined, vscode.ConfigurationTarget.Global);
  });

  it('a killed server is shown crashed with its error, and restarted on the next call', async () => {
    await callThroughTask('solo', 'echo', { message: 'before the kill' }, /Echo: before the kill/);
    const pids = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes(soloMarker))
      .map((l) => Number(l.trim().split(/\s+/)[0]));
    assert.equal(pids.length, 1, 'one solo process');
    process.kill(pids[0]!, 'SIGKILL');
    const crashed = await until('the server to show as crashed', async () => (await servers()).find((s) => s.name === 'solo' && s.state === 'crashed'));
    assert.match((crashed as McpState & { lastError?: string }).lastError ?? '', /exit|closed|crash/i, 'its last error is shown');
    await callThroughTask('solo', 'echo', { message: 'after the kill' }, /Echo: after the kill/);
  });

  it('list_changed mid-task: a tool the server adds while the task runs is offered and runs in that task', async () => {
    const pages = async () => (await servers()).find((s) => s.name === 'pages')?.tools;
    assert.equal(await pages(), 9, 'every page of tools/list, before the change');
    const r = route('mcp-late');
    await scriptModel(r, [
      {
        toolCalls: [
          { name: 'task_start', arguments: { name: 'Grow the tools', instruction: 'Add a tool, then use it', mode: 'simple', actionSets: ['mcp:pages'] } },
        ],
      },
      { toolCalls: [{ name: 'mcp_pages_add_tool', arguments: {} }] },
      // Held until the host has listed the tools again, so what decides is the listing, not a race.
      { gate: 'late-listed', toolCalls: [{ name: 'mcp_pages_late_tool', arguments: {} }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'used the late tool' } }] },
    ]);
    await sendMessage(`grow the tools ${r}`);
    await heldAt('late-listed');
    await until('the late tool to be listed', async () => (await pages()) === 10 || undefined);
    await releaseGate('late-listed');
    await modelSaw(/ran late_tool/, 0, r);
    const last = (await requestsText(r)).at(-1) ?? '';
    assert.match(last, /mcp_pages_late_tool/, 'the next request of the task offers the new tool');
  });

  it('a long tool sends progress: the result the model reads ends with the last note', async () => {
    // The step row's side of it (live, in the webview) is test/unit/engine/actionProgress.test.ts.
    const seen = await callThroughTask(
      'solo',
      'trigger-long-running-operation',
      { duration: 1, steps: 4 },
      /Long running operation completed\. Duration: 1 seconds, Steps: 4\./,
    );
    assert.match(seen, /\[progress: [1-4]\/4 \(\d+%\)\]/);
  });

  it('a hanging call ends with a clear error after tasklane.mcp.callTimeoutSeconds; the turn goes on', async () => {
    await user().update('callTimeoutSeconds', 1, vscode.ConfigurationTarget.Global);
    await callThroughTask('solo', 'trigger-long-running-operation', { duration: 30, steps: 3 }, /did not answer within 1 s/);
  });

  it('server-everything over Streamable HTTP: the real result reaches the model', async () => {
    await callThroughTask('web', 'echo', { message: 'over http in the host' }, /Echo: over http in the host/);
  });
});
