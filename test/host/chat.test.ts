import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { StateSnapshot } from './support/tasklane';
import { activateTasklane, modelRequests, modelUrl, quiesce, resetModel, route, scriptModel, waitForState } from './support/tasklane';
import { sendMessage } from './support/asPerson';

// The first vertical slice, inside a real extension host: a message sent with
// `tasklane.sendMessage` becomes a trigger, one conversation turn calls the configured model,
// and the reply (or a clear error) lands in the session, as `tasklane.getState` reports it.
describe('host: chat through each provider, and what the user sees when the model fails', function () {
  this.timeout(60_000);
  const config = () => vscode.workspace.getConfiguration('tasklane.model');

  async function useProvider(provider: string, settings: { id?: string; baseUrl?: string; timeoutSeconds?: number; maxRetries?: number } = {}): Promise<void> {
    const target = vscode.ConfigurationTarget.Global;
    await config().update('provider', provider, target);
    await config().update('id', settings.id ?? '', target);
    await config().update('baseUrl', settings.baseUrl ?? '', target);
    await config().update('timeoutSeconds', settings.timeoutSeconds ?? 20, target);
    await config().update('maxRetries', settings.maxRetries ?? 0, target);
  }

  async function send(text: string): Promise<string> {
    const sessionId = await sendMessage(text);
    assert.equal(typeof sessionId, 'string', 'tasklane.sendMessage did not return a session id');
    return sessionId;
  }

  function session(state: StateSnapshot, id: string) {
    return state.sessions.find((s) => s.id === id);
  }

  async function replyIn(sessionId: string, role: 'assistant' | 'error'): Promise<string> {
    const state = await waitForState((s) => !!session(s, sessionId)?.messages.some((m) => m.role === role), 30_000);
    return session(state, sessionId)!
      .messages.filter((m) => m.role === role)
      .map((m) => m.text)
      .join('\n');
  }

  before(async () => {
    await activateTasklane();
    await quiesce();
  });
  after(() => useProvider('auto'));

  it('openai-compatible: the scripted reply appears in the session, after the user message', async () => {
    await useProvider('openai-compatible', { id: 'scripted', baseUrl: `${modelUrl()}/v1` });
    const r = route('chat-openai');
    await scriptModel(r, [{ text: 'Hello from the scripted model.' }]);
    const sessionId = await send(`Say hello ${r}`);
    assert.match(await replyIn(sessionId, 'assistant'), /Hello from the scripted model\./);
    const state = await waitForState(() => true);
    const roles = session(state, sessionId)!.messages.map((m) => m.role);
    assert.equal(roles[0], 'user');
    assert.equal(session(state, sessionId)!.messages[0].text, `Say hello ${r}`);
  });

  it('vscode-lm: reaches the test provider through vscode.lm.selectChatModels, tool calls included', async () => {
    await useProvider('vscode-lm', { id: 'scripted' });
    // The conversation turn answers through the send_message action: a native tool call.
    const r = route('chat-lm');
    await scriptModel(r, [{ toolCalls: [{ name: 'send_message', arguments: { text: 'Answer delivered through a tool call.' } }] }]);
    const sessionId = await send(`Use your tool to answer ${r}`);
    assert.match(await replyIn(sessionId, 'assistant'), /Answer delivered through a tool call\./);
    const requests = await modelRequests<{ tools?: Array<{ function?: { name: string } }> }>(r);
    const last = requests[requests.length - 1];
    assert.ok(
      last.body.tools?.some((t) => t.function?.name === 'send_message'),
      'the tool list did not reach the model through vscode.lm',
    );
  });

  it('auto: picks the VS Code language model when one is available, with no key set', async () => {
    await useProvider('auto');
    const state = (await vscode.commands.executeCommand('tasklane.getState')) as { model: { provider: string; model: string; problem?: string } };
    assert.equal(state.model.provider, 'vscode-lm', JSON.stringify(state.model));
    assert.equal(state.model.problem, undefined);
    const r = route('chat-auto');
    await scriptModel(r, [{ text: 'Answered by the VS Code model.' }]);
    const sessionId = await send(`Who answers? ${r}`);
    assert.match(await replyIn(sessionId, 'assistant'), /Answered by the VS Code model\./);
  });

  // Each failure's message carries its own marker, so its scripted error answers only it.
  const failures: Array<{ name: string; arrange: (marker: string) => Promise<void>; expect: RegExp }> = [
    {
      name: 'a missing key',
      arrange: () => useProvider('openai', { baseUrl: `${modelUrl()}/v1` }),
      expect: /Set API Key|OPENAI_API_KEY/,
    },
    {
      name: 'a wrong base URL',
      arrange: () => useProvider('openai-compatible', { id: 'scripted', baseUrl: 'http://127.0.0.1:9/v1' }),
      expect: /127\.0\.0\.1:9/,
    },
    {
      name: 'a 401',
      arrange: async (marker) => {
        await useProvider('openai-compatible', { id: 'scripted', baseUrl: `${modelUrl()}/v1` });
        await scriptModel(marker, [{ error: { status: 401, message: 'invalid key' } }]);
      },
      expect: /401|key/i,
    },
    {
      name: 'a 429 with Retry-After',
      arrange: async (marker) => {
        await useProvider('openai-compatible', { id: 'scripted', baseUrl: `${modelUrl()}/v1` });
        await scriptModel(marker, [{ error: { status: 429, retryAfterSeconds: 7 } }]);
      },
      expect: /rate limit|429/i,
    },
    {
      name: 'a timeout',
      arrange: async (marker) => {
        await useProvider('openai-compatible', { id: 'scripted', baseUrl: `${modelUrl()}/v1`, timeoutSeconds: 1 });
        await scriptModel(marker, [{ delayMs: 4000, text: 'too late' }]);
      },
      expect: /time|within/i,
    },
    {
      // tasklane.model.timeoutSeconds holds for vscode-lm too (the guard in core/model/guarded.ts).
      name: 'a vscode-lm timeout',
      arrange: async (marker) => {
        await useProvider('vscode-lm', { id: 'scripted', timeoutSeconds: 1 });
        await scriptModel(marker, [{ delayMs: 4000, text: 'too late' }]);
      },
      expect: /No response from .* within 1 s/,
    },
  ];

  for (const failure of failures) {
    it(`${failure.name}: a clear error in the session, and the message typed is kept`, async () => {
      await resetModel();
      const marker = route('chat-failure');
      await failure.arrange(marker);
      const text = `message sent with ${failure.name} ${marker}`;
      const sessionId = await send(text);
      assert.match(await replyIn(sessionId, 'error'), failure.expect);
      const state = await waitForState(() => true);
      assert.ok(
        session(state, sessionId)!.messages.some((m) => m.role === 'user' && m.text === text),
        'the user message was lost',
      );
    });
  }
});
