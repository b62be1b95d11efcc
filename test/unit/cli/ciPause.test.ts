import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pausedState, RESUME_TODAY, resumeKept } from '../../../src/cli/ciPause';
import { ciFireSuite } from '../../support/ciFireHarness';
import type { ScriptStep } from '../../fixtures/modelServer';

describe('cli: a CI fire that reaches its budget ends paused at budget, its state recorded', function () {
  this.timeout(120_000);
  const h = ciFireSuite();
  const { fire, issueOpened, statusOn } = h;

  it('iterations spent: the result, the status comment and the step summary say paused at budget, with the edits so far', async () => {
    const edit: ScriptStep = {
      toolCalls: [{ name: 'replace_in_file', arguments: { path: 'app.js', edits: [{ oldText: 'answer = 41', newText: 'answer = 42' }] } }],
    };
    const read: ScriptStep = { toolCalls: [{ name: 'read_file', arguments: { path: 'check.js' } }] };
    const result = await fire('tight-fix', 'issues', issueOpened(), [edit, read, read]);
    assert.equal(result.modelRequests, 2, 'the third call is never made');
    assert.equal(result.run.code, 0, 'a pause is no failure: the agent job stays green');
    assert.match(result.run.err, /chore tight-fix: paused at budget: used all 2 iterations/);
    assert.match(result.apply.out, /^chore tight-fix: paused at budget: used all 2 iterations/);
    assert.equal(result.manifest.status, 'budget_exhausted');
    assert.deepEqual(result.manifest.paused, {
      limit: 'iterations',
      message: 'used all 2 iterations (budget.maxIterations)',
      steps: ['replace_in_file ok', 'read_file ok'],
      resume: resumeKept(result.manifest.paused?.storeHash ?? '', { id: 'tight-fix', trigger: { kind: 'github', github: { event: 'issues' } } }, '4242'),
      storeHash: result.manifest.paused?.storeHash,
    });
    assert.equal(result.manifest.usage.iterations, 2);
    // The edits so far are kept with the state, for a person (or a later resume) to pick up.
    assert.deepEqual(result.manifest.changedFiles, ['app.js']);
    assert.match(fs.readFileSync(path.join(result.out, 'tasklane.patch'), 'utf8'), /^\+exports\.answer = 42;$/m);

    const status = statusOn(1, 'tight-fix')[0]?.body ?? '';
    assert.match(status, /^\*\*Tasklane · tight-fix\*\*: Paused at budget: used all 2 iterations \(budget\.maxIterations\)/);
    assert.match(status, /- Status: paused at budget \(used all 2 iterations \(budget\.maxIterations\)\)\n/);
    assert.match(
      status,
      /- Paused at budget \(iterations\): its state is recorded in the run's artifact: the usage above, its last 2 step\(s\) and the edits so far in tasklane\.patch \(app\.js\)\. Its store is kept there too \(store hash [0-9a-f]{12}…, recorded in the fire ledger\): a maintainer's `\/tasklane continue` comment here continues it from the same step/,
    );
    assert.doesNotMatch(status, /failed|produced nothing/i);
    const summary = fs.readFileSync(h.stepSummary, 'utf8');
    assert.match(
      summary,
      /^## Tasklane · tight-fix\n\n\*\*Paused at budget: used all 2 iterations \(budget\.maxIterations\)\*\*\n\n- Status: paused at budget/,
    );
    assert.match(summary, /- Paused at budget \(iterations\)/);
  });

  it("maxSeconds ends a run everywhere and is no pause; a cost cap lower than the chore's own is the day's cap across fires", () => {
    const budget = { maxIterations: 10, maxSeconds: 60, maxInputTokens: 100_000, maxCostUsd: 1 };
    const trigger = { kind: 'cron' as const, cron: '0 2 * * *' };
    const id = 'nightly';
    assert.equal(pausedState('budget_exhausted', 'ran for 61 s of 60 s (budget.maxSeconds)', { id, budget, trigger }, { budget }, []), undefined);
    assert.equal(pausedState('failed', 'used all 10 iterations (budget.maxIterations)', { id, budget, trigger }, { budget }, []), undefined);
    const own = pausedState('budget_exhausted', 'Chore budget exhausted: spent $1.0100 of $1 (budget.maxCostUsd)', { id, budget, trigger }, { budget }, []);
    assert.deepEqual(own && { limit: own.limit, message: own.message, resume: own.resume }, {
      limit: 'costUsd',
      message: 'spent $1.0100 of $1 (budget.maxCostUsd)',
      resume: RESUME_TODAY,
    });
    const day = pausedState(
      'budget_exhausted',
      'spent $0.2000 of $0.2 (budget.maxCostUsd)',
      { id, budget, trigger },
      { budget: { ...budget, maxCostUsd: 0.2 } },
      [],
    );
    assert.match(day?.message ?? '', /what the day's cap across fires \(budget\.maxCostUsdPerDay\) left for this fire, below the chore's own \$1$/);
    assert.match(day?.resume ?? '', /the next fire after midnight UTC starts a new run/);
  });

  it('a kept store says the gesture that continues it: a comment, Run workflow with the run id, or why none', () => {
    const budget = { maxIterations: 2, maxSeconds: 60, maxInputTokens: 100_000, maxCostUsd: 1 };
    const reason = 'used all 2 iterations (budget.maxIterations)';
    const said = (trigger: Parameters<typeof pausedState>[2]['trigger']) => {
      const chore = { id: 'nightly', budget, trigger };
      return pausedState('budget_exhausted', reason, chore, chore, [], 'f'.repeat(64), '4242')?.resume ?? '';
    };
    const on = (event: 'issues' | 'issue_comment' | 'pull_request' | 'schedule' | 'workflow_dispatch' | 'workflow_run') =>
      said({ kind: 'github', github: { event } });
    assert.match(on('issues'), /`\/tasklane continue` comment here continues it/);
    assert.match(on('issue_comment'), /`\/tasklane continue` comment here continues it/);
    // The same issue chore run by hand fired about no issue: no comment can name it.
    const triage = { id: 'triage', budget, trigger: { kind: 'github' as const, github: { event: 'issues' as const } } };
    const byHand = pausedState('budget_exhausted', reason, triage, triage, [], 'f'.repeat(64), '4242', true);
    assert.match(byHand?.resume ?? '', /a run by hand of an issue chore is about no issue, so no `\/tasklane continue` comment can name it: raise the limit/);
    for (const event of ['schedule', 'workflow_dispatch'] as const) {
      assert.match(on(event), /runs the workflow "Tasklane chores" \(Actions, Run workflow\) with chore `nightly` and continue `4242`/);
      assert.match(on(event), /`gh workflow run "Tasklane chores" -f chore=nightly -f continue=4242`/);
      assert.doesNotMatch(on(event), /comment here/);
    }
    assert.match(on('pull_request'), /does not continue pull-request chores: a continue would run the pull request's code again with the keys/);
    assert.match(on('pull_request'), /Raise the limit in chores\.yaml .* \(push to the pull request, or Run workflow with this chore\)/);
    assert.doesNotMatch(on('pull_request'), /comment here continues|-f continue/);
    assert.match(on('workflow_run'), /continues only issue, issue-comment, schedule and Run workflow chores: raise the limit/);
    // A cron: chore in the workflow keeps its fires in the ledger too: Run workflow continues it.
    assert.match(said({ kind: 'cron', cron: '0 2 * * *' }), /`gh workflow run "Tasklane chores" -f chore=nightly -f continue=4242`/);
  });
});
