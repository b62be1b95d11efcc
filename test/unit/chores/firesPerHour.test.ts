import * as assert from 'node:assert/strict';
import { replayContext } from '../../../src/core/chores/githubFire';
import type { ChoreFire } from '../../../src/core/engine/triggerPayloads';
import type { ModelServer } from '../../fixtures/modelServer';
import { webhookExample } from '../../support/webhookExamples';
import { choresFrom, useRunnerHarness } from './runnerHarness';
import type { RunnerHarness } from './runnerHarness';

const end = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done' } }] };
const nightly = `chores:
  - id: nightly
    name: Nightly
    trigger: { cron: "0 2 * * *", timezone: UTC }
    prompt: Tidy the repo.
    budget: { maxFiresPerHour: 2 }
`;
const MINUTE = 60_000;

/**
 * `budget.maxFiresPerHour` in VS Code (runGates.ts `firesPerHourReached`): a cron chore's fires,
 * Run Chore Now and its schedule alike, are held to it by the runs in its history, with the real
 * store and the scripted model.
 */
describe('chores: budget.maxFiresPerHour holds a cron chore in VS Code', function () {
  this.timeout(60_000);
  let server: ModelServer;
  let h: RunnerHarness;
  const open = useRunnerHarness((s) => (server = s));

  const runNow = async () => {
    const key = await h.runner.fire('nightly', 'manual');
    await h.idle();
    return h.runLog.history('nightly').find((r) => r.fireKey === key)!;
  };
  /** A scheduled fire of the chore, delivered now, as the scheduler emits it. */
  const cronFire = async () => {
    const due = h.clock.now();
    const fire: ChoreFire = {
      kind: 'chore_fire',
      choreId: 'nightly',
      fireTime: new Date(due).toISOString(),
      missed: false,
      cause: 'cron',
      fireKey: `chore:nightly:${due}`,
    };
    await h.triggers.emit({ source: 'scheduled', sessionId: 'chore:nightly', payload: fire, fireAt: due, dedupKey: fire.fireKey! });
    await h.idle();
    return h.runLog.history('nightly').find((r) => r.fireKey === fire.fireKey)!;
  };

  it('refuses the fire after N runs in the hour, with the reason, and runs again once the hour has passed', async () => {
    let failPrepare = true;
    h = await open(choresFrom(nightly), {
      prepare: async () => {
        if (failPrepare) throw new Error('the MCP server did not start');
      },
    });
    // 09:00 (the fake clock's start): a run that fails before any model call spent nothing and does not count.
    const broken = await runNow();
    assert.equal(broken.status, 'failed', broken.reason ?? undefined);
    assert.equal(server.requests.length, 0);
    failPrepare = false;

    server.script([end, end, end]);
    await h.clock.advance(MINUTE);
    assert.equal((await runNow()).status, 'succeeded'); // 09:01
    await h.clock.advance(MINUTE);
    assert.equal((await runNow()).status, 'succeeded'); // 09:02
    assert.equal(server.requests.length, 2);

    await h.clock.advance(30_000);
    const refused = await runNow();
    assert.equal(refused.status, 'skipped');
    assert.equal(refused.reason, 'already fired 2 time(s) in the last hour, its cap (budget.maxFiresPerHour 2); the next fire may run from 10:01 UTC');
    // Its schedule is held to the same cap.
    const scheduled = await cronFire();
    assert.equal(scheduled.status, 'skipped');
    assert.match(scheduled.reason ?? '', /budget\.maxFiresPerHour 2/);

    // Refused fires count as no fire, and a burst of them (more than the runs kept in memory per
    // chore) does not push the counted runs out of sight.
    for (let i = 0; i < 31; i++) {
      await h.clock.advance(1000);
      assert.equal((await runNow()).status, 'skipped');
    }
    assert.ok(!h.runLog.history('nightly').some((r) => r.status === 'succeeded'), 'the counted runs left the history kept in memory');
    assert.equal(server.requests.length, 2, 'no model call for a refused fire');

    // One second before the first counted run's hour is over: still two in the hour.
    await h.clock.advance(Date.UTC(2026, 0, 5, 10, 0, 59) - h.clock.now());
    assert.equal((await runNow()).status, 'skipped');
    await h.clock.advance(1000); // 10:01: the 09:01 run left the hour
    const again = await runNow();
    assert.equal(again.status, 'succeeded', again.reason ?? undefined);
    assert.equal(server.requests.length, 3);
  });

  it('holds a github chore replayed in VS Code (Run now on a recorded event) to the same cap', async () => {
    const [triage] = choresFrom(`chores:
  - id: triage
    name: Triage
    trigger: { github: { event: issues, types: [opened] } }
    prompt: Label it.
    budget: { maxFiresPerHour: 1 }
`);
    h = await open([triage]);
    const replay = replayContext(triage, JSON.stringify(webhookExample('issues', (e) => e.action === 'opened')));
    assert.ok('context' in replay, JSON.stringify(replay));
    server.script([end, end]);
    const replayNow = async () => {
      const key = await h.runner.fire('triage', 'manual', replay.context);
      await h.idle();
      return h.runLog.history('triage').find((r) => r.fireKey === key)!;
    };
    assert.equal((await replayNow()).status, 'succeeded');
    await h.clock.advance(MINUTE);
    const refused = await replayNow();
    assert.equal(refused.status, 'skipped');
    assert.match(
      refused.reason ?? '',
      /already fired 1 time\(s\) in the last hour, its cap \(budget\.maxFiresPerHour 1\); the next fire may run from 10:00 UTC/,
    );
    assert.equal(server.requests.length, 1);
  });

  it('holds a files chore too: a second burst of saves within the hour is refused', async () => {
    h = await open(
      choresFrom(`chores:
  - id: on-save
    name: On save
    trigger: { files: ["src/**"] }
    prompt: Check the saved files.
    budget: { maxFiresPerHour: 1 }
`),
    );
    server.script([end, end]);
    const fire = async () => {
      const key = await h.runner.fire('on-save', 'manual');
      await h.idle();
      return h.runLog.history('on-save').find((r) => r.fireKey === key)!;
    };
    assert.equal((await fire()).status, 'succeeded');
    await h.clock.advance(MINUTE);
    const refused = await fire();
    assert.equal(refused.status, 'skipped');
    assert.match(refused.reason ?? '', /already fired 1 time\(s\) in the last hour, its cap \(budget\.maxFiresPerHour 1\)/);
    assert.equal(server.requests.length, 1);
  });

  it('counts the runs a reload finds in the store', async () => {
    h = await open(choresFrom(nightly));
    server.script([end, end]);
    await runNow();
    await h.clock.advance(MINUTE);
    await runNow();
    // A reload of VS Code: the reopened harness is this test's to close.
    h = await h.reopen();
    try {
      await h.clock.advance(MINUTE);
      const refused = await runNow();
      assert.equal(refused.status, 'skipped');
      assert.match(refused.reason ?? '', /already fired 2 time\(s\) in the last hour/);
      assert.equal(server.requests.length, 2);
    } finally {
      await h.close();
    }
  });
});
