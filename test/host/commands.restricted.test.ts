import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateTasklane, scriptModel } from './support/tasklane';

// Runs in a second host run with Workspace Trust on and the workspace untrusted (Restricted
// Mode): Tasklane still chats, but run_command refuses with what to tell the user, and nothing runs.
describe('host (Restricted Mode): the agent talks but does not execute', function () {
  this.timeout(90_000);
  const modelUrl = () => process.env.TASKLANE_TEST_MODEL_URL ?? '';

  before(async () => {
    await activateTasklane();
    const target = vscode.ConfigurationTarget.Global;
    const model = vscode.workspace.getConfiguration('tasklane.model');
    await model.update('provider', 'openai-compatible', target);
    await model.update('id', 'scripted', target);
    await model.update('baseUrl', `${modelUrl()}/v1`, target);
    await vscode.workspace.getConfiguration('tasklane.approval').update('allowedCommands', ['node --version'], target);
  });

  it('the workspace is untrusted and the state snapshot says restricted', async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the harness should open this run untrusted');
    const state = (await vscode.commands.executeCommand('tasklane.getState')) as { restricted: boolean };
    assert.equal(state.restricted, true);
  });

  it('run_command refuses even an allowlisted command, and the model is told how the user can trust the folder', async () => {
    await fetch(`${modelUrl()}/__reset`, { method: 'POST' });
    await scriptModel([
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Try to run', instruction: 'Run node --version', mode: 'simple' } }] },
      { toolCalls: [{ name: 'run_command', arguments: { command: 'node --version' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'could not run' } }] },
    ]);
    const terminalsBefore = vscode.window.terminals.length;
    await vscode.commands.executeCommand('tasklane.sendMessage', 'run node --version');
    const deadline = Date.now() + 30_000;
    let seen = '';
    while (Date.now() < deadline && !/Restricted Mode/.test(seen)) {
      const requests = (await (await fetch(`${modelUrl()}/__requests`)).json()) as Array<{ body: unknown }>;
      seen = requests.map((r) => JSON.stringify(r.body)).join('\n');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.match(seen, /Restricted Mode[^"]*trust the folder/);
    assert.equal(vscode.window.terminals.length, terminalsBefore, 'no terminal was opened');
    assert.deepEqual(await vscode.commands.executeCommand('tasklane.commands.pending'), []);
  });
});
