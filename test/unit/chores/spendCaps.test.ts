import * as assert from 'node:assert/strict';
import { ChoreSpendLedger, InMemorySpendPersistence } from '../../../src/core/chores/spendLedger';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from './runnerHarness';
import type { RunnerHarness } from './runnerHarness';

const read = { toolCalls: [{ name: 'read_file', arguments: { path: 'src/app.ts' } }], usage: { input: 100_000, output: 100 } };
const end = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done' } }], usage: { input: 1000, output: 10 } };
const chore = (id: string, budget = '') => `  - id: ${id}
    name: ${id}
    trigger: { files: ["src/**"] }
    prompt: Tidy up.
${budget ? `    budget: ${budget}\n` : ''}`;

describe('chores: rolling budgets (per chore per day / month, across chores) stop runs and pause the chore', function () {
  this.timeout(20_000);
  let server: ModelServer;
  let h: RunnerHarness;
  const open = useRunnerHarness((s) => (server = s));

  it("a chore's daily cap ends the run budget_exhausted before the next model call, pauses it, and Resume lifts the pause", async () => {
    const persistence = new InMemorySpendPersistence();
    // One ledger, bound to the harness clock, passed in before the runner starts.
    const holder: { clock?: () => number } = {};
    const spend = new ChoreSpendLedger(persistence, () => holder.clock!());
    h = await open(choresFrom(`chores:\n${chore('tidy', '{ maxCostUsdPerDay: 0.01 }')}`), {
      spend,
      workspaceLimits: () => ({ maxCostUsdPerDay: 0, maxCostUsdPerMonth: 0 }),
    });
    const harness = h;
    holder.clock = () => harness.clock.now();
    server.script([read, end]);
    await h.runner.fire('tidy', 'manual');
    const run = await h.ended('tidy');
    assert.equal(run.status, 'budget_exhausted');
    assert.match(run.reason ?? '', /daily cap is \$0\.01 \(budget\.maxCostUsdPerDay\)/);
    assert.equal(server.requests.length, 1, 'no model call after the cap was reached');
    assert.ok(spend.spent('tidy').day >= 0.01, `spent ${spend.spent('tidy').day}`);
    await h.idle(); // the pause the guard started is saved
    assert.match(spend.paused('tidy')?.reason ?? '', /maxCostUsdPerDay/);

    // While paused, a fire is recorded as skipped with the reason, and nothing reaches the model.
    await h.clock.advance(1000);
    await h.runner.fire('tidy', 'manual');
    await h.idle();
    const skipped = h.runLog.history('tidy')[0];
    assert.equal(skipped.status, 'skipped');
    assert.match(skipped.reason ?? '', /paused since .*Resume/);
    assert.equal(server.requests.length, 1);

    // The next UTC day the cap has room again, but the pause holds until Resume.
    await h.clock.advance(24 * 3_600_000);
    assert.equal(spend.spent('tidy').day, 0);
    assert.ok(spend.paused('tidy'));
    assert.equal(await spend.resume('tidy'), true);
    server.script([end]);
    const key = await h.runner.fire('tidy', 'manual');
    await h.idle();
    const again = await h.ended('tidy');
    assert.equal(again.fireKey, key);
    assert.equal(again.status, 'succeeded', again.reason ?? '');
    // The pause and the tally survive a reload (a new ledger over the same persistence).
    const reloaded = new ChoreSpendLedger(persistence, () => harness.clock.now());
    assert.equal(reloaded.spent('tidy').day, spend.spent('tidy').day);
  });

  it('the workspace cap across chores stops a second chore before its first model call', async () => {
    const holder: { clock?: () => number } = {};
    const spend = new ChoreSpendLedger(new InMemorySpendPersistence(), () => holder.clock!());
    h = await open(choresFrom(`chores:\n${chore('first')}${chore('second')}`), {
      spend,
      workspaceLimits: () => ({ maxCostUsdPerDay: 0.01, maxCostUsdPerMonth: 0 }),
    });
    const harness = h;
    holder.clock = () => harness.clock.now();
    server.script([read, end]);
    await h.runner.fire('first', 'manual');
    const first = await h.ended('first');
    assert.equal(first.status, 'budget_exhausted', 'the first chore crossed the workspace cap with its first call');
    assert.match(first.reason ?? '', /tasklane\.chores\.maxCostUsdPerDay/);
    const requests = server.requests.length;
    await h.runner.fire('second', 'manual');
    const second = await h.ended('second');
    assert.equal(second.status, 'budget_exhausted');
    assert.match(second.reason ?? '', /cap across chores is \$0\.01 \(tasklane\.chores\.maxCostUsdPerDay\)/);
    assert.equal(server.requests.length, requests, 'the second chore made no model call');
    assert.equal(second.usage.iterations, 0);
  });

  it('a monthly cap is checked too, and an unset cap never stops a run', () => {
    let now = Date.UTC(2026, 0, 31, 23, 0);
    const spend = new ChoreSpendLedger(new InMemorySpendPersistence(), () => now);
    spend.add('c', 3);
    assert.deepEqual(spend.check('c', {}, { maxCostUsdPerDay: 0, maxCostUsdPerMonth: 0 }), { ok: true });
    assert.equal(spend.check('c', { maxCostUsdPerMonth: 3 }, { maxCostUsdPerDay: 0, maxCostUsdPerMonth: 0 }).ok, false);
    assert.equal(spend.check('c', {}, { maxCostUsdPerDay: 0, maxCostUsdPerMonth: 2 }).ok, false);
    now = Date.UTC(2026, 1, 1, 0, 30);
    spend.add('c', 0.5);
    assert.deepEqual(spend.spent('c'), { day: 0.5, month: 0.5 });
    assert.equal(spend.check('c', { maxCostUsdPerMonth: 3 }, { maxCostUsdPerDay: 0, maxCostUsdPerMonth: 0 }).ok, true);
  });
});
