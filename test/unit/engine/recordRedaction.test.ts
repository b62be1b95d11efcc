/**
 * Review 2026-12b finding 5: what reaches another agent, the sidebar and the audit export from a
 * task record (its name, instruction and final summary) goes through the same redactor as the
 * events. Real engine, store and SDK client against the scripted server; the real export.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ModelServer } from '../../fixtures/modelServer';
import { engineHooks } from './harness';
import type { Harness } from './harness';

const KEY = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';

describe('engine: task records are redacted like events (instruction, summary, name, export)', () => {
  let server: ModelServer;
  let h: Harness;
  engineHooks('openai', { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

  it('a key in a task instruction and final summary reaches neither the snapshot nor the export', async () => {
    server.script([
      { toolCalls: [{ name: 'task_start', arguments: { name: `check ${KEY}`, instruction: `Check that ${KEY} works`, mode: 'simple' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: `The key in .env is ${KEY}` } }] },
    ]);
    const { sessionId } = await h.agent.sendMessage('check my key');
    await h.idle();
    const task = h.agent.views.snapshot().tasks.find((t) => t.status === 'completed');
    assert.ok(task, 'the task ran to its end');
    // What tasklane_status / tasklane_await (briefOf) and the chat participant read.
    assert.ok(!JSON.stringify(task).includes(KEY), `snapshot leaks: ${JSON.stringify(task).slice(0, 300)}`);
    assert.match(task.instruction, /REDACTED/);
    assert.match(task.finalSummary ?? '', /REDACTED/);
    for (const id of [sessionId, task.id]) {
      const out = path.join(h.dir, `export-${id}`);
      const result = await h.agent.views.exportSession(id, out);
      for (const file of [result.jsonl, result.markdown]) {
        const text = fs.readFileSync(file, 'utf8');
        assert.ok(!text.includes(KEY), `${path.basename(file)} leaks the key: ${text.split('\n').find((l) => l.includes(KEY))}`);
      }
    }
  });
});
