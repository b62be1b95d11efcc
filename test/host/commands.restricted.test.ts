import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateTasklane, modelUrl, requestsText, resetModel, route, scriptModel, until } from './support/tasklane';
import { sendMessage } from './support/asPerson';

// Runs in a second host run with Workspace Trust on and the workspace untrusted (Restricted
// Mode): Tasklane still chats, but run_command refuses with what to tell the user, and nothing runs.
describe('host (Restricted Mode): the agent talks but does not execute', function () {
  this.timeout(90_000);

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
    await resetModel();
    const r = route('restricted-run');
    await scriptModel(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Try to run', instruction: 'Run node --version', mode: 'simple' } }] },
      // Restricted Mode offers no run_command: what the engine answers a model that calls it anyway is the point.
      { anyTool: true, toolCalls: [{ name: 'run_command', arguments: { command: 'node --version' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'could not run' } }] },
    ]);
    const terminalsBefore = vscode.window.terminals.length;
    await sendMessage(`run node --version ${r}`);
    const seen = await until('the model to be told about Restricted Mode', async () => {
      const text = (await requestsText(r)).join('\n');
      return /Restricted Mode/.test(text) ? text : undefined;
    });
    assert.match(seen, /Restricted Mode[^"]*trust the folder/);
    assert.equal(vscode.window.terminals.length, terminalsBefore, 'no terminal was opened');
    assert.deepEqual(await vscode.commands.executeCommand('tasklane.commands.pending'), []);
  });
});
