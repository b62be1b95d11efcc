import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startOAuthMcpServer } from '../support/oauthMcpServer';
import type { OAuthMcpServer } from '../support/oauthMcpServer';
import { activateTasklane, modelSaw, quiesce, requestsText, resetModel, route, scriptModel, storageUriOf, until, useScriptedModel } from './support/tasklane';
import type { TasklaneApi } from './support/tasklane';
import { asPerson, sendMessage } from './support/asPerson';
import { pressDialogButton, typeIntoInput } from './support/dialogs';

interface McpState {
  name: string;
  state: string;
  consent: string;
  hash: string;
  tools?: number;
}
const servers = async () => ((await vscode.commands.executeCommand('tasklane.getState')) as { mcpServers: McpState[] }).mcpServers;
const repoRoot = process.env.TASKLANE_REPO_ROOT ?? '';

/** A task that calls one MCP tool; resolves with the route, once the task has asked for the call. */
async function startCall(server: string, tool: string, args: object): Promise<string> {
  const r = route(`mcp-${server}`);
  await scriptModel(r, [
    {
      toolCalls: [
        {
          name: 'task_start',
          arguments: { name: `Call ${server}/${tool} ${Date.now()}`, instruction: `Call ${tool}`, mode: 'simple', actionSets: [`mcp:${server}`] },
        },
      ],
    },
    { toolCalls: [{ name: `mcp_${server}_${tool}`, arguments: args }] },
    { toolCalls: [{ name: 'task_end', arguments: { summary: 'called' } }] },
  ]);
  await sendMessage(`call ${server}/${tool} ${r}`);
  return r;
}

/** Every file under `dir` (the extension's storage), as text, for a search for a secret. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(file) : entry.isFile() ? [fs.readFileSync(file, 'latin1')] : [];
  });
}

// A remote MCP server a repository names that wants an OAuth sign-in (the SDK's own server auth
// helpers, as in the unit test), in real VS Code: the person is asked in a modal, the workbench's
// browser follows the authorization page (env.openExternal is not intercepted: code-server opens it
// in the harness's Chromium, and the redirect comes back through code-server's callback to the
// extension's URI handler), the token goes to SecretStorage only, and Sign Out deletes it.
describe('host: signing in to a remote MCP server', function () {
  this.timeout(180_000);
  let server: OAuthMcpServer;
  let api: TasklaneApi;
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri;
  const mcpJson = () => vscode.Uri.joinPath(folder(), '.vscode/mcp.json');
  const approval = () => vscode.workspace.getConfiguration('tasklane.approval');

  before(async () => {
    ({ api } = await activateTasklane());
    await quiesce();
    await useScriptedModel();
    // Initializing and listing tools need no token; calling one does: the sign-in comes with the task's call.
    // On 127.0.0.2: code-server forwards 127.0.0.1 and localhost, and a forwarded URL's query is
    // re-encoded on the way to the browser (the redirect_uri arrived cut in pieces).
    server = await startOAuthMcpServer({ open: ['initialize', 'notifications/initialized', 'tools/list'], host: '127.0.0.2' });
    await approval().update('allowedCommands', ['mcp:tracker/whoami'], vscode.ConfigurationTarget.Global);
    await vscode.workspace.fs.writeFile(mcpJson(), new TextEncoder().encode(JSON.stringify({ servers: { tracker: { type: 'http', url: server.url } } })));
    const listed = await until('the tracker in getState', async () => (await servers()).find((s) => s.name === 'tracker'));
    assert.equal(await asPerson(() => vscode.commands.executeCommand('tasklane.trustMcpServer', 'tracker', listed.hash), 'Trust'), true);
    await until('its tools to be listed', async () => ((await servers()).find((s) => s.name === 'tracker')?.tools ?? 0) > 0 || undefined);
  });
  beforeEach(() => resetModel());
  after(async () => {
    await vscode.commands.executeCommand('tasklane.signOutMcpServer', 'tracker');
    await vscode.commands.executeCommand('tasklane.distrustMcpServer', 'tracker');
    await vscode.workspace.fs.delete(mcpJson());
    await approval().update('allowedCommands', undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });

  it('the call asks to sign in; once the browser came back the call succeeds, and the token is in SecretStorage only', async () => {
    assert.deepEqual(server.provider.events, [], 'no sign-in before the call');
    const r = await startCall('tracker', 'whoami', { greeting: 'hello from the host' });
    // The modal names the server and the site that will ask for credentials; Sign In opens the browser.
    const text = await pressDialogButton('Sign In');
    assert.match(text, /Sign in to the MCP server "tracker"\?/);
    assert.match(text, new RegExp(`sign in at ${new URL(server.url).origin.replace(/[.]/g, '\\.')}`));
    // VS Code's own link protection asks before a site outside its trusted domains opens.
    assert.match(await pressDialogButton('Open'), /open the external website/i);
    await until(
      'the call to go through once signed in',
      async () => (await requestsText(r)).some((t) => /hello from the host, client [0-9a-f-]{36}/.test(t)) || undefined,
      60_000,
      () => `the OAuth server saw: ${server.requests.join(', ')}`,
    );
    assert.deepEqual(server.provider.events, ['authorize', 'code']);
    const [token] = [...server.provider.access.keys()];
    const [refresh] = [...server.provider.refresh.keys()];
    assert.ok(token && refresh, 'the server issued a token');

    // Not in settings, mcp.json, the extension's storage, or anything the model was sent.
    const places = [
      JSON.stringify(vscode.workspace.getConfiguration('tasklane')),
      new TextDecoder().decode(await vscode.workspace.fs.readFile(mcpJson())),
      ...filesUnder(storageUriOf(api)!.fsPath),
      ...(await requestsText()),
    ];
    for (const secret of [token, refresh]) assert.ok(!places.some((p) => p.includes(secret)), 'a token was written outside SecretStorage');

    // A fresh connection (trust withdrawn and given again stops and starts the server) reads the
    // token back from SecretStorage: the call goes through with no sign-in.
    await vscode.commands.executeCommand('tasklane.distrustMcpServer', 'tracker');
    const again = (await servers()).find((s) => s.name === 'tracker')!;
    assert.equal(again.state, 'untrusted');
    assert.equal(await asPerson(() => vscode.commands.executeCommand('tasklane.trustMcpServer', 'tracker', again.hash), 'Trust'), true);
    await resetModel();
    const second = await startCall('tracker', 'whoami', { greeting: 'second call' });
    await modelSaw(/second call, client [0-9a-f-]{36}/, 0, second);
    assert.deepEqual(server.provider.events, ['authorize', 'code'], 'no second sign-in');
  });

  it('Sign Out deletes the token (and revokes it); the next call asks again', async () => {
    assert.equal(await vscode.commands.executeCommand('tasklane.signOutMcpServer', 'tracker'), true);
    assert.deepEqual(server.provider.events, ['authorize', 'code', 'revoke']);
    const r = await startCall('tracker', 'whoami', { greeting: 'after sign out' });
    const text = await pressDialogButton('Cancel');
    assert.match(text, /Sign in to the MCP server "tracker"\?/);
    await modelSaw(/you did not sign in to the MCP server tracker; run .{1,4}Tasklane: Sign In to MCP Server/, 0, r);
    assert.deepEqual(server.provider.events, ['authorize', 'code', 'revoke'], 'no sign-in without the yes');
  });
});

// A server asks the person for input mid-call (elicitation), in real VS Code: the modal names the
// server, Fill In… leads to one input box per value, and Decline and Cancel reach the server as
// such. The server (test/fixtures/elicitingMcpServer.mjs) records what it got and never repeats
// it, so the values can reach the model only through Tasklane: the model's requests are checked.
describe('host: an MCP server asks the person for input', function () {
  this.timeout(180_000);
  const user = () => vscode.workspace.getConfiguration('tasklane.mcp');
  const allowed = () => vscode.workspace.getConfiguration('tasklane.approval');
  const record = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-elicit-')), 'answers.jsonl');
  const answers = () => (fs.existsSync(record) ? fs.readFileSync(record, 'utf8').trim().split('\n').filter(Boolean) : []).map((l) => JSON.parse(l) as unknown);
  const typedName = `Ada Reviewer ${process.pid}`;

  before(async () => {
    await activateTasklane();
    await quiesce();
    await useScriptedModel();
    await allowed().update('allowedCommands', ['mcp:asker/ask_reviewer'], vscode.ConfigurationTarget.Global);
    await user().update(
      'servers',
      { asker: { type: 'stdio', command: process.execPath, args: [path.join(repoRoot, 'test/fixtures/elicitingMcpServer.mjs'), record] } },
      vscode.ConfigurationTarget.Global,
    );
    await until('its tools to be listed', async () => ((await servers()).find((s) => s.name === 'asker')?.tools ?? 0) > 0 || undefined);
  });
  beforeEach(() => resetModel());
  after(async () => {
    await user().update('servers', undefined, vscode.ConfigurationTarget.Global);
    await allowed().update('allowedCommands', undefined, vscode.ConfigurationTarget.Global);
  });

  it('Fill In… then the input boxes: the server gets the values, the model never sees them', async () => {
    const r = await startCall('asker', 'ask_reviewer', {});
    const text = await pressDialogButton('Fill In…');
    assert.match(text, /The MCP server "asker" asks you for input/);
    assert.match(text, /Who reviews this report\?/);
    assert.match(text, /Reviewer name/);
    assert.match(text, /Reviewer age \(optional\)/);
    assert.match(await typeIntoInput('asker: Reviewer name (1/2)', typedName), /asker: Reviewer name/);
    await typeIntoInput('asker: Reviewer age (2/2)', '42');
    await modelSaw(/The reviewer question was answered: accept\./, 0, r);
    assert.deepEqual(answers().at(-1), { action: 'accept', content: { name: typedName, age: 42 } });
    assert.ok(!(await requestsText()).some((t) => t.includes(typedName)), "the person's answer reached a model request");
  });

  it('Decline and Cancel each reach the server as that answer, with no values', async () => {
    const declined = await startCall('asker', 'ask_reviewer', {});
    await pressDialogButton('Decline');
    await modelSaw(/The reviewer question was answered: decline\./, 0, declined);
    assert.deepEqual(answers().at(-1), { action: 'decline' });

    await resetModel();
    const cancelled = await startCall('asker', 'ask_reviewer', {});
    await pressDialogButton('Cancel');
    await modelSaw(/The reviewer question was answered: cancel\./, 0, cancelled);
    assert.deepEqual(answers().at(-1), { action: 'cancel' });
  });
});
