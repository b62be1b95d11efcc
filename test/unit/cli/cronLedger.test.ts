import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ledgerCheckName } from '../../../src/cli/fireLedger';
import type { ScriptStep } from '../../fixtures/modelServer';
import { ciFireSuite, seedLedger } from '../../support/ciFireHarness';
import type { Obj } from '../../support/ciFireHarness';
import { webhookExample } from '../../support/webhookExamples';

/**
 * A cron chore in the generated workflow holds to the budgets across fires as a github chore does
 * (fireBudget.ts `readsEarlierFires`): its agent job (`chores run --out`) reads the fire ledger
 * whole before any model call, and its apply job writes the fire's record (no item). Run by hand
 * without the workflow it keeps no ledger.
 */
describe('cli: a cron chore on CI counts its earlier fires', function () {
  this.timeout(120_000);
  const h = ciFireSuite();

  before(() => {
    const file = path.join(h.dir, '.tasklane/chores.yaml');
    fs.appendFileSync(
      file,
      `  - id: nightly-capped
    name: Nightly with a day cap
    trigger: { cron: "0 2 * * *" }
    prompt: Say hello.
    budget: { maxCostUsdPerDay: 0.2 }
  - id: nightly-default
    name: Nightly with the default day cap
    trigger: { cron: "0 3 * * *" }
    prompt: Say hello.
  - id: nightly-hourly
    name: Nightly with an hour cap
    trigger: { cron: "0 4 * * *" }
    prompt: Say hello.
    budget: { maxFiresPerHour: 2 }
    escalate:
      webhook: { urlSecret: ops-hook }
`,
    );
    const git = (...args: string[]) => execFileSync('git', args, { cwd: h.dir, stdio: 'pipe' });
    git('add', '-A');
    git('-c', 'user.name=Test', '-c', 'user.email=test@tasklane.invalid', 'commit', '-q', '-m', 'cron chores');
  });

  /** GitHub's schedule payload names the cron; the repository object is a real one. */
  const schedule = (cron: string): Obj => ({ schedule: cron, repository: (webhookExample('issues') as Obj).repository });
  /** *Run workflow* on the generated workflow: the dispatch payload of a person with write access. */
  const dispatch = (): Obj => ({
    inputs: {},
    ref: 'refs/heads/main',
    repository: (webhookExample('issues') as Obj).repository,
    sender: { login: 'Codertocat' },
  });
  const done: ScriptStep = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'said hello' } }] };
  const ledger = (chore: string) => h.github.checkRuns.filter((c) => c.name === ledgerCheckName(chore));

  /** Earlier fires of `chore` today, as its apply job records them: no item. */
  const seed = (chore: string, count: number, costUsd: number) => seedLedger(h.github, chore, count, costUsd, null, 20_000);

  it('is stopped by its own day cap after 50 earlier fires read across three pages, before the model', async () => {
    // 50 × $0.004 = $0.20, the chore's day cap; the first page alone (20) would be $0.08.
    seed('nightly-capped', 50, 0.004);
    h.github.maxPerPage = 20;
    const stopped = await h.fire('nightly-capped', 'schedule', schedule('0 2 * * *'), [done]);
    assert.equal(stopped.manifest.skip, 'budget', stopped.manifest.reason ?? undefined);
    assert.match(stopped.manifest.reason ?? '', /nightly-capped spent \$0\.2000 today \(UTC\), at its cap of \$0\.2 \(budget\.maxCostUsdPerDay\)/);
    assert.equal(stopped.modelRequests, 0);
    const pages = h.github.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/check-runs') && r.token === 'gate-token');
    assert.equal(pages.length, 3, 'three pages of 20, read with the read-only gate token');
    // The stop is recorded too (no item, no cost), by the apply job's token.
    const last = ledger('nightly-capped').at(-1)!;
    assert.equal(ledger('nightly-capped').length, 51);
    assert.deepEqual(JSON.parse(last.external_id ?? ''), { v: 1, item: null, cost: 0, at: JSON.parse(last.external_id ?? '').at, stopped: 'budget' });
    // Run workflow dispatches it as the schedule does: the same cap.
    const byHand = await h.fire('nightly-capped', 'workflow_dispatch', dispatch(), [done]);
    assert.equal(byHand.manifest.skip, 'budget');
    assert.equal(byHand.modelRequests, 0);
  });

  it('holds a cron chore that sets no day cap to the default $5', async () => {
    seed('nightly-default', 1, 5);
    const stopped = await h.fire('nightly-default', 'workflow_dispatch', dispatch(), [done]);
    assert.equal(stopped.manifest.skip, 'budget');
    assert.match(stopped.manifest.reason ?? '', /at its cap of \$5 \(the default day cap on CI; set budget\.maxCostUsdPerDay to change it\)/);
    assert.equal(stopped.modelRequests, 0);
  });

  it('is stopped by budget.maxFiresPerHour before the model, on its schedule and on Run workflow; an older fire does not count', async () => {
    const hook = { TASKLANE_SECRET_OPS_HOOK: `${h.receiver.baseUrl}/hook` };
    h.receiver.requests.length = 0;
    // One fire 90 minutes ago (out of the hour) and one a minute ago: one in the hour, under the cap of 2.
    seed('nightly-hourly', 1, 0.001);
    ledger('nightly-hourly')[0].external_id = ledger('nightly-hourly')[0].external_id!.replace(
      /"at":"[^"]+"/,
      `"at":"${new Date(Date.now() - 90 * 60_000).toISOString()}"`,
    );
    seedLedger(h.github, 'nightly-hourly', 1, 0.001, null, 30_000);
    const second = await h.fire('nightly-hourly', 'schedule', schedule('0 4 * * *'), [done], hook);
    assert.equal(second.manifest.status, 'succeeded', second.manifest.reason ?? undefined);
    assert.equal(second.modelRequests, 1);
    assert.equal(second.apply.code, 0, second.apply.out);
    // Its apply job recorded it: two in the hour now.
    const third = await h.fire('nightly-hourly', 'workflow_dispatch', dispatch(), [done], hook);
    assert.equal(third.manifest.skip, 'budget', third.manifest.reason ?? undefined);
    assert.match(third.manifest.reason ?? '', /nightly-hourly already fired 2 time\(s\) in the last hour \(budget\.maxFiresPerHour 2\)/);
    assert.equal(third.modelRequests, 0, 'the scripted model saw no request');
    const stop = JSON.parse(ledger('nightly-hourly').at(-1)!.external_id ?? '') as { stopped?: string; cost: number };
    assert.deepEqual([stop.stopped, stop.cost], ['budget', 0], 'the stop is recorded, as no fire and no cost');
    const stops = () => h.receiver.requests.filter((r) => /maxFiresPerHour/.test((r.body as { reason?: string }).reason ?? ''));
    assert.equal(stops().length, 1, 'the stop is escalated');
    const fourth = await h.fire('nightly-hourly', 'schedule', schedule('0 4 * * *'), [done], hook);
    assert.equal(fourth.manifest.skip, 'budget');
    assert.equal(fourth.modelRequests, 0);
    assert.equal(stops().length, 1, 'once per day, not once per fire');
  });

  it('fails closed when the ledger cannot be read whole, or there is no token to read it with', async () => {
    seed('nightly-default', 50, 0);
    h.github.maxPerPage = 20;
    h.github.dropCheckRunPage = 2;
    const lost = await h.fire('nightly-default', 'schedule', schedule('0 3 * * *'), [done]);
    assert.equal(lost.manifest.skip, 'budget');
    assert.match(lost.manifest.reason ?? '', /the fire ledger could not be read whole \(the fire ledger lists 50 record\(s\) and 30 could be read/);
    assert.equal(lost.modelRequests, 0);
    h.github.dropCheckRunPage = undefined;
    const untokened = await h.fire('nightly-default', 'schedule', schedule('0 3 * * *'), [done], { TASKLANE_GATE_TOKEN: '' });
    assert.equal(untokened.manifest.skip, 'budget');
    assert.match(untokened.manifest.reason ?? '', /the fire ledger cannot be read \(no repository or no TASKLANE_GATE_TOKEN/);
    assert.equal(untokened.modelRequests, 0);
  });

  it('writes each fire its record, which the next fire counts', async () => {
    const first = await h.fire('nightly-default', 'schedule', schedule('0 3 * * *'), [done]);
    assert.equal(first.manifest.status, 'succeeded', first.manifest.reason ?? undefined);
    assert.equal(first.modelRequests, 1);
    assert.equal(first.apply.code, 0, first.apply.out);
    const [record] = ledger('nightly-default');
    assert.ok(record, 'the apply job wrote the fire record');
    const written = JSON.parse(record.external_id ?? '') as { item: unknown; cost: number; stopped?: string };
    assert.equal(written.item, null);
    assert.equal(written.stopped, undefined);
    assert.ok(written.cost > 0, 'the fire cost something');
    assert.equal(record.conclusion, 'neutral');
    // Its cost is counted: a day cap of exactly that much is reached.
    seed('nightly-default', 1, 5 - written.cost);
    const next = await h.fire('nightly-default', 'schedule', schedule('0 3 * * *'), [done]);
    assert.equal(next.manifest.skip, 'budget', next.manifest.reason ?? undefined);
    assert.equal(next.modelRequests, 0);
  });

  it('run by hand outside the workflow keeps working as before: no ledger, no token, no GitHub call', async () => {
    seed('nightly-default', 1, 5);
    h.server.reset();
    h.server.script([done]);
    const local = await h.cli(['chores', 'run', 'nightly-default'], {
      TASKLANE_MODEL_PROVIDER: 'openai-compatible',
      TASKLANE_MODEL_BASE_URL: h.server.openaiBaseUrl,
      TASKLANE_MODEL_ID: 'gpt-5-mini',
      OPENAI_API_KEY: 'test-key',
      GITHUB_API_URL: h.github.baseUrl,
      GITHUB_REPOSITORY: 'Codertocat/Hello-World',
    });
    assert.equal(local.code, 0, local.err);
    assert.match(local.err, /chore nightly-default: run \S+ succeeded/);
    assert.equal(h.server.requests.length, 1, 'the model ran although the ledger holds a spent day');
    assert.deepEqual(h.github.requests, []);
  });
});
