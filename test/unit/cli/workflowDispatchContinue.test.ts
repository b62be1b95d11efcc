/**
 * The generated workflow continues a schedule chore's run paused at budget on Run workflow (issue
 * 43), run step by step (the workflow runner in test/support): the scheduled fire parks at its
 * iterations and its summary names the exact gesture; a maintainer's Run workflow naming the chore
 * and that run's id in the `continue` input finds the run in the fire ledger, downloads its artifact
 * and continues the same task. An edited store, an id that is not the paused run, a run no longer
 * paused and an outsider are refused on the run's summary, before any model call.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoName } from '../../support/ciFireHarness';
import type { Obj } from '../../support/ciFireHarness';
import { continueSuite, jobLog as log, jobResult as result, SCRIPT } from '../../support/workflowContinueSuite';
import type { RunnerFor } from '../../support/workflowContinueSuite';
import type { ScriptStep } from '../../fixtures/modelServer';
import { startHttpReceiver } from '../../fixtures/escalationServers';
import type { HttpReceiver } from '../../fixtures/escalationServers';
import type { JobRun, WorkflowRunner } from '../../support/workflowRunner';

const CRON = '0 3 * * *';
const CHORE = `chores:
  - id: nightly-fix
    name: Fix within two model calls, nightly
    trigger:
      github: { event: schedule, cron: "${CRON}" }
    prompt: Make src/app.ts export 42.
    actionSets: [files]
    budget: { maxIterations: 2 }
    onFailure: escalate
    escalate:
      webhook: { urlSecret: ops-hook }
`;
const { edit, read, done } = SCRIPT;

const FIND = 'Find the paused run of chore nightly-fix';
const download = (job: JobRun) => job.steps.find((s) => s.label.includes('download-artifact'));

describe('cli: the generated workflow continues a schedule chore paused at budget on Run workflow', function () {
  this.timeout(180_000);
  let receiver: HttpReceiver;
  before(async () => {
    receiver = await startHttpReceiver();
  });
  after(() => receiver.close());
  const suite = continueSuite(CHORE, () => ({ TASKLANE_SECRET_OPS_HOOK: `${receiver.baseUrl}/hook` }));
  const server = () => suite.server();
  const setUp = () => suite.setUp();
  type Runner = RunnerFor;

  const scheduled = (): Obj => ({ schedule: CRON, repository: { full_name: repoName, default_branch: 'main' } });
  const runWorkflow = (inputs: Record<string, string>, login = 'Codertocat'): Obj => ({
    inputs: { chore: 'nightly-fix', ...inputs },
    ref: 'refs/heads/main',
    workflow: '.github/workflows/tasklane.yml',
    repository: { full_name: repoName, default_branch: 'main' },
    sender: { login, type: 'User' },
  });
  const latestRecord = () => suite.latestRecord('nightly-fix');

  /** The scheduled fire, paused at its two iterations and applied: its artifact is run 4242's. */
  async function pausedRun(runner: Runner) {
    receiver.requests.length = 0;
    const first = runner('schedule', scheduled(), '4242');
    server().script([edit, read, read]);
    const agent = await first.runJob('chore-nightly-fix');
    assert.equal(agent.conclusion, 'success', log(agent));
    assert.deepEqual(
      agent.steps.filter((s) => s.label === FIND || s.label.includes('download-artifact')).map((s) => s.kind),
      ['skipped', 'skipped'],
      'a scheduled fire is no continue',
    );
    assert.equal(result(agent).status, 'budget_exhausted');
    const apply = await first.runJob('apply-nightly-fix');
    assert.equal(apply.conclusion, 'success', log(apply));
    assert.deepEqual((latestRecord().paused as string[] | undefined)?.[0], '4242', 'the ledger binds run 4242 to its store');
    return first;
  }

  /** A Run workflow (run 4343) after the paused run, its agent and apply jobs run. */
  async function dispatched(runner: Runner, first: WorkflowRunner, inputs: Record<string, string>, script: ScriptStep[], login?: string) {
    const run = runner('workflow_dispatch', runWorkflow(inputs, login), '4343', { '4242': first.artifactsDir });
    assert.deepEqual(run.selectedJobs(), ['chore-nightly-fix']);
    server().reset();
    server().script(script);
    const agent = await run.runJob('chore-nightly-fix');
    assert.equal(agent.conclusion, 'success', log(agent));
    const apply = await run.runJob('apply-nightly-fix');
    assert.equal(apply.conclusion, 'success', log(apply));
    return { run, agent, manifest: result(agent) };
  }

  it("the paused run's summary says how to continue it, and Run workflow with its id continues it from the same step", async () => {
    const runner = await setUp();
    const first = await pausedRun(runner);
    const summary = first.stepSummary();
    assert.match(summary, /\*\*Paused at budget: used all 2 iterations \(budget\.maxIterations\)\*\*/);
    assert.match(summary, /runs the workflow "Tasklane chores" \(Actions, Run workflow\) with chore `nightly-fix` and continue `4242`/);
    assert.match(summary, /`gh workflow run "Tasklane chores" -f chore=nightly-fix -f continue=4242`/);
    // The chore escalates: its channel is told the pause and the same gesture, with the run's id.
    assert.equal(receiver.requests.length, 1, 'one escalation of the pause');
    const escalated = receiver.requests[0]?.body as { status?: string; reason?: string; runId?: string };
    assert.equal(escalated.status, 'budget_exhausted');
    assert.equal(escalated.runId, 'ci-4242');
    assert.match(escalated.reason ?? '', /^Paused at budget: used all 2 iterations \(budget\.maxIterations\)\. .*-f chore=nightly-fix -f continue=4242/);

    const { run, agent, manifest } = await dispatched(runner, first, { continue: '4242' }, [done]);
    const find = agent.steps.find((s) => s.label === FIND);
    assert.equal(find?.exitCode, 0, find?.output);
    assert.equal(download(agent)?.output, 'downloaded tasklane-nightly-fix');
    assert.equal(agent.steps.find((s) => s.label === 'Run chore nightly-fix')?.env?.RESUME_STORE, 'tasklane-resume/store');
    assert.equal(server().requests.length, 1, 'one model call: the task_end');
    assert.match(JSON.stringify(server().requests[0]?.body), /replace_in_file/, 'the request carries the steps before the pause');
    assert.equal(manifest.status, 'succeeded', String(manifest.reason));
    assert.equal(manifest.usage.iterations, 3, 'two steps before the pause, one after: none re-done');
    assert.deepEqual(manifest.changedFiles, ['src/app.ts']);
    assert.equal(latestRecord().paused, undefined, 'the continued run ended: nothing is paused now');
    assert.match(run.stepSummary(), /- Status: succeeded/);

    // The same run asked again: it is no longer paused, and nothing runs in its place.
    const again = await dispatched(runner, first, { continue: '4242' }, []);
    assert.equal(server().requests.length, 0);
    assert.equal(download(again.agent)?.kind, 'skipped');
    assert.equal(again.manifest.skip, 'resume');
    assert.match(String(again.manifest.reason), /run 4242 is not paused: no run of nightly-fix is paused at budget now/);
    assert.match(again.run.stepSummary(), /\*\*Not continued: run 4242 is not paused/);
  });

  it('an id that is not the paused run downloads nothing, runs nothing and says which run is paused', async () => {
    const runner = await setUp();
    const first = await pausedRun(runner);
    const { run, agent, manifest } = await dispatched(runner, first, { continue: '999' }, [done]);
    assert.match(agent.steps.find((s) => s.label === FIND)?.output ?? '', /not continued: run 999 is not the paused run of nightly-fix: run 4242 is/);
    assert.equal(download(agent)?.kind, 'skipped');
    assert.equal(agent.steps.find((s) => s.label === 'Run chore nightly-fix')?.env?.RESUME_STORE, '');
    assert.equal(server().requests.length, 0, 'never a new run from the first step in place of the continue');
    assert.equal(manifest.skip, 'resume');
    assert.match(run.stepSummary(), /\*\*Not continued: run 999 is not the paused run of nightly-fix: run 4242 is/);
    assert.deepEqual((latestRecord().paused as string[] | undefined)?.[0] ?? latestRecord().stopped, 'resume', 'a refused continue is recorded as stopped');
    // The paused run is still the one to continue: a refusal supersedes nothing.
    const ok = await dispatched(runner, first, { continue: '4242' }, [done]);
    assert.equal(ok.manifest.status, 'succeeded', String(ok.manifest.reason));
  });

  it('an edited store is refused before any model call, on the summary', async () => {
    const runner = await setUp();
    const first = await pausedRun(runner);
    fs.writeFileSync(
      path.join(first.artifactsDir, 'tasklane-nightly-fix/store/overlay.json'),
      JSON.stringify({ 'src/app.ts': 'export const answer = 42; /* planted */\n' }),
    );
    const { run, agent, manifest } = await dispatched(runner, first, { continue: '4242' }, [done]);
    assert.equal(download(agent)?.output, 'downloaded tasklane-nightly-fix');
    assert.equal(server().requests.length, 0);
    assert.equal(manifest.skip, 'resume');
    assert.match(String(manifest.reason), /does not match what run 4242 recorded when it paused/);
    assert.match(run.stepSummary(), /\*\*Not continued: the store given does not match what run 4242 recorded/);
  });

  it("an outsider's Run workflow is refused by the actor gate; an empty continue is a new run as before", async () => {
    const runner = await setUp();
    const first = await pausedRun(runner);
    suite.github().roles.set('mallory', 'read');
    const refused = await dispatched(runner, first, { continue: '4242' }, [done], 'mallory');
    assert.equal(server().requests.length, 0);
    assert.equal(refused.manifest.skip, 'gate');
    assert.match(String(refused.manifest.reason), /mallory has the role read/);

    const fresh = await dispatched(runner, first, { continue: '' }, [edit, done]);
    assert.equal(fresh.agent.steps.find((s) => s.label === FIND)?.kind, 'skipped');
    assert.equal(fresh.manifest.status, 'succeeded', String(fresh.manifest.reason));
    assert.equal(fresh.manifest.usage.iterations, 2, 'a new run from the first step');
  });
});
