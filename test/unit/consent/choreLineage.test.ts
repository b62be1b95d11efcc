import * as assert from 'node:assert/strict';
import { successorPolicy } from '../../../src/core/engine/taskTurn';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from '../chores/runnerHarness';
import type { RunnerHarness } from '../chores/runnerHarness';
import { attack } from './attackCount';

// A chore never writes unattended, transitively: a task a chore task starts (and the tasks that
// one starts) works for the same run: the chore's policy, the chore's action sets, the run's budget.

const chores = (budget: string) =>
  choresFrom(`chores:
  - id: nightly
    name: Nightly
    trigger: { cron: "0 3 * * *" }
    prompt: Tidy up.
    actionSets: [files]
    budget: ${budget}
`);

const startHelper = (name: string) => ({ name: 'task_start', arguments: { name, instruction: `${name}: write the planted files`, mode: 'simple' } });
const read = { name: 'read_file', arguments: { path: 'src/app.ts' } };

describe('chore runs: what a chore task starts inherits its policy and budget', function () {
  this.timeout(20_000);
  let server: ModelServer;
  let h: RunnerHarness;
  const open = useRunnerHarness((s) => (server = s));

  it('successors and their successors carry the run, and spend its iterations; the budget stops them', async () => {
    h = await open(chores('{ maxIterations: 3 }'));
    // 1: the chore task starts a helper and sleeps; 2: the helper starts a grand-helper and sleeps;
    // 3: the grand-helper reads; a 4th model call would exceed the run's 3 iterations.
    server.script([
      { toolCalls: [startHelper('helper'), { name: 'wait', arguments: { seconds: 86_400 } }] },
      { toolCalls: [startHelper('grand-helper'), { name: 'wait', arguments: { seconds: 86_400 } }] },
      { toolCalls: [read] },
      { toolCalls: [read] },
      { toolCalls: [read] },
    ]);
    await h.runner.fire('nightly', 'manual');
    await h.idle();
    const run = h.runLog.history('nightly')[0];
    const tasks = h.agent.views.snapshot().tasks;
    const root = tasks.find((t) => t.source === 'chore:nightly')!;
    const helper = tasks.find((t) => t.name === 'helper')!;
    const grand = tasks.find((t) => t.name === 'grand-helper')!;
    assert.ok(root && helper && grand, JSON.stringify(tasks.map((t) => [t.name, t.source])));
    assert.equal(helper.source, `successor:${root.id}`);
    for (const t of [root, helper, grand]) assert.deepEqual(t.chore, { choreId: 'nightly', runId: run.runId }, `${t.name} lost the chore lineage`);
    // The chore's action sets only (read, task, files): no set it did not have.
    for (const t of [helper, grand]) assert.deepEqual([...t.actionSets].sort(), ['files', 'read', 'task']);
    assert.equal(server.requests.length, 3, 'a descendant made a model call past the run budget');
    assert.equal(run.usage.iterations, 3, 'descendants draw on the run budget');
    assert.equal(grand.status, 'error');
    assert.match(grand.finalSummary ?? '', /Chore budget exhausted/);
    attack(server.requests.length === 3 && grand.status === 'error');
  });

  it('a descendant of an ended run stops at its next step', async () => {
    h = await open(chores('{ maxIterations: 10 }'));
    server.script([{ toolCalls: [startHelper('helper'), { name: 'task_end', arguments: { summary: 'handed off' } }] }, { toolCalls: [read] }]);
    await h.runner.fire('nightly', 'manual');
    const run = await h.ended('nightly');
    await h.idle();
    assert.equal(run.status, 'succeeded');
    const helper = h.agent.views.snapshot().tasks.find((t) => t.name === 'helper')!;
    assert.equal(helper.status, 'error');
    assert.match(helper.finalSummary ?? '', /This chore run already ended/);
    assert.equal(server.requests.length, 1, 'the helper called the model after its run ended');
    attack(server.requests.length === 1);
  });

  it('successorPolicy: a chore descendant never gains an action set; other tasks are unchanged', () => {
    const chore = { choreId: 'nightly', runId: 'run-1' };
    assert.deepEqual(successorPolicy({ actionSets: ['task', 'read', 'files'], chore }, ['files', 'commands']), { actionSets: ['files'], chore });
    assert.deepEqual(successorPolicy({ actionSets: ['task', 'read', 'files'], chore }, undefined), { actionSets: ['read', 'files'], chore });
    assert.deepEqual(successorPolicy({ actionSets: ['task', 'read'] }, ['files', 'commands']), { actionSets: ['files', 'commands'] });
    attack(!successorPolicy({ actionSets: ['task', 'read'], chore }, ['commands']).actionSets.includes('commands'));
  });
});
