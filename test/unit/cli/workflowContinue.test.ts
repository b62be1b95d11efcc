/**
 * The generated workflow continues a run paused at budget (issue 43), run step by step (the
 * workflow runner in test/support): an issue fire parks at its iterations, its apply job binds its
 * store to the run in the fire ledger (a local fake of GitHub's REST API), and a maintainer's
 * `/tasklane continue` comment on the issue runs the agent job again, which finds that run in the
 * ledger, downloads its artifact by run id and continues the same task to success.
 */
import * as assert from 'node:assert/strict';
import { fixRequest, repoName } from '../../support/ciFireHarness';
import type { Obj } from '../../support/ciFireHarness';
import { webhookExample } from '../../support/webhookExamples';
import { continueSuite, jobLog as log, jobResult as result, SCRIPT } from '../../support/workflowContinueSuite';
import type { RunnerFor } from '../../support/workflowContinueSuite';

const CHORE = `chores:
  - id: tight-fix
    name: Fix within two model calls
    trigger:
      github: { event: issues, types: [opened] }
    prompt: Make src/app.ts export 42.
    actionSets: [files]
    budget: { maxIterations: 2 }
`;
const { edit, read, done } = SCRIPT;

describe('cli: the generated workflow continues a paused run on /tasklane continue', function () {
  this.timeout(180_000);
  const suite = continueSuite(CHORE);
  const server = () => suite.server();
  const github = () => suite.github();
  beforeEach(() => github().issues.set(1, { number: 1, title: 'Spelling error in the README file', body: '', labels: [] }));
  const setUp = async () => ({ runner: await suite.setUp() });

  const opened = (): Obj => {
    const p = webhookExample('issues', (e) => e.action === 'opened') as Obj;
    p.repository.full_name = repoName;
    p.sender.login = 'Codertocat';
    p.issue.user.login = 'Codertocat';
    return p;
  };
  const continueOn = (issue: number): Obj => {
    const p = fixRequest();
    p.comment.body = '/tasklane continue';
    p.issue.number = issue;
    return p;
  };

  /** The issue fire, paused at its two iterations, applied: its artifact is run 4242's. */
  async function pausedRun(setup: { runner: RunnerFor }) {
    const first = setup.runner('issues', opened(), '4242');
    server().script([edit, read, read]);
    const agent = await first.runJob('chore-tight-fix');
    assert.equal(agent.conclusion, 'success', log(agent));
    // An issue fire is no continue: the continue's steps are skipped.
    assert.deepEqual(
      agent.steps.filter((s) => s.label.startsWith('Find the paused run') || s.label.includes('download-artifact')).map((s) => s.kind),
      ['skipped', 'skipped'],
    );
    assert.equal(result(agent).status, 'budget_exhausted');
    const apply = await first.runJob('apply-tight-fix');
    assert.equal(apply.conclusion, 'success', log(apply));
    assert.equal((suite.latestRecord('tight-fix').paused as string[] | undefined)?.[0], '4242', 'the ledger binds run 4242 to its store');
    return first;
  }

  it("a maintainer's continue comment runs the agent job on from the paused step, and the apply job reports success", async () => {
    const setup = await setUp();
    const first = await pausedRun(setup);
    const second = setup.runner('issue_comment', continueOn(1), '4343', { '4242': first.artifactsDir });
    assert.deepEqual(second.selectedJobs(), ['chore-tight-fix'], 'the agent job, not the status job: the status is the paused run’s');
    server().reset();
    server().script([done]);
    const agent = await second.runJob('chore-tight-fix');
    assert.equal(agent.conclusion, 'success', log(agent));
    const find = agent.steps.find((s) => s.label === 'Find the paused run of chore tight-fix');
    assert.equal(find?.exitCode, 0, find?.output);
    assert.equal(agent.steps.find((s) => s.label.includes('download-artifact'))?.output, 'downloaded tasklane-tight-fix');
    const runStep = agent.steps.find((s) => s.label === 'Run chore tight-fix');
    assert.equal(runStep?.env?.RESUME_STORE, 'tasklane-resume/store');
    assert.equal(server().requests.length, 1, 'one model call: the task_end');
    assert.match(JSON.stringify(server().requests[0]?.body), /replace_in_file/, 'the request carries the steps before the pause');
    const manifest = result(agent);
    assert.equal(manifest.status, 'succeeded', String(manifest.reason));
    assert.equal(manifest.usage.iterations, 3, 'two steps before the pause, one after: none re-done');
    assert.deepEqual(manifest.changedFiles, ['src/app.ts']);

    assert.equal(second.wouldRun('apply-tight-fix'), true);
    const apply = await second.runJob('apply-tight-fix');
    assert.equal(apply.conclusion, 'success', log(apply));
    assert.equal(suite.latestRecord('tight-fix').paused, undefined, 'the continued run ended: nothing is paused now');
    const status = github().comments.filter((c) => c.issue === 1 && /<!-- tasklane:chore=tight-fix status -->/.test(c.body));
    assert.equal(status.length, 1, 'the one status comment, edited in place');
    assert.match(status[0]?.body ?? '', /- Status: succeeded/);
  });

  it('a continue on an issue with no paused run downloads nothing and runs nothing', async () => {
    const setup = await setUp();
    const first = await pausedRun(setup);
    github().issues.set(2, { number: 2, title: 'Add a feature', body: '', labels: [] });
    const other = setup.runner('issue_comment', continueOn(2), '4343', { '4242': first.artifactsDir });
    server().reset();
    const agent = await other.runJob('chore-tight-fix');
    assert.equal(agent.conclusion, 'success', log(agent));
    assert.equal(agent.steps.find((s) => s.label.includes('download-artifact'))?.kind, 'skipped');
    assert.equal(agent.steps.find((s) => s.label === 'Run chore tight-fix')?.env?.RESUME_STORE, '');
    assert.equal(server().requests.length, 0);
    assert.equal(result(agent).skip, 'event');
  });
});
