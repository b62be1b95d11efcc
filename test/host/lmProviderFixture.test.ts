import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { modelUrl, resetModel, route, scriptModel, until } from './support/tasklane';

// The vscode-lm path of Tasklane is only tested for real if this fixture provider works; check it
// directly through the public vscode.lm API, the way Tasklane's client calls it.
describe('host fixture: the tasklane-test language model provider', function () {
  before(function () {
    modelUrl(); // fails here, naming the cause, when the harness started no model server
  });

  function scriptedModel(): Promise<vscode.LanguageModelChat> {
    return until(
      'vscode.lm.selectChatModels to find the tasklane-test model',
      async () => (await vscode.lm.selectChatModels({ vendor: 'tasklane-test', id: 'scripted' }))[0],
      15_000,
    );
  }

  async function collect(response: vscode.LanguageModelChatResponse): Promise<unknown[]> {
    const parts: unknown[] = [];
    for await (const part of response.stream) parts.push(part);
    return parts;
  }

  it('streams the scripted text back through sendRequest', async () => {
    const model = await scriptedModel();
    assert.equal(model.vendor, 'tasklane-test');
    const marker = `scripted-${Date.now()}`;
    const r = route('lm-text');
    await scriptModel(r, [{ text: marker }]);
    const response = await model.sendRequest([vscode.LanguageModelChatMessage.User(`hello ${r}`)], {}, new vscode.CancellationTokenSource().token);
    const parts = await collect(response);
    const text = parts
      .filter((p) => p instanceof vscode.LanguageModelTextPart)
      .map((p) => (p as vscode.LanguageModelTextPart).value)
      .join('');
    assert.equal(text, marker);
  });

  it('reports scripted tool calls as LanguageModelToolCallPart with parsed input', async () => {
    const model = await scriptedModel();
    const r = route('lm-tools');
    await scriptModel(r, [{ toolCalls: [{ name: 'read_file', arguments: { path: 'src/greet.js' } }] }]);
    const tools: vscode.LanguageModelChatTool[] = [
      { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
    ];
    const response = await model.sendRequest(
      [vscode.LanguageModelChatMessage.User(`read greet.js ${r}`)],
      { tools },
      new vscode.CancellationTokenSource().token,
    );
    const calls = (await collect(response)).filter((p): p is vscode.LanguageModelToolCallPart => p instanceof vscode.LanguageModelToolCallPart);
    assert.equal(calls.length, 1);
    assert.equal(calls[0].name, 'read_file');
    assert.deepEqual(calls[0].input, { path: 'src/greet.js' });
  });

  it('answers `echo: <last user message>` when the script is empty', async () => {
    const model = await scriptedModel();
    await resetModel();
    const response = await model.sendRequest([vscode.LanguageModelChatMessage.User('ping from the host')], {}, new vscode.CancellationTokenSource().token);
    const text = (await collect(response))
      .filter((p) => p instanceof vscode.LanguageModelTextPart)
      .map((p) => (p as vscode.LanguageModelTextPart).value)
      .join('');
    assert.equal(text, 'echo: ping from the host');
  });
});
