/**
 * Stop, Cancel, Continue and Revert edits on a task's block, in the view store without a DOM: the
 * block changes in the event of the click, the host's patch or reply settles it, a refusal rolls
 * it back and says why (src/webview/taskGestures.ts, viewStore.ts `blockView`).
 */
import * as assert from 'node:assert/strict';
import type { HostMessage, TaskView } from '../../../src/shared/protocol';
import type { Ask, StoreEvent, ViewStoreState } from '../../../src/webview/viewStore';
import { blockView, emptyState, reduce, taskWord } from '../../../src/webview/viewStore';
import type { TaskGesture } from '../../../src/webview/taskGestures';
import { isEnded } from '../../../src/webview/taskGestures';
import { mulberry32 } from '../../support/seededRandom';
import { approvalView, taskView } from './support/views';

const initOf = (tasks: TaskView[]): HostMessage => ({
  type: 'init',
  state: { sessions: [], tasks, approvals: [], deadLetters: [], model: { provider: 'demo', model: 'demo' }, restricted: false },
});

function run(state: ViewStoreState, ...events: StoreEvent[]): { state: ViewStoreState; asks: Ask[] } {
  const asks: Ask[] = [];
  for (const event of events) {
    const step = reduce(state, event);
    state = step.state;
    asks.push(...step.asks);
  }
  return { state, asks };
}

const offered = (state: ViewStoreState, taskId = 't-1') => blockView(state, taskId)?.offered.map((o) => o.label) ?? [];
const gesture = (g: TaskGesture, requestId = 'g1', taskId = 't-1'): StoreEvent => ({ type: 'gesture', taskId, gesture: g, requestId });

describe('webview: gestures on a task block', () => {
  it('Stop shows at once, asks once, and the host patch settles it; the paused task offers Continue', () => {
    let { state } = run(emptyState(), initOf([taskView()]));
    assert.deepEqual(offered(state), ['Stop', 'Cancel']);
    const clicked = run(state, gesture('stop'), gesture('stop', 'g2'));
    assert.deepEqual(clicked.asks, [{ method: 'gesture', taskId: 't-1', gesture: 'stop', requestId: 'g1' }], 'a second click asks nothing');
    state = clicked.state;
    assert.equal(blockView(state, 't-1')?.task.stopping, true, 'the block says it stops, in the frame of the click');
    assert.equal(blockView(state, 't-1')?.notice, 'Stops after its current step.');
    assert.deepEqual(offered(state), ['Continue', 'Cancel'], 'Continue takes the Stop back; Stop is not offered twice');
    // The host confirms: the step ends and the task pauses.
    state = run(state, { type: 'gestureDone', taskId: 't-1', requestId: 'g1' }).state;
    assert.ok(state.gestures['t-1']?.acked, 'done, but not yet shown by a patch: the block keeps showing it');
    state = run(state, { type: 'taskPatch', task: taskView({ status: 'paused', paused: true, pauseReason: 'stopped', revertible: true }) }).state;
    assert.equal(state.gestures['t-1'], undefined);
    assert.equal(taskWord(state, 't-1'), 'paused');
    assert.deepEqual(offered(state), ['Continue', 'Cancel', 'Revert edits'], 'an edit of it was applied: it can be undone');
  });

  it('a Stop the host met otherwise (the step ended in a question) is settled by the next patch', () => {
    let { state } = run(emptyState(), initOf([taskView()]), gesture('stop'), { type: 'gestureDone', taskId: 't-1', requestId: 'g1' });
    state = run(state, { type: 'taskPatch', task: taskView({ waitingForUser: true }) }).state;
    assert.equal(state.gestures['t-1'], undefined, 'the host said it was done: its next patch is the truth');
    assert.equal(taskWord(state, 't-1'), 'waiting for you');
    assert.deepEqual(offered(state), ['Cancel']);
  });

  it('a refused Stop rolls back and says why', () => {
    let { state } = run(emptyState(), initOf([taskView()]), gesture('stop'));
    state = run(state, { type: 'gestureRefused', taskId: 't-1', requestId: 'g1', error: 'it is waiting for you: answer it, or Cancel it.' }).state;
    assert.equal(blockView(state, 't-1')?.task.stopping, undefined);
    assert.equal(blockView(state, 't-1')?.notice, 'Not done: it is waiting for you: answer it, or Cancel it.');
    assert.deepEqual(offered(state), ['Stop', 'Cancel']);
  });

  it('Cancel shows cancelled at once; a late patch of the working task does not bring the old state back', () => {
    let { state } = run(emptyState(), initOf([taskView()]), gesture('cancel'));
    assert.equal(taskWord(state, 't-1'), 'cancelled');
    state = run(state, { type: 'taskPatch', task: taskView({ counters: { actions: 3, tokens: 6000, cost: 0 } }) }).state;
    assert.equal(taskWord(state, 't-1'), 'cancelled', 'a patch from before the cancel took effect');
    state = run(state, { type: 'taskPatch', task: taskView({ status: 'cancelled', finalSummary: 'Cancelled by the user.' }) }).state;
    assert.equal(state.gestures['t-1'], undefined);
  });

  it('Revert edits is offered exactly while the host says something applied is left to undo', () => {
    const ended = taskView({ status: 'completed', revertible: true });
    let { state } = run(emptyState(), initOf([taskView({ status: 'completed' })]));
    assert.deepEqual(offered(state), [], 'an ended task whose edits were rejected or withdrawn has nothing to revert');
    state = run(state, { type: 'taskPatch', task: ended }, gesture('revert')).state;
    assert.deepEqual(offered(state), [], 'no second Revert while one runs');
    assert.equal(blockView(state, 't-1')?.notice, 'Reverting its edits…');
    // A partial revert (one set was reverted on its card before): the host says some are left.
    state = run(state, { type: 'gestureDone', taskId: 't-1', requestId: 'g1' }).state;
    assert.deepEqual(offered(state), ['Revert edits'], 'the host still says something is left');
    // All of it: the host's patch (before its reply) says nothing is left, and it stays so.
    state = run(
      state,
      gesture('revert', 'g2'),
      { type: 'taskPatch', task: { ...ended, revertible: undefined } },
      { type: 'gestureDone', taskId: 't-1', requestId: 'g2' },
    ).state;
    assert.deepEqual(offered(state), [], 'nothing left to revert');
    state = run(state, { type: 'taskPatch', task: { ...ended, revertible: undefined, counters: { ...ended.counters, actions: 9 } } }).state;
    assert.deepEqual(offered(state), [], 'acting again without applying anything gives nothing to revert');
    state = run(state, { type: 'taskPatch', task: ended }, gesture('revert', 'g3'), {
      type: 'gestureRefused',
      taskId: 't-1',
      requestId: 'g3',
      error: 'src/a.ts changed since',
    }).state;
    assert.deepEqual(offered(state), ['Revert edits'], 'a refusal gives it back');
    assert.match(blockView(state, 't-1')?.notice ?? '', /Not done: src\/a.ts changed since/);
  });

  it('a task waiting for the person offers Cancel, not Stop', () => {
    const { state } = run(emptyState(), initOf([taskView({ waitingForUser: true })]));
    assert.deepEqual(offered(state), ['Cancel']);
  });
});

/**
 * Seeded random interleavings of gestures on two tasks' blocks (and clicks on what is not
 * offered), host answers in any order (done, refused, patches), the task's own progress (a step
 * ends, an approval is asked for and decided elsewhere, the task ends), and reloads that lose the
 * answers in flight. Invariants after every event: a live task's block always offers something;
 * a gesture asked for shows in that event's state; a click on what is not offered asks nothing;
 * a refusal says why; once everything is answered, no gesture is left and the block shows the
 * host's task. A failing seed replays with GESTURE_SEED=<seed>.
 */
describe('webview: task gestures under random interleavings', () => {
  const seeds = process.env.GESTURE_SEED ? [Number(process.env.GESTURE_SEED)] : Array.from({ length: 60 }, (_, i) => i + 1);
  const GESTURES: TaskGesture[] = ['stop', 'cancel', 'continue', 'revert'];
  for (const seed of seeds) {
    it(`seed ${seed}`, () => {
      const random = mulberry32(seed);
      const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)] as T;
      const host = new Map<string, TaskView>([
        ['t-1', taskView()],
        ['t-2', taskView({ id: 't-2', sessionId: 't-2' })],
      ]);
      let state = emptyState();
      let inbox: StoreEvent[] = [];
      let ids = 0;
      const patch = (id: string, over: Partial<TaskView>) => {
        const next = { ...host.get(id)!, ...over };
        host.set(id, next);
        return { type: 'taskPatch', task: next } as const;
      };
      /** The host answers a gesture request like the engine does (Agent.stopTaskAfterStep, cancelTask, continueTask). */
      const answer = (ask: Extract<Ask, { method: 'gesture' }>) => {
        const task = host.get(ask.taskId)!;
        const done: StoreEvent = { type: 'gestureDone', taskId: ask.taskId, requestId: ask.requestId };
        const refuse = (error: string) => inbox.push({ type: 'gestureRefused', taskId: ask.taskId, requestId: ask.requestId, error });
        const live = task.status === 'running' || task.status === 'paused';
        if (random() < 0.2) return refuse('the host could not do it now');
        const events: StoreEvent[] = [done];
        if (ask.gesture === 'stop') {
          if (!live) return refuse('the task has ended');
          if (!task.paused && (task.waitingForUser || task.waitingForApproval)) return refuse('it is waiting for you');
          // Stopping after the step, paused at once (no step ran), or the step ended in a question
          // before any patch said "stopping" (the Stop is met; engine/stepStop.ts).
          const outcome = random();
          if (!task.paused)
            events.push(
              outcome < 0.4
                ? patch(ask.taskId, { stopping: true })
                : outcome < 0.8
                  ? patch(ask.taskId, { status: 'paused', paused: true })
                  : patch(ask.taskId, { waitingForUser: true }),
            );
        } else if (ask.gesture === 'cancel') {
          if (!live) return refuse('the task has ended');
          events.push(patch(ask.taskId, { status: 'cancelled', paused: false, stopping: undefined, waitingForUser: false, waitingForApproval: undefined }));
        } else if (ask.gesture === 'continue') {
          if (!live) return refuse('the task has ended');
          if (task.paused) events.push(patch(ask.taskId, { status: 'running', paused: false }));
          else if (task.stopping) events.push(patch(ask.taskId, { stopping: undefined }));
        }
        // The patch and the reply in either order (the reply first: the gesture is done but not yet shown).
        inbox.push(...(random() < 0.5 ? events : events.reverse()));
      };
      const apply = (event: StoreEvent, where: string) => {
        const before = state;
        const step = reduce(state, event);
        state = step.state;
        for (const ask of step.asks) if (ask.method === 'gesture') answer(ask);
        if (event.type === 'gesture') {
          const wasOffered = blockView(before, event.taskId)?.offered.some((o) => o.gesture === event.gesture) ?? false;
          assert.equal(step.asks.length, wasOffered ? 1 : 0, `${where}: a gesture asks once exactly when it was offered`);
          const shown = blockView(state, event.taskId)!.task;
          if (wasOffered && event.gesture === 'stop') assert.ok(shown.stopping || shown.paused, `${where}: Stop not shown at once`);
          if (wasOffered && event.gesture === 'cancel') assert.equal(shown.status, 'cancelled', `${where}: Cancel not shown at once`);
          if (wasOffered && event.gesture === 'continue') assert.ok(!shown.paused && !shown.stopping, `${where}: Continue not shown at once`);
        }
        if (event.type === 'gestureRefused' && before.gestures[event.taskId]?.requestId === event.requestId) {
          assert.match(blockView(state, event.taskId)?.notice ?? '', /^Not done: /, `${where}: a refusal is said`);
        }
        for (const id of Object.keys(state.tasks)) {
          const view = blockView(state, id)!;
          if (!isEnded(view.task)) assert.ok(view.offered.length > 0, `${where}: ${id} (${taskWord(state, id)}) offers nothing to act on`);
        }
      };
      apply(initOf([...host.values()]), `seed ${seed} start`);
      for (let i = 0; i < 150; i++) {
        const where = `seed ${seed}, step ${i}`;
        const roll = random();
        const id = pick(['t-1', 't-2']);
        const task = host.get(id)!;
        if (roll < 0.3) {
          // Mostly what the block offers; sometimes a click on a button that just went away.
          const view = blockView(state, id);
          const g = view && view.offered.length && random() < 0.8 ? pick(view.offered).gesture : pick(GESTURES);
          apply({ type: 'gesture', taskId: id, gesture: g, requestId: `g${++ids}` }, where);
        } else if (roll < 0.45) {
          // The task's own progress, told by a patch.
          const live = task.status === 'running' && !task.paused;
          let event: StoreEvent | undefined;
          if (live && task.stopping)
            event = patch(id, { stopping: undefined, status: 'paused', paused: true, counters: { ...task.counters, actions: task.counters.actions + 1 } });
          else if (live && !task.waitingForApproval && random() < 0.3) event = patch(id, { waitingForApproval: true });
          else if (live && task.waitingForApproval) event = patch(id, { waitingForApproval: undefined });
          else if (live && task.waitingForUser) event = patch(id, { waitingForUser: false });
          else if (live && random() < 0.1) event = patch(id, { status: 'completed' });
          else if (live) event = patch(id, { counters: { ...task.counters, actions: task.counters.actions + 1 } });
          if (event) inbox.push(event);
          if (event && 'task' in event && event.task.waitingForApproval)
            inbox.push({ type: 'approvalPatch', approval: approvalView({ id: `cs-${id}-${i}`, taskId: id, sessionId: id }) });
        } else if (roll < 0.52) {
          // Hide/show or reload: the answers to the old page are lost; the new one gets the whole state.
          state = emptyState(state.send);
          inbox = [];
          apply(initOf([...host.values()]), where);
        } else {
          for (const event of inbox.splice(0, Math.ceil(random() * inbox.length))) apply(event, where);
        }
      }
      for (const event of inbox.splice(0)) apply(event, `seed ${seed}, end`);
      assert.deepEqual(state.gestures, {}, `seed ${seed}: a gesture was never settled`);
      for (const [id, task] of host) {
        const shown = blockView(state, id)!.task;
        assert.deepEqual(
          [shown.status, shown.paused, shown.stopping],
          [task.status, task.paused, task.stopping],
          `seed ${seed}: ${id} shows a state the host does not have`,
        );
      }
    });
  }
});
