import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ModelServer } from '../../fixtures/modelServer';
import type { PlannerSignal } from '../../../src/core/planner/planner';
import { memoryFileSignals, memorySignals } from '../../../src/core/planner/memorySignals';
import { createHarness, engineHooks } from '../engine/harness';
import type { Harness } from '../engine/harness';

const HOUR = 3_600_000;

// The planner in the real engine (store, triggers) with the real OpenAI client against the
// scripted model server, which reports each call's cost as OpenRouter does (usage.cost).
describe('planner: proposes work from existing signals, never starts it alone', () => {
  let server: ModelServer;
  let h: Harness;
  const host = {
    enabled: true,
    signals: [] as PlannerSignal[],
    looked: 0,
    cap: 1,
  };
  engineHooks('openai', { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h }, (s) => {
    Object.assign(host, { enabled: true, signals: [], looked: 0, cap: 1 });
    return createHarness({
      wire: 'openai',
      server: s,
      planner: {
        enabled: () => host.enabled,
        settings: () => ({ intervalMs: HOUR, dailyCapUsd: host.cap }),
        signals: async () => {
          host.looked++;
          return host.signals;
        },
      },
    });
  });
  const planner = () => h.engine.planner!;
  const errors = (path: string, n: number): PlannerSignal => ({
    key: `diagnostics:${path}`,
    text: `${n} new errors in ${path}: Type 'string' is not assignable to type 'number'.`,
  });
  const proposal = (signal: string, title = 'Fix the 3 type errors in src/api.ts', cost = 0.001) => ({
    toolCalls: [{ name: 'propose_work', arguments: { suggestions: [{ title, instruction: `${title}, then check the Problems view is clean.`, signal }] } }],
    usage: { cost },
  });

  it('proposes from a new error in the Problems view, with the signal in the request', async () => {
    host.signals = [errors('src/api.ts', 3)];
    server.script([proposal('diagnostics:src/api.ts')]);
    assert.equal(await planner().tick(), 'proposed');
    assert.equal(server.requests.length, 1);
    const request = JSON.stringify(server.requests[0]!.body);
    assert.match(request, /diagnostics:src\/api\.ts/);
    assert.match(request, /3 new errors in src\/api\.ts/);
    assert.match(request, /propose_work/);
    const [card] = planner().suggestions();
    assert.equal(card?.title, 'Fix the 3 type errors in src/api.ts');
    assert.match(card?.why ?? '', /3 new errors/);

    // The same error an interval later is not new: no second call for it.
    await h.clock.advance(HOUR);
    assert.equal(await planner().tick(), 'no_signals');
    assert.equal(server.requests.length, 1);
  });

  it('never starts a task without the click; Start task queues one', async () => {
    host.signals = [errors('src/api.ts', 3)];
    server.script([proposal('diagnostics:src/api.ts')]);
    await planner().tick();
    await h.idle();
    assert.deepEqual(h.agent.views.snapshot().tasks, [], 'no task before the click');
    assert.equal(server.requests.length, 1, 'only the planner asked the model');

    server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'fixed' } }] }]);
    const { taskId } = await planner().start(planner().suggestions()[0]!.id);
    await h.idle();
    const task = h.agent.views.snapshot().tasks.find((t) => t.id === taskId);
    assert.equal(task?.name, 'Fix the 3 type errors in src/api.ts');
    assert.deepEqual(planner().suggestions(), [], 'a started suggestion leaves the list');
    assert.match(JSON.stringify(server.requests[1]!.body), /then check the Problems view is clean/);
  });

  it('stays within its daily cost cap', async () => {
    host.cap = 0.01;
    for (let i = 0; i < 5; i++) {
      host.signals = [errors(`src/m${i}.ts`, 1)];
      server.script([proposal(`diagnostics:src/m${i}.ts`, `Fix src/m${i}.ts`, 0.004)]);
      await planner().tick();
      await h.clock.advance(HOUR);
    }
    // 0.004 + 0.004 fit; a third would pass 0.01 (the largest call so far is what one is assumed to cost).
    assert.equal(server.requests.length, 2);
    assert.ok(planner().spentToday() <= 0.01, `${planner().spentToday()}`);
    assert.equal(await planner().tick(), 'over_cap');
    // A new day (UTC) has a new allowance.
    await h.clock.advance(24 * HOUR);
    assert.equal(await planner().tick(), 'proposed');
    assert.equal(server.requests.length, 3);
  });

  it('does nothing when off: reads no signal, asks no model', async () => {
    host.enabled = false;
    host.signals = [errors('src/api.ts', 3)];
    for (let i = 0; i < 3; i++) {
      assert.equal(await planner().tick(), 'off');
      await h.clock.advance(HOUR);
    }
    assert.equal(host.looked, 0);
    assert.equal(server.requests.length, 0);
    assert.deepEqual(planner().suggestions(), []);
  });

  it('remembers dismissals across a restart: dismissed until the signal changes, never for good', async () => {
    host.signals = [errors('src/a.ts', 1), errors('src/b.ts', 1)];
    server.script([
      {
        toolCalls: [
          {
            name: 'propose_work',
            arguments: {
              suggestions: [
                { title: 'Fix a', instruction: 'Fix src/a.ts', signal: 'diagnostics:src/a.ts' },
                { title: 'Fix b', instruction: 'Fix src/b.ts', signal: 'diagnostics:src/b.ts' },
              ],
            },
          },
        ],
      },
    ]);
    await planner().tick();
    const [a, b] = planner().suggestions();
    await planner().dismiss(a!.id);
    await planner().never(b!.id);

    await h.shutdown();
    h = await createHarness({
      wire: 'openai',
      server,
      dir: h.dir,
      clock: h.clock,
      planner: { enabled: () => true, settings: () => ({ intervalMs: HOUR, dailyCapUsd: 1 }), signals: async () => host.signals },
    });
    assert.deepEqual(planner().suggestions(), []);
    // Both grew: a's changed signal may be proposed again; b's never is.
    host.signals = [errors('src/a.ts', 2), errors('src/b.ts', 2)];
    server.script([proposal('diagnostics:src/a.ts', 'Fix a again')]);
    await h.clock.advance(HOUR);
    assert.equal(await planner().tick(), 'proposed');
    const last = JSON.stringify(server.requests.at(-1)!.body);
    assert.match(last, /src\/a\.ts/);
    assert.doesNotMatch(last, /src\/b\.ts/, 'a signal marked never is not sent again');
    assert.deepEqual(
      planner()
        .suggestions()
        .map((s) => s.title),
      ['Fix a again'],
    );
  });

  it('MEMORY.md is a signal: a note that leaves work open is proposed on, the others are not', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-memory-'));
    const file = path.join(dir, 'MEMORY.md');
    fs.writeFileSync(
      file,
      [
        '# Memory',
        '- The API client lives in src/api.ts.',
        '- TODO: move the retry settings out of src/api.ts into settings.json.',
        '- [ ] Follow up on the flaky upload test once CI has a bigger runner.',
        '- Tests run with npm test.',
        '',
      ].join('\n'),
    );
    assert.deepEqual(await memoryFileSignals(path.join(dir, 'missing.md')), []);
    host.signals = await memoryFileSignals(file);
    assert.deepEqual(
      host.signals.map((s) => s.text),
      [
        "A note in the agent's memory (MEMORY.md) leaves work open: TODO: move the retry settings out of src/api.ts into settings.json.",
        "A note in the agent's memory (MEMORY.md) leaves work open: [ ] Follow up on the flaky upload test once CI has a bigger runner.",
      ],
    );
    const key = host.signals[0]!.key;
    server.script([proposal(key, 'Move the retry settings into settings.json')]);
    assert.equal(await planner().tick(), 'proposed');
    assert.match(JSON.stringify(server.requests[0]!.body), /move the retry settings out of src\/api\.ts/);
    assert.equal(planner().suggestions()[0]?.title, 'Move the retry settings into settings.json');
    assert.deepEqual(h.agent.views.snapshot().tasks, [], 'proposed, not started');
    // Bounded: a memory full of open notes gives a few signals, not all of them.
    assert.equal(memorySignals(Array.from({ length: 10 }, (_, i) => `- TODO item ${i}`).join('\n')).length, 3);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
