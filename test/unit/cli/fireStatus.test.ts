import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ciFireSuite, end, fixRequest, repoName } from '../../support/ciFireHarness';
import type { Obj } from '../../support/ciFireHarness';
import { webhookExample, writeEvent } from '../../support/webhookExamples';

/**
 * One status per item (statusComment.ts): every fire leaves one status on its issue or pull
 * request, checks only on pull-request heads, and a fire whose agent job left no result (cancelled
 * by a newer fire, or crashed) is reported as well.
 */
describe('cli: one status per item for every CI fire', function () {
  this.timeout(120_000);
  const h = ciFireSuite();
  const { cli, fire, fireChecks, statusOn } = h;

  /** The apply job of a fire whose agent job ended `result` without uploading a result. */
  const applyWithoutResult = async (chore: string, eventName: string, payload: Obj, result: string) => {
    const event = writeEvent(h.tmp, eventName, payload);
    fs.writeFileSync(h.stepSummary, '');
    return cli(['chores', 'apply', '--from', path.join(h.tmp, 'never-downloaded'), '--chore', chore], {
      ...h.baseEnv(eventName, event),
      GITHUB_TOKEN: 'write-token',
      GITHUB_STEP_SUMMARY: h.stepSummary,
      TASKLANE_AGENT_RESULT: result,
    });
  };

  it('a fire cancelled by a newer one edits the same status on its issue; no check, no ledger record', async () => {
    const request = fixRequest();
    const number = request.issue.number as number;
    const first = await fire('team-fix', 'issue_comment', request, [end({ status: 'not_done', comment: 'Looking.' })]);
    // A failed /fix says so on the issue it was asked on (its comment is refused with the run).
    assert.equal(first.apply.code, 1, first.apply.out);
    assert.match(statusOn(number, 'team-fix')[0]?.body ?? '', /The run ended failed[\s\S]*Outputs refused: every proposed output \(1\): the run ended failed/);
    const ledger = h.github.checkRuns.length;
    const cancelled = await applyWithoutResult('team-fix', 'issue_comment', request, 'cancelled');
    assert.equal(cancelled.code, 0, cancelled.out + cancelled.err);
    const status = statusOn(number, 'team-fix');
    assert.equal(status.length, 1, 'edited in place');
    assert.match(status[0].body, /^\*\*Tasklane · team-fix\*\*: Cancelled before it wrote a result \(\[run\]/);
    assert.match(status[0].body, /a newer fire of the chore replaced it/);
    assert.equal(h.github.checkRuns.length, ledger, 'no check run and no ledger record (its cost is unknown here)');
    assert.match(fs.readFileSync(h.stepSummary, 'utf8'), /## Tasklane · team-fix\n\n\*\*Cancelled before it wrote a result\*\*/);
  });

  it('on a pull request: a neutral check on its head and the status on the pull request, also for a crash', async () => {
    const pr = webhookExample('pull_request', (e) => e.action === 'opened') as Obj;
    const crashed = await applyWithoutResult('pr-review', 'pull_request', pr, 'failure');
    assert.equal(crashed.code, 0, crashed.out + crashed.err);
    const check = fireChecks().at(-1);
    assert.deepEqual([check?.name, check?.head_sha, check?.conclusion], ['Tasklane · pr-review', pr.pull_request.head.sha, 'failure']);
    assert.match(statusOn(pr.number as number, 'pr-review')[0]?.body ?? '', /The run ended failed[\s\S]*the agent job ended failure before it wrote a result/);
    const cancelled = await applyWithoutResult('pr-review', 'pull_request', pr, 'cancelled');
    assert.equal(cancelled.code, 0);
    assert.equal(fireChecks().at(-1)?.conclusion, 'neutral');
    assert.equal(statusOn(pr.number as number, 'pr-review').length, 1);
  });

  it('the status job says a fire started; the apply job edits the same comment into the outcome; an outsider gets no started status', async () => {
    const request = fixRequest();
    const number = request.issue.number as number;
    const event = writeEvent(h.tmp, 'issue_comment', request);
    const env = { ...h.baseEnv('issue_comment', event), GITHUB_TOKEN: 'write-token' };
    const started = await cli(['chores', 'status', '--chore', 'team-fix'], env);
    assert.equal(started.code, 0, started.err);
    assert.match(started.out, /^status comment on #\d+\n$/);
    assert.match(
      statusOn(number, 'team-fix')[0]?.body ?? '',
      /^\*\*Tasklane · team-fix\*\*: Started \(\[run\]\(https:\/\/github\.com\/Codertocat\/Hello-World\/actions\/runs\/4242\)\)/,
    );
    const done = await fire('team-fix', 'issue_comment', request, [end({ status: 'not_done' })]);
    assert.equal(done.manifest.status, 'failed');
    const status = statusOn(number, 'team-fix');
    assert.equal(status.length, 1, 'one comment, edited in place');
    assert.match(status[0].body, /: The run ended failed/);
    // A status job slower than its fire leaves the outcome of its own run alone.
    const late = await cli(['chores', 'status', '--chore', 'team-fix'], env);
    assert.match(late.out, /no started status: the outcome of this run is already written/);
    assert.match(statusOn(number, 'team-fix')[0]?.body ?? '', /: The run ended failed/);

    h.github.roles.set('outsider', 'read');
    const other = fixRequest();
    other.issue.number = 2;
    other.sender.login = 'outsider';
    other.comment.user.login = 'outsider';
    const outsider = await cli(['chores', 'status', '--chore', 'team-fix'], { ...env, GITHUB_EVENT_PATH: writeEvent(h.tmp, 'issue_comment', other) });
    assert.match(outsider.out, /no started status: the actor gate refuses the fire/);
    assert.deepEqual(statusOn(2), []);
  });

  it("a failed run of a pull request's commit is about that pull request: its status and check are there", async () => {
    const run = webhookExample('workflow_run', (e) => e.action === 'completed') as Obj;
    const prHead = '5'.repeat(40);
    Object.assign(run.workflow_run, { conclusion: 'failure', name: 'CI', head_branch: 'main', head_sha: prHead });
    run.workflow_run.pull_requests = [{ number: 2, head: { sha: prHead, ref: 'main' }, base: { ref: 'main' } }];
    run.repository.full_name = repoName;
    run.workflow_run.head_repository.full_name = repoName;
    const result = await fire('fix-failing-build', 'workflow_run', run, [end({ status: 'not_fixed' })]);
    assert.deepEqual(result.manifest.item, { repo: repoName, number: 2, kind: 'pull_request' });
    const check = fireChecks().at(-1);
    assert.deepEqual([check?.name, check?.head_sha], ['Tasklane · fix-failing-build', prHead]);
    assert.match(statusOn(2, 'fix-failing-build')[0]?.body ?? '', /^\*\*Tasklane · fix-failing-build\*\*: /);
    // Without a pull request the same fire writes no check run (the default branch is not painted).
    run.workflow_run.pull_requests = [];
    const checks = fireChecks().length;
    const plain = await fire('fix-failing-build', 'workflow_run', run, [end({ status: 'not_fixed' })]);
    assert.equal(plain.manifest.item?.number, null);
    assert.equal(fireChecks().length, checks);
  });

  it('a fire the event does not match leaves no status on the item, and says why on the run page', async () => {
    const request = fixRequest();
    request.comment.body = 'please /tasklane fix';
    const before = h.github.writes().length;
    const result = await fire('team-fix', 'issue_comment', request, []);
    assert.equal(result.manifest.skip, 'event');
    assert.equal(h.github.writes().length, before, 'nothing written on an unrelated comment');
    assert.match(fs.readFileSync(h.stepSummary, 'utf8'), /## Tasklane · team-fix\n\nNot a fire: the event does not fire this chore/);
  });
});
