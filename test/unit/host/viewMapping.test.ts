import type { TaskEdits } from '../../../src/core/approval/changes/revertibleTasks';
import * as assert from 'node:assert/strict';
import type { SessionView, TaskView } from '../../../src/core/engine/types';
import { toHostMessages, toSessionView, toTaskView, toTraceEvent } from '../../../src/host/viewMapping';
import { isSidebarMethod, parseParams } from '../../../src/shared/sidebarSchemas';

const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cost: 0 };
const session: SessionView = { id: 't-1', name: 'Edit', status: 'waiting', lastActivity: 1, usage, messages: [] };
const task = (waitingForApproval?: string): TaskView => ({
  id: 't-1',
  sessionId: 't-1',
  name: 'Edit',
  instruction: 'edit',
  mode: 'simple',
  status: 'running',
  todos: [],
  counters: { actions: { used: 1, limit: 50 }, tokens: { used: 10, limit: 1000 } },
  waitingForUser: false,
  waitingForApproval,
  paused: false,
  source: 'user',
  selectedSkills: [],
  actionSets: [],
  usage,
  createdAt: 1,
});

describe('host view mapping: engine changes → sidebar messages', () => {
  it('re-draws the session row with a task change, so the review badge follows the approval', () => {
    const [patch, row] = toHostMessages({ type: 'task', task: task('cs-1') }, () => ({ session, tasks: [task('cs-1')] }));
    assert.equal(patch.type, 'taskPatch');
    assert.deepEqual(row.type === 'sessionPatch' && row.session.pendingApprovals, 1);

    const messages = toHostMessages({ type: 'task', task: task() }, () => ({ session, tasks: [task()] }));
    const after = messages.find((m) => m.type === 'sessionPatch');
    assert.ok(after && after.type === 'sessionPatch');
    assert.equal(after.session.pendingApprovals, 0, 'the badge stays after the decision');
  });

  it("carries the host's word on what is left of the task's edits in every task patch", () => {
    const patchOf = (edits?: (taskId: string) => TaskEdits) => {
      const [patch] = toHostMessages({ type: 'task', task: { ...task(), status: 'completed' } }, () => undefined, undefined, edits);
      assert.ok(patch?.type === 'taskPatch');
      return patch.task;
    };
    const applied = patchOf((id) => (id === 't-1' ? 'revertible' : 'none'));
    assert.equal(applied.revertible, true, 'an applied edit is left: Revert edits is offered');
    assert.equal(applied.editsReverted, undefined, 'nothing reverted yet');
    assert.equal(patchOf(() => 'none').revertible, undefined, 'rejected or withdrawn: nothing to offer');
    const reverted = patchOf(() => 'reverted');
    assert.equal(reverted.revertible, undefined, 'reverted: nothing left to offer');
    assert.equal(reverted.editsReverted, true, 'reverted: the block says so under the summary');
    assert.equal(patchOf().revertible, undefined, 'no change sets (a chat-only engine): nothing to offer');
    assert.equal(toTaskView(task(), 'revertible').revertible, true, 'init and the patch a revert sends map the same way');
    assert.equal(toTaskView(task(), 'reverted').editsReverted, true);
  });

  it('keeps one trace update small however large the action output is', () => {
    const event = toTraceEvent({ seq: 7, at: 1, kind: 'action_end', data: { name: 'read_file', output: 'x'.repeat(200_000), durationMs: 3 } });
    assert.equal(event.summary, 'read_file');
    assert.equal(event.durationMs, 3);
    assert.ok(JSON.stringify(event).length < 10_000, `${JSON.stringify(event).length} bytes`);
  });

  it('maps live turns and stream pieces to turnState and streamDelta, and keeps the stopped mark', () => {
    const row = () => ({ session, tasks: [] });
    assert.deepEqual(toHostMessages({ type: 'turn', sessionId: 's-1', turnId: 'turn-1', running: true }, row), [
      { type: 'turnState', sessionId: 's-1', turnId: 'turn-1', running: true },
    ]);
    assert.deepEqual(toHostMessages({ type: 'stream', sessionId: 's-1', turnId: 'turn-1', delta: { kind: 'text', text: 'Hel' } }, row), [
      { type: 'streamDelta', sessionId: 's-1', turnId: 'turn-1', delta: { kind: 'text', text: 'Hel' } },
    ]);
    const [appended] = toHostMessages({ type: 'message', sessionId: 's-1', message: { role: 'assistant', text: 'Hel', at: 2, stopped: true } }, row);
    assert.deepEqual(appended, { type: 'messageAppended', sessionId: 's-1', message: { role: 'assistant', text: 'Hel', at: 2, stopped: true } });
    const view = toSessionView({ ...session, liveTurnId: 'turn-1', messages: [{ role: 'assistant', text: 'x', at: 1, stopped: true }] }, []);
    assert.equal(view.liveTurnId, 'turn-1');
    assert.equal(view.messages[0]!.stopped, true);
  });

  it('keeps the task id on a "started task" line, live and in a transcript, so the thread draws its block', () => {
    const started = { role: 'event' as const, text: 'Started task “Edit” (simple).', at: 3, taskId: 't-1' };
    const [appended] = toHostMessages({ type: 'message', sessionId: 's-1', message: started }, () => ({ session, tasks: [] }));
    assert.deepEqual(appended, { type: 'messageAppended', sessionId: 's-1', message: started });
    assert.equal(toSessionView({ ...session, messages: [started] }, []).messages[0]!.taskId, 't-1');
    assert.doesNotThrow(() => parseParams('thread.loadSteps', { taskId: 't-1' }));
    assert.throws(() => parseParams('thread.loadSteps', { taskId: '' }));
  });

  it('knows one request for ending a task, task.cancel; there is no abort', () => {
    assert.doesNotThrow(() => parseParams('task.cancel', { taskId: 't-1' }));
    assert.equal(isSidebarMethod('task.abort'), false);
    assert.equal(isSidebarMethod('abortTask'), false);
  });

  it('accepts a stop request only with a session id', () => {
    assert.doesNotThrow(() => parseParams('turn.stop', { sessionId: 's-1' }));
    assert.throws(() => parseParams('turn.stop', {}));
    assert.throws(() => parseParams('turn.stop', { sessionId: '' }));
  });
});
