import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ledgerCheckName, ledgerRecords } from '../../../src/cli/fireLedger';
import { ciFireSuite, end } from '../../support/ciFireHarness';
import { writeEvent } from '../../support/webhookExamples';

/**
 * A fire whose agent job is cut short mid-run (cancelled by a newer fire under concurrency:
 * replace, by a person, or timed out) still leaves its account: the run writes it before calling
 * the model, the job's upload step (always()) sends it, and the apply job records the fire in the
 * ledger at its cost cap and says so on the item and in the step summary. Reproduced without a
 * sleep: the model holds the run's first call at a gate while the "cancelled" job's apply runs.
 */
describe('cli: a fire cut short mid-run is recorded at its cost cap', function () {
  this.timeout(120_000);
  const h = ciFireSuite();

  it('the ledger counts it, so the caps across fires hold; the item and the step summary say it did not finish', async () => {
    const event = writeEvent(h.tmp, 'issues', h.issueOpened());
    const out = fs.mkdtempSync(path.join(h.tmp, 'out-'));
    h.server.reset();
    h.server.script([{ ...end({ comment: 'never applied' }), gate: 'cancel-here' }]);
    const running = h.cli(['chores', 'run', 'capped', '--out', out], {
      TASKLANE_MODEL_PROVIDER: 'openai-compatible',
      TASKLANE_MODEL_BASE_URL: h.server.openaiBaseUrl,
      TASKLANE_MODEL_ID: 'gpt-5-mini',
      OPENAI_API_KEY: 'test-key',
      TASKLANE_GATE_TOKEN: 'gate-token',
      ...h.baseEnv('issues', event),
    });
    await h.server.held('cancel-here');
    // The job is cancelled now: what its upload step finds in --out is what the apply job gets.
    const uploaded = fs.mkdtempSync(path.join(h.tmp, 'uploaded-'));
    fs.cpSync(out, uploaded, { recursive: true });
    fs.writeFileSync(h.stepSummary, '');
    const apply = await h.cli(['chores', 'apply', '--from', uploaded, '--chore', 'capped'], {
      ...h.baseEnv('issues', event),
      GITHUB_TOKEN: 'write-token',
      GITHUB_STEP_SUMMARY: h.stepSummary,
      TASKLANE_AGENT_RESULT: 'cancelled',
    });
    assert.equal(apply.code, 0, apply.out + apply.err);
    // 'capped' has $0.2 a day left and $1 a run: its run could spend $0.2 at most.
    const records = ledgerRecords(
      h.github.checkRuns.filter((c) => c.name === ledgerCheckName('capped')),
      'capped',
    );
    assert.deepEqual(
      records.map((r) => [r.item, r.costUsd]),
      [['Codertocat/Hello-World#1', 0.2]],
    );
    const status = h.statusOn(1, 'capped')[0]?.body ?? '';
    assert.match(status, /Cancelled before it wrote a result/);
    assert.match(status, /the run started and did not finish .* it is counted at its cost cap, \$0\.20, the most it could have spent/);
    assert.match(fs.readFileSync(h.stepSummary, 'utf8'), /## Tasklane · capped\n\n\*\*Cancelled before it wrote a result\*\*/);
    assert.deepEqual(h.outputComments(), [], 'nothing the model had not yet proposed is written');

    // The next fire finds the cap spent and stops before the model.
    h.server.release('cancel-here');
    await running;
    const next = await h.fire('capped', 'issues', h.issueOpened(), [end({ comment: 'hi' })]);
    assert.equal(next.manifest.skip, 'budget', next.manifest.reason ?? '');
    assert.match(next.manifest.reason ?? '', /capped spent \$0\.2000 today/);
    assert.equal(next.modelRequests, 0);
  });

  it('a run that ends replaces the unfinished account with its own', async () => {
    const fired = await h.fire('capped', 'issues', h.issueOpened(), [end({ comment: 'hi' })]);
    assert.equal(fired.manifest.status, 'succeeded');
    assert.equal(fired.manifest.usage.costUsd < 0.2, true);
    assert.doesNotMatch(fired.manifest.reason ?? '', /did not finish/);
  });
});
