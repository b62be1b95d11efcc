import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateTasklane, quiesce, until } from './support/tasklane';
import { pressDialogButton, typeIntoInput } from './support/dialogs';

// mcp.json's `inputs`, in a real extension host against the reference server-everything: the
// person is asked once at the first start (a pick, a text, a password), the answers reach the
// server, a later start asks nothing, and Forget MCP Inputs asks again.
interface McpState {
  name: string;
  state: string;
  hash: string;
  tools?: number;
}

const repoRoot = process.env.TASKLANE_REPO_ROOT ?? '';
const everything = path.join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const marker = `tasklane-host-inputs-${process.pid}`;
const server = async () =>
  ((await vscode.commands.executeCommand('tasklane.getState')) as { mcpServers: McpState[] }).mcpServers.find((s) => s.name === 'asking');
/** The pid of the server process started with `${marker}-${tag}`, if one runs. */
const processOf = (tag: string) =>
  execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .find((l) => l.includes(`${marker}-${tag}`))
    ?.trim()
    .split(/\s+/)[0];
const environ = (pid: string) => fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');

describe('host: mcp.json inputs, asked once and kept', function () {
  this.timeout(180_000);
  const mcpJson = () => vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.vscode/mcp.json');

  before(async () => {
    assert.ok(repoRoot, 'the host tier passes TASKLANE_REPO_ROOT');
    await activateTasklane();
    await quiesce();
    await vscode.commands.executeCommand('tasklane.forgetMcpInputs');
    const file = {
      inputs: [
        { type: 'pickString', id: 'transport', description: 'Transport', options: ['streamableHttp', 'stdio'] },
        { type: 'promptString', id: 'tag', description: 'Run tag' },
        { type: 'promptString', id: 'token', description: 'Token', password: true },
      ],
      servers: {
        asking: {
          type: 'stdio',
          command: process.execPath,
          args: [everything, '${input:transport}', `${marker}-\${input:tag}`],
          env: { TOKEN: '${input:token}' },
        },
      },
    };
    await vscode.workspace.fs.writeFile(mcpJson(), new TextEncoder().encode(JSON.stringify(file, null, 2)));
  });
  after(async () => {
    await vscode.commands.executeCommand('tasklane.distrustMcpServer', 'asking');
    await vscode.workspace.fs.delete(mcpJson());
    await vscode.commands.executeCommand('tasklane.forgetMcpInputs');
  });

  it('asked at the first start: the pick, the text and the password reach the server', async () => {
    const listed = await until('the server in getState', server);
    const trusting = vscode.commands.executeCommand('tasklane.trustMcpServer', 'asking', listed.hash);
    await pressDialogButton('Trust');
    assert.match(await typeIntoInput('asking: Transport', 'stdio'), /MCP server asking: Transport/);
    await typeIntoInput('asking: Run tag', 'first');
    await typeIntoInput('asking: Token', 'tok-first');
    assert.equal(await trusting, true);
    await until('its tools to be listed', async () => ((await server())?.tools ?? 0) > 0 || undefined);
    const pid = await until('the server started with the tag typed', async () => processOf('first'));
    assert.ok(environ(pid).includes('TOKEN=tok-first'), 'the password reached the server in its environment');
  });

  it('kept: a later start asks nothing and gets the same answers', async () => {
    await vscode.commands.executeCommand('tasklane.distrustMcpServer', 'asking');
    await until('the server to stop', async () => processOf('first') === undefined || undefined);
    const listed = await until('the server in getState', server);
    // No input box answers here: the start completes only if nothing is asked.
    const trusting = vscode.commands.executeCommand('tasklane.trustMcpServer', 'asking', listed.hash);
    await pressDialogButton('Trust');
    assert.equal(await trusting, true);
    const pid = await until('the server started again with the kept tag', async () => processOf('first'));
    assert.ok(environ(pid).includes('TOKEN=tok-first'), 'the kept password reached the server');
  });

  it('Forget MCP Inputs: the server stops and asks again at its start', async () => {
    const forgotten = await vscode.commands.executeCommand<string[]>('tasklane.forgetMcpInputs');
    assert.deepEqual([...forgotten].sort(), ['tag', 'token', 'transport']);
    await typeIntoInput('asking: Transport', 'stdio');
    await typeIntoInput('asking: Run tag', 'second');
    await typeIntoInput('asking: Token', 'tok-second');
    const pid = await until('the server started with the new tag', async () => processOf('second'));
    assert.ok(environ(pid).includes('TOKEN=tok-second'));
    assert.equal(processOf('first'), undefined, 'the server with the forgotten answers stopped');
  });
});
