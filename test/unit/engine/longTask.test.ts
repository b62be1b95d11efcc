/**
 * A long task keeps its thread (issue 39): 200 turns of large reads pass the history bound several
 * times, and every request still carries the instruction and the todo list; what the cut dropped
 * comes back as one summary (what failed included) that stays byte-identical between cuts, so
 * consecutive requests share at least 90% of their bytes over the task's turns; the person is told.
 * One wire (OpenAI): the cut and the summary are wire-neutral (requestBuilder.ts).
 */
import * as assert from 'node:assert/strict';
import { commonPrefixShare } from '../../../src/core/prompts/requestBuilder';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer, ScriptStep } from '../../fixtures/modelServer';
import { createHarness } from './harness';
import type { Harness } from './harness';

const TURNS = 200;
const FILES = 8;
const INSTRUCTION = 'Review every module under src/ (marker INSTRUCTION-ZEBRA-7) and list what to simplify.';
const TODO = 'Read each module (marker TODO-OKAPI-3)';

describe('engine: a long task keeps its instruction, its todo list and a stable prefix across history cuts', function () {
  this.timeout(180_000);
  let server: ModelServer;
  let h: Harness;
  before(async () => (server = await startModelServer()));
  after(async () => {
    await h?.close();
    await server.close();
  });

  it(`${TURNS} turns with large reads`, async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < FILES; i++)
      files[`src/module${i}.ts`] = Array.from({ length: 120 }, (_, n) => `export const value${i}_${n} = ${n}; // line ${n} of a large module`).join('\n');
    h = await createHarness({ wire: 'openai', server, files, settings: { maxActionsPerTask: 1000, maxTokensPerTask: 500_000_000 } });
    const steps: ScriptStep[] = [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Review', instruction: INSTRUCTION, mode: 'simple' } }] },
      { toolCalls: [{ name: 'update_todos', arguments: { todos: [{ text: TODO, status: 'in_progress' }] } }] },
      // Fails: it must be in the summary once the cut drops this turn.
      { toolCalls: [{ name: 'read_file', arguments: { path: 'src/missing.ts' } }] },
    ];
    while (steps.length < TURNS) steps.push({ toolCalls: [{ name: 'read_file', arguments: { path: `src/module${steps.length % FILES}.ts` } }] });
    steps.push({ toolCalls: [{ name: 'task_end', arguments: { summary: 'reviewed' } }] });
    server.script(steps);
    await h.agent.sendMessage('please review the modules');
    await h.idle();
    const task = h.agent.views.snapshot().tasks[0];
    assert.equal(task.status, 'completed', `${server.requests.length} requests; ${h.logger.lines.slice(-5).join('\n')}`);

    const bodies = server.requests.slice(1).map((r) => JSON.stringify(r.body));
    assert.equal(bodies.length, TURNS, 'one request per task turn');
    const cuts = h.logger.lines.filter((l) => l.includes('history cut at event')).length;
    assert.ok(cuts >= 2, `the history was cut several times (${cuts})`);
    bodies.forEach((body, i) => {
      assert.ok(body.includes('INSTRUCTION-ZEBRA-7'), `request ${i + 1} carries the instruction`);
      if (i >= 2) assert.ok(body.includes('TODO-OKAPI-3'), `request ${i + 1} carries the todo list`);
    });
    const last = bodies[bodies.length - 1];
    assert.match(last, /\[history summary\]/);
    assert.match(last, /read_file src\/missing\.ts: /, 'what failed is kept');
    assert.match(last, /read_file: src\/missing\.ts, src\/module\d\.ts/, 'the files touched are kept');

    const shares = bodies.slice(1).map((body, i) => commonPrefixShare(bodies[i], body));
    const shared = bodies.slice(1).reduce((n, body, i) => n + shares[i] * body.length, 0);
    const total = bodies.slice(1).reduce((n, body) => n + body.length, 0);
    const weighted = shared / total;
    const median = [...shares].sort((a, b) => a - b)[Math.floor(shares.length / 2)];
    // The figure as the bench names it (engine.stable_prefix_share: the median, and byte-weighted);
    // the turns at a cut share only the prefix, the first few a small history.
    assert.ok(median >= 0.9, `median stable prefix share ${median.toFixed(3)} over ${shares.length} turns`);
    assert.ok(weighted >= 0.9, `byte-weighted stable prefix share ${weighted.toFixed(3)}`);

    const said = (await h.agent.views.sessionMessages(task.sessionId)).map((m) => m.text).join('\n');
    assert.match(said, /were summarised to keep it within the model's context/, 'the person sees that it happened');
  });
});
