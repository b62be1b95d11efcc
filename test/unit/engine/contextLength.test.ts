/**
 * A request longer than the model's context (issue 39): the provider's 400 is a context-length
 * error, not a dead task. The task cuts its history (summarised, as for a long task), retries
 * once at once, and goes on; a second refusal in a row pauses it with what to do. The error
 * bodies are the providers' own shapes (OpenAI's `context_length_exceeded` from its API reference
 * and the openai-node tests; Anthropic's "prompt is too long" invalid_request_error).
 */
import * as assert from 'node:assert/strict';
import type { ScriptStep } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { createHarness, engineHooks, WIRES } from './harness';
import type { Harness } from './harness';

const TOO_LONG: Record<string, ScriptStep['error']> = {
  openai: {
    status: 400,
    code: 'context_length_exceeded',
    message: "This model's maximum context length is 16385 tokens. However, your messages resulted in 21042 tokens. Please reduce the length of the messages.",
  },
  anthropic: { status: 400, message: 'prompt is too long: 210452 tokens > 200000 maximum' },
};

const files: Record<string, string> = {};
for (let i = 0; i < 4; i++)
  files[`src/part${i}.ts`] = Array.from({ length: 150 }, (_, n) => `export const part${i}_${n} = ${n}; // a long line of part ${i}`).join('\n');

for (const wire of WIRES) {
  describe(`engine: a context-length error cuts the history and retries once (${wire})`, () => {
    let server: ModelServer;
    let h: Harness;
    engineHooks(wire, { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h }, (s) => createHarness({ wire, server: s, files }));

    const start = (after: ScriptStep[]) =>
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Read', instruction: 'Read the parts (marker KEEP-ME-9).', mode: 'simple' } }] },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'src/missing.ts' } }] },
        ...[0, 1, 2, 3].map((i) => ({ toolCalls: [{ name: 'read_file', arguments: { path: `src/part${i}.ts` } }] })),
        ...after,
      ]);

    it('the next request is cut and summarised, and the task goes on', async () => {
      start([{ error: TOO_LONG[wire] }, { toolCalls: [{ name: 'task_end', arguments: { summary: 'read them' } }] }]);
      await h.agent.sendMessage('read the parts');
      await h.idle();
      const task = h.agent.views.snapshot().tasks[0];
      assert.equal(task.status, 'completed', task.finalSummary);
      const refused = JSON.stringify(server.requests[6].body);
      const retried = JSON.stringify(server.requests[7].body);
      assert.equal(server.requests[6].status, 400);
      assert.ok(retried.length < refused.length * 0.8, `the retry is smaller (${retried.length} < ${refused.length})`);
      assert.match(retried, /\[history summary\]/);
      assert.match(retried, /read_file src\/missing\.ts: /, 'what failed before the cut is kept');
      assert.match(retried, /KEEP-ME-9/, 'the instruction is kept');
      const shown = (await h.agent.views.sessionMessages(task.sessionId)).map((m) => m.text).join('\n');
      assert.match(shown, /Cutting this task's history to fit and retrying once/);
    });

    it('a second refusal in a row pauses the task and says what to do', async () => {
      start([{ error: TOO_LONG[wire] }, { error: TOO_LONG[wire] }]);
      await h.agent.sendMessage('read the parts');
      await h.idle();
      const task = h.agent.views.snapshot().tasks[0];
      assert.equal(task.status, 'paused');
      assert.equal(server.requests.length, 8, 'retried once, not more');
      const shown = (await h.agent.views.sessionMessages(task.sessionId)).map((m) => m.text).join('\n');
      assert.match(shown, /did not make it fit: choose a model with a larger context/);
    });
  });
}
