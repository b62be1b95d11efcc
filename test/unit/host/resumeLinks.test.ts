import { standIn } from '../support/vscodeStandIn';
import * as assert from 'node:assert/strict';
import { resumeParkedRun } from '../../../src/core/chores/budgetPause';
import { ConsentDialogs } from '../../../src/host/consentDialog';
import { openResumeLink } from '../../../src/host/chores/resumeLinks';
import type { ResumeLinkTargets } from '../../../src/host/chores/resumeLinks';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from '../chores/runnerHarness';
import type { RunnerHarness } from '../chores/runnerHarness';

// Issue 43: the pause notice's resume link (src/host/chores/resumeLinks.ts) comes from outside VS
// Code, so it shows the parked run's task and resumes only after the person's yes in a modal that
// names the chore, what the run used and the budget resuming grants. The run is a real one, parked
// by the real runner and engine; the yes continues it through the chore's Resume path.

const chore = `chores:
  - id: demo
    name: Demo chore
    trigger: { files: ["src/**"] }
    prompt: Tidy the repo.
    budget: { maxIterations: 2, maxSeconds: 600, maxCostUsd: 0.5 }
`;
const read = (path: string) => ({ toolCalls: [{ name: 'read_file', arguments: { path } }] });
const end = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output: { status: 'done' } } }] };

describe('host: a resume link asks before it resumes a chore run parked at its budget', function () {
  this.timeout(20_000);
  let server: ModelServer;
  let h: RunnerHarness;
  const open = useRunnerHarness((s) => (server = s));
  let shownTasks: string[];
  let resumes: string[];
  const dialogs = new ConsentDialogs();
  after(() => dialogs.dispose());

  beforeEach(() => {
    standIn.reset();
    shownTasks = [];
    resumes = [];
  });

  /** The targets main.ts builds, over the harness's run log, runner and agent. */
  const targets = (): ResumeLinkTargets => ({
    run: (id) => h.runLog.get(id),
    chore: (id) => h.runner.chore(id),
    showTask: async (taskId) => void shownTasks.push(taskId),
    resume: (runId, choreId) => {
      resumes.push(runId);
      return resumeParkedRun({ active: () => h.runLog.active().filter((r) => r.runId === runId) }, choreId, (taskId) => h.agent.continueTask(taskId));
    },
    now: () => h.clock.now(),
    confirm: (question, detail, action) => dialogs.confirm(question, detail, action, 'resume'),
  });

  /** A run of the demo chore parked at its 2 iterations, as the runner leaves it in VS Code. */
  async function parkedRun() {
    h = await open(choresFrom(chore), { parkAtBudget: true });
    server.script([read('src/app.ts'), read('CHANGELOG.md'), end]);
    await h.runner.fire('demo', 'manual');
    await h.idle();
    const run = h.runLog.active()[0];
    assert.ok(run?.parked && run.taskId, 'the run parked at its budget');
    return run as typeof run & { taskId: string };
  }

  it('without the yes: the task is shown, the modal names the chore, what it used and the budget it grants, and nothing resumes', async () => {
    const run = await parkedRun();
    const result = await openResumeLink(run.runId, targets());
    assert.deepEqual(result, { resumed: false, reason: 'not confirmed' });
    assert.deepEqual(shownTasks, [run.taskId], "the parked run's task is shown in the thread first");
    assert.equal(standIn.modals.length, 1);
    const [modal] = standIn.modals;
    assert.match(modal.message, /Resume the chore "Demo chore", paused at its budget\?/);
    assert.deepEqual(modal.buttons, ['Resume']);
    assert.match(modal.detail, /It stopped at its budget: .*iterations/);
    assert.match(modal.detail, /So far it used 2 model calls/);
    assert.match(modal.detail, /up to 4 model calls, \d+ input tokens and \$0\.50 in total, and 600 s more/);
    assert.match(modal.detail, /came from outside VS Code/);
    assert.deepEqual(resumes, []);
    await h.idle();
    assert.ok(h.runLog.get(run.runId)?.parked, 'still parked');
    assert.equal(server.requests.length, 2, 'no model call without the yes');
  });

  it('after the yes: the same run resumes through Resume and ends succeeded', async () => {
    const run = await parkedRun();
    standIn.answer = (modal) => (modal.buttons.includes('Resume') ? 'Resume' : undefined);
    const result = await openResumeLink(run.runId, targets());
    assert.deepEqual(result, { resumed: true, id: run.runId });
    assert.deepEqual(resumes, [run.runId]);
    const ended = await h.ended('demo');
    assert.equal(ended.runId, run.runId, 'the same run went on');
    assert.equal(ended.status, 'succeeded', ended.reason ?? '');
    assert.equal(ended.limits?.maxIterations, 4, 'what it used plus another budget of the chore size');
    assert.equal(server.requests.length, 3);
  });

  it('a run that is not parked any more is refused with a clear message and no modal; so is an unknown run', async () => {
    const run = await parkedRun();
    await h.agent.continueTask(run.taskId);
    await h.ended('demo');
    const result = await openResumeLink(run.runId, targets());
    assert.equal(result.resumed, false);
    assert.match(standIn.notices.at(-1)?.message ?? '', /is not paused at budget any more \(succeeded\); there is nothing to resume/);
    const unknown = await openResumeLink('run-elsewhere', targets());
    assert.equal(unknown.resumed, false);
    assert.match(standIn.notices.at(-1)?.message ?? '', /there is no chore run run-elsewhere in this workspace/);
    assert.equal(standIn.modals.length, 0);
    assert.deepEqual(resumes, []);
  });

  it('resumed by Continue while the modal was open: the yes resumes nothing twice and says so', async () => {
    const run = await parkedRun();
    standIn.answer = async () => {
      // The person pressed Continue on the task in the thread before answering the link's modal.
      await h.agent.continueTask(run.taskId);
      await h.ended('demo');
      return 'Resume';
    };
    const result = await openResumeLink(run.runId, targets());
    assert.equal(result.resumed, false);
    assert.match(standIn.notices.at(-1)?.message ?? '', /not paused at budget any more; it was resumed or ended meanwhile/);
    assert.deepEqual(resumes, []);
    assert.equal(server.requests.length, 3);
  });
});
