import * as assert from 'node:assert/strict';
import { standIn } from '../support/vscodeStandIn';
import type { TaskView } from '../../../src/core/engine/types';
import { Attention } from '../../../src/host/attention';
import { AttentionState } from '../../../src/host/attentionState';
import { silentLogger } from '../../../src/core/ports';
import type { ApprovalView } from '../../../src/shared/approvalProtocol';

const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cost: 0 };
const task = (id: string, patch: Partial<TaskView> = {}): TaskView => ({
  id,
  sessionId: `s-${id}`,
  name: `Task ${id}`,
  instruction: 'x',
  mode: 'simple',
  status: 'running',
  todos: [],
  counters: { actions: { used: 1, limit: 50 }, tokens: { used: 10, limit: 1000 } },
  waitingForUser: false,
  paused: false,
  source: 'user',
  selectedSkills: [],
  actionSets: [],
  usage,
  createdAt: 1,
  ...patch,
});
const approval = (id: string, status = 'pending'): ApprovalView => ({
  id,
  taskId: 't1',
  sessionId: 's-t1',
  kind: 'edits',
  title: 'Edit 1 file',
  status,
  files: [{ path: 'README.md', kind: 'modify', added: 1, removed: 1 }],
  createdAt: 1,
});

describe('attention: what waits for the person', function () {
  it('counts running tasks, and a waiting task once, under its approval', function () {
    const state = new AttentionState();
    state.setTask(task('t1'));
    state.setTask(task('t2'));
    state.setTask(task('t3', { status: 'completed' }));
    assert.deepEqual(state.summary(), { running: 2, waiting: [] });

    state.setTask(task('t1', { waitingForApproval: 'cs-1', waitingForUser: true }));
    state.setApproval(approval('cs-1'));
    const summary = state.summary();
    assert.equal(summary.running, 1);
    assert.deepEqual(
      summary.waiting.map((w) => w.key),
      ['approval:cs-1'],
      'the task waiting for the approval is not a second item',
    );
    assert.match(summary.waiting[0].text, /proposes edits to README\.md/);

    state.setApproval(approval('cs-1', 'applied'));
    state.setTask(task('t1'));
    assert.deepEqual(state.summary(), { running: 2, waiting: [] }, 'a decided card no longer waits');
  });

  it('says a task the person stopped is paused by them, not by a model error', function () {
    const state = new AttentionState();
    state.setTask(task('t3', { paused: true, status: 'paused', pauseReason: 'stopped' }));
    assert.deepEqual(
      state.summary().waiting.map((i) => i.text),
      ['“Task t3” is paused (stopped by you): Continue or Cancel'],
    );
  });

  it('counts a question and a budget pause, and announces each wait exactly once', function () {
    const state = new AttentionState();
    state.setTask(task('t1', { waitingForUser: true }));
    state.setTask(task('t2', { paused: true, status: 'paused', pauseReason: 'budget' }));
    assert.equal(state.summary().waiting.length, 2);
    const first = state.takeNew();
    assert.deepEqual(
      first.map((i) => i.text),
      ['“Task t1” asks you something', '“Task t2” is paused (budget reached): Continue or Cancel'],
    );
    assert.deepEqual(state.takeNew(), [], 'the same waits are not announced again');

    // The same task asks again later (it acted in between): a new wait, announced.
    state.setTask(task('t1', { waitingForUser: true, counters: { actions: { used: 5, limit: 50 }, tokens: { used: 10, limit: 1000 } } }));
    assert.deepEqual(
      state.takeNew().map((i) => i.sessionId),
      ['s-t1'],
    );
  });

  it('announces a chore run that needs a person without counting it, and forgets waits seen in the sidebar', function () {
    const state = new AttentionState();
    state.setChoreRun(
      { id: 'r1', choreId: 'lint', status: 'succeeded', startedAt: 1, usage: { iterations: 1, inputTokens: 1, outputTokens: 1, cost: 0 } },
      'Lint',
    );
    assert.deepEqual(state.takeNew(), []);
    state.setChoreRun(
      {
        id: 'r2',
        choreId: 'lint',
        status: 'budget_exhausted',
        reason: 'iterations',
        startedAt: 1,
        usage: { iterations: 1, inputTokens: 1, outputTokens: 1, cost: 0 },
      },
      'Lint',
    );
    assert.equal(state.summary().waiting.length, 0);
    assert.deepEqual(
      state.takeNew().map((i) => i.text),
      ['Chore “Lint” ended stopped at budget: iterations'],
    );

    state.setApproval(approval('cs-9'));
    state.markSeen();
    assert.deepEqual(state.takeNew(), [], 'a wait the person already saw in the sidebar is not announced');
    assert.equal(state.summary().waiting.length, 1, 'but it still counts');
  });
});

// The review found the status bar opening the last chat instead of what waits: a click on
// "waiting for you" now opens the waiting task's block (tasklane.showTask with its id).
describe('attention: the status bar opens what waits', function () {
  it('runs tasklane.showTask for the waiting task, and only focuses the view when nothing waits', function () {
    const view = { visible: true, current: undefined, onDidChangeVisibility: () => ({ dispose: () => undefined }), showSession: async () => undefined };
    const attention = new Attention(view, silentLogger);
    const item = standIn.statusItems.at(-1)!;
    assert.deepEqual(item.command, { command: 'tasklane.sidebar.focus', title: 'Open Tasklane' });
    attention.seed([task('t7', { waitingForUser: true })], []);
    assert.deepEqual(item.command, { command: 'tasklane.showTask', title: 'Open what waits for you', arguments: ['t7'] });
    attention.onAgentChange({ type: 'task', task: task('t7', { status: 'completed' }) });
    assert.deepEqual(item.command, { command: 'tasklane.sidebar.focus', title: 'Open Tasklane' });
    attention.dispose();
  });
});
