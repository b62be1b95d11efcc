import * as assert from 'node:assert/strict';
import { choreChartModel, runEndWords } from '../../../src/shared/choreChartModel';
import type { ChoreRunView } from '../../../src/shared/choreProtocol';

// The per-chore history chart's model: oldest run left, height by duration, cost strip, outcomes
// that differ by more than colour, and an accessible summary that says what the bars say.

const t0 = Date.parse('2026-12-01T10:00:00Z');
const run = (id: string, status: string, seconds: number, cost: number, minutesAgo: number): ChoreRunView => ({
  id,
  choreId: 'c',
  status,
  startedAt: t0 - minutesAgo * 60_000,
  endedAt: t0 - minutesAgo * 60_000 + seconds * 1000,
  usage: { iterations: 1, inputTokens: 10, outputTokens: 1, cost },
});

describe('chore history chart model', function () {
  it('orders bars oldest first and scales duration and cost to the largest shown', function () {
    const model = choreChartModel([run('c', 'failed', 10, 0.02, 1), run('b', 'budget_exhausted', 40, 0.04, 2), run('a', 'succeeded', 20, 0.01, 3)], t0);
    assert.deepEqual(
      model.bars.map((b) => b.runId),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(
      model.bars.map((b) => b.outcome),
      ['succeeded', 'budget', 'failed'],
    );
    assert.deepEqual(
      model.bars.map((b) => b.height),
      [0.5, 1, 0.25],
    );
    assert.deepEqual(
      model.bars.map((b) => b.costHeight),
      [0.25, 1, 0.5],
    );
    assert.match(
      model.summary,
      /^Last 3 runs: 1 succeeded, 1 failed, 1 stopped by budget\. Median duration 20 s, total cost \$0\.070\. Latest: failed, 10 s, \$0\.020/,
    );
  });

  it('an estimated cost (a model with no known price) reads "≈$… estimated", never as a plain dollar figure', function () {
    const estimated = {
      ...run('e', 'budget_exhausted', 30, 0.52, 1),
      usage: { iterations: 2, inputTokens: 40_000, outputTokens: 2_000, cost: 0.52, costEstimated: true },
    };
    const model = choreChartModel([estimated, run('a', 'succeeded', 20, 0.01, 3)], t0);
    assert.match(model.bars[1].label, /, ≈\$0\.520 estimated,/);
    assert.match(model.bars[0].label, /, \$0\.010,/);
    assert.match(model.summary, /total cost ≈\$0\.530 estimated\./);
  });

  it('a skipped or missed occurrence is a stub that does not stretch the scale; a running run counts up to now', function () {
    const skipped: ChoreRunView = {
      id: 's',
      choreId: 'c',
      status: 'missed',
      startedAt: t0 - 3_600_000,
      endedAt: t0 - 3_600_000,
      reason: 'VS Code was closed',
      usage: { iterations: 0, inputTokens: 0, outputTokens: 0, cost: 0 },
    };
    const running: ChoreRunView = {
      id: 'r',
      choreId: 'c',
      status: 'running',
      startedAt: t0 - 30_000,
      usage: { iterations: 1, inputTokens: 1, outputTokens: 0, cost: 0 },
    };
    const model = choreChartModel([running, skipped, run('a', 'succeeded', 60, 0, 120)], t0);
    assert.deepEqual(
      model.bars.map((b) => [b.outcome, b.height]),
      [
        ['succeeded', 1],
        ['not_run', 0.12],
        ['running', 0.5],
      ],
    );
    assert.match(model.bars[1].label, /^missed, .*: VS Code was closed$/);
    assert.equal(model.bars[2].durationMs, 30_000);
    assert.match(model.summary, /1 skipped or missed/);
  });

  it('shows at most the last 20, and says so when there are none', function () {
    const many = Array.from({ length: 25 }, (_, i) => run(`r${i}`, 'succeeded', 5, 0.001, i));
    const model = choreChartModel(many, t0);
    assert.equal(model.bars.length, 20);
    assert.equal(model.bars[19].runId, 'r0', 'newest at the right');
    assert.equal(model.bars[0].runId, 'r19');
    assert.equal(choreChartModel([], t0).summary, 'No runs yet.');
  });

  it('checks_failed is coloured failed and nothing_to_change succeeded, each labelled by its own end state and reason', function () {
    const model = choreChartModel(
      [
        { ...run('b', 'nothing_to_change', 3, 0.001, 1), reason: 'the run changed no file, so its checks did not run' },
        { ...run('a', 'checks_failed', 30, 0.01, 2), reason: '`npm test` exited 1 after 3 rounds of checks' },
      ],
      t0,
    );
    assert.deepEqual(
      model.bars.map((b) => b.outcome),
      ['failed', 'succeeded'],
    );
    assert.match(model.bars[0].label, /^checks failed, .*: `npm test` exited 1 after 3 rounds of checks$/);
    assert.match(model.bars[1].label, /^nothing to change, .*: the run changed no file/);
  });

  it('a succeeded run reads verified only when its checks passed; a parked run reads paused at budget', function () {
    assert.equal(runEndWords({ status: 'succeeded', reason: 'verified by `npm test` (12.4 s)' }), 'verified');
    assert.equal(runEndWords({ status: 'succeeded', reason: 'Added greetAll' }), 'done, not checked');
    assert.equal(runEndWords({ status: 'succeeded' }), 'done, not checked');
    assert.equal(runEndWords({ status: 'running', pausedAtBudget: 'spent $1.01 of $1' }), 'paused at budget');
    assert.equal(runEndWords({ status: 'budget_exhausted' }), 'stopped at budget');
    assert.equal(runEndWords({ status: 'awaiting_review' }), 'needs you');
    assert.equal(runEndWords({ status: 'cancelled' }), 'cancelled');
    const model = choreChartModel([{ ...run('a', 'succeeded', 12, 0.01, 1), reason: 'verified by `npm test` (12.4 s)' }], t0);
    assert.match(model.bars[0].label, /^verified, 12 s, /);
  });
});
