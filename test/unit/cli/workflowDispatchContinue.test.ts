/**
 * The generated workflow continues a run paused at budget on Run workflow (issue 43), for a
 * `github: { event: schedule }` chore and a `cron:` chore alike (the agent job of each reads the
 * fire ledger, its apply job writes the fire's record with no item), run step by step (the
 * workflow runner in test/support): the scheduled fire parks at its iterations and its summary and
 * escalation name the exact gesture; a maintainer's Run workflow naming the chore and that run's
 * id in the `continue` input finds the run in the fire ledger, downloads its artifact and continues
 * the same task. An edited store, an id that is not the paused run, a run no longer paused and an
 * outsider are refused on the run's summary, before any model call.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { continueSuite, dispatchContinue, SCRIPT } from '../../support/workflowContinueSuite';
import type { RunnerFor } from '../../support/workflowContinueSuite';
import { startHttpReceiver } from '../../fixtures/escalationServers';
import type { HttpReceiver } from '../../fixtures/escalationServers';

const CRON = '0 3 * * *';
const { edit, read, done } = SCRIPT;

/** The two ways a chore is scheduled on CI; both are continued by Run workflow (ciResume.ts `continueGesture`). */
const KINDS = [
  { kind: 'schedule', id: 'nightly-fix', trigger: `\n      github: { event: schedule, cron: "${CRON}" }` },
  { kind: 'cron:', id: 'nightly-cron', trigger: ` { cron: "${CRON}" }` },
] as const;

for (const { kind, id, trigger } of KINDS)
  describe(`cli: the generated workflow continues a ${kind} chore paused at budget on Run workflow`, function () {
    this.timeout(180_000);
    const CHORE = `chores:
  - id: ${id}
    name: Fix within two model calls, nightly
    trigger:${trigger}
    prompt: Make src/app.ts export 42.
    actionSets: [files]
    budget: { maxIterations: 2 }
    onFailure: escalate
    escalate:
      webhook: { urlSecret: ops-hook }
`;
    let receiver: HttpReceiver;
    before(async () => {
      receiver = await startHttpReceiver();
    });
    after(() => receiver.close());
    const suite = continueSuite(CHORE, () => ({ TASKLANE_SECRET_OPS_HOOK: `${receiver.baseUrl}/hook` }));
    const server = () => suite.server();
    const setUp = () => suite.setUp();
    const latestRecord = () => suite.latestRecord(id);
    const flow = dispatchContinue(suite, id, CRON);
    const { download, dispatched } = flow;
    const FIND = flow.find;
    /** The scheduled fire, paused at its two iterations and applied: its artifact is run 4242's, its record names no item. */
    const pausedRun = async (runner: RunnerFor) => {
      receiver.requests.length = 0;
      const first = await flow.pausedRun(runner, [edit, read, read]);
      assert.equal(latestRecord().item, null, 'a scheduled fire is about no item');
      return first;
    };

    it("the paused run's summary says how to continue it, and Run workflow with its id continues it from the same step", async () => {
      const runner = await setUp();
      const first = await pausedRun(runner);
      const summary = first.stepSummary();
      assert.match(summary, /\*\*Paused at budget: used all 2 iterations \(budget\.maxIterations\)\*\*/);
      assert.ok(summary.includes(`runs the workflow "Tasklane chores" (Actions, Run workflow) with chore \`${id}\` and continue \`4242\``), summary);
      assert.ok(summary.includes(`\`gh workflow run "Tasklane chores" -f chore=${id} -f continue=4242\``), summary);
      // The chore escalates: its channel is told the pause and the same gesture, with the run's id.
      assert.equal(receiver.requests.length, 1, 'one escalation of the pause');
      const escalated = receiver.requests[0]?.body as { status?: string; reason?: string; runId?: string };
      assert.equal(escalated.status, 'budget_exhausted');
      assert.equal(escalated.runId, 'ci-4242');
      assert.match(escalated.reason ?? '', /^Paused at budget: used all 2 iterations \(budget\.maxIterations\)\. /);
      assert.ok(escalated.reason?.includes(`-f chore=${id} -f continue=4242`), escalated.reason);

      const { run, agent, manifest } = await dispatched(runner, first, { continue: '4242' }, [done]);
      const find = agent.steps.find((s) => s.label === FIND);
      assert.equal(find?.exitCode, 0, find?.output);
      assert.equal(download(agent)?.output, `downloaded tasklane-${id}`);
      assert.equal(agent.steps.find((s) => s.label === `Run chore ${id}`)?.env?.RESUME_STORE, 'tasklane-resume/store');
      assert.equal(server().requests.length, 1, 'one model call: the task_end');
      const history = JSON.stringify(server().requests[0]?.body);
      assert.match(history, /replace_in_file/, 'the request carries the steps before the pause');
      assert.match(history, /Make src\/app\.ts export 42/, 'the same task');
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
      assert.ok(String(again.manifest.reason).includes(`run 4242 is not paused: no run of ${id} is paused at budget now`), String(again.manifest.reason));
      assert.match(again.run.stepSummary(), /\*\*Not continued: run 4242 is not paused/);
    });

    it('an id that is not the paused run downloads nothing, runs nothing and says which run is paused', async () => {
      const runner = await setUp();
      const first = await pausedRun(runner);
      const { run, agent, manifest } = await dispatched(runner, first, { continue: '999' }, [done]);
      const said = `not continued: run 999 is not the paused run of ${id}: run 4242 is`;
      assert.ok(agent.steps.find((s) => s.label === FIND)?.output.includes(said), agent.steps.find((s) => s.label === FIND)?.output);
      assert.equal(download(agent)?.kind, 'skipped');
      assert.equal(agent.steps.find((s) => s.label === `Run chore ${id}`)?.env?.RESUME_STORE, '');
      assert.equal(server().requests.length, 0, 'never a new run from the first step in place of the continue');
      assert.equal(manifest.skip, 'resume');
      assert.ok(run.stepSummary().includes(`**Not continued: ${said.replace(/^not continued: /, '')}`), run.stepSummary());
      assert.equal(latestRecord().stopped, 'resume', 'a refused continue is recorded as stopped');
      // The paused run is still the one to continue: a refusal supersedes nothing.
      const ok = await dispatched(runner, first, { continue: '4242' }, [done]);
      assert.equal(ok.manifest.status, 'succeeded', String(ok.manifest.reason));
    });

    it('an edited store is refused before any model call, on the summary', async () => {
      const runner = await setUp();
      const first = await pausedRun(runner);
      fs.writeFileSync(
        path.join(first.artifactsDir, `tasklane-${id}/store/overlay.json`),
        JSON.stringify({ 'src/app.ts': 'export const answer = 42; /* planted */\n' }),
      );
      const { run, agent, manifest } = await dispatched(runner, first, { continue: '4242' }, [done]);
      assert.equal(download(agent)?.output, `downloaded tasklane-${id}`);
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
