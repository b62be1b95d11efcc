import * as assert from 'node:assert/strict';
import type { ApprovalView } from '../../../src/shared/approvalProtocol';
import type { HostMessage, SessionView, TaskView } from '../../../src/shared/protocol';
import type { SidebarParams } from '../../../src/shared/sidebarApi';
import type { Ask, StoreEvent, ViewStoreState } from '../../../src/webview/viewStore';
import { emptyState, pendingOf, reduce, taskWord } from '../../../src/webview/viewStore';
import { mulberry32 } from '../../support/seededRandom';
import { approvalView, taskView } from './support/views';

const conversation = (id: string, tasks: string[] = []): SessionView => ({
  id,
  name: `Conversation ${id}`,
  status: 'idle',
  lastActivity: 1,
  waitingForUser: false,
  pendingApprovals: 0,
  messages: [],
  ...(tasks.length
    ? { tasks: tasks.map((t) => ({ id: t, name: t, status: 'working', lastActivity: 1, waitingForUser: false, pendingApprovals: 0, parentId: id })) }
    : {}),
});

const initOf = (tasks: TaskView[], approvals: ApprovalView[]): HostMessage => ({
  type: 'init',
  state: {
    sessions: [conversation('c-1', ['t-1']), conversation('c-2', ['t-2'])],
    tasks,
    approvals,
    deadLetters: [],
    model: { provider: 'demo', model: 'demo' },
    restricted: false,
  },
});

/** Applies events in order, collecting the requests asked for. */
function run(state: ViewStoreState, ...events: StoreEvent[]): { state: ViewStoreState; asks: Ask[] } {
  const asks: Ask[] = [];
  for (const event of events) {
    const step = reduce(state, event);
    state = step.state;
    asks.push(...step.asks);
  }
  return { state, asks };
}

describe('webview: the view store', () => {
  it('a task lane opened by id shows its conversation, asking for its transcript once', () => {
    const { state, asks } = run(emptyState(), initOf([taskView()], []), { type: 'select', sessionId: 't-1' });
    assert.equal(state.selectedSessionId, 'c-1');
    assert.equal(state.revealTaskId, 't-1');
    assert.deepEqual(asks, [{ method: 'sessions.open', params: { sessionId: 'c-1' } }]);
    const opened = run(
      state,
      { type: 'opened', result: { session: conversation('c-1'), messages: [{ role: 'user', text: 'hi', at: 1 }] } },
      { type: 'select', sessionId: 'c-1' },
    );
    assert.deepEqual(opened.asks, [], 'an opened transcript is not asked for again');
  });

  it('a removed session moves the view to where it went', () => {
    const { state } = run(emptyState(), initOf([], []), { type: 'select', sessionId: 'c-2' }, { type: 'sessionRemoved', sessionId: 'c-2', movedTo: 'c-1' });
    assert.equal(state.selectedSessionId, 'c-1');
  });

  it('Approve: the block leaves "waiting for you" at once; a refusal puts the approval back', () => {
    const waiting = taskView({ waitingForApproval: true });
    let { state } = run(emptyState(), initOf([waiting], [approvalView()]));
    assert.equal(taskWord(state, 't-1'), 'waiting for you');
    state = run(state, { type: 'decide', approvalId: 'cs-1' }).state;
    assert.equal(taskWord(state, 't-1'), 'working', 'no "waiting for you" with nothing to act on');
    // A task patch that still carries waitingForApproval (its turn has not run) does not bring it back.
    state = run(state, { type: 'taskPatch', task: waiting }).state;
    assert.equal(taskWord(state, 't-1'), 'working');
    state = run(state, { type: 'refused', approvalId: 'cs-1' }).state;
    assert.deepEqual(
      pendingOf(state, 't-1').map((a) => a.id),
      ['cs-1'],
    );
    assert.equal(taskWord(state, 't-1'), 'waiting for you');
  });

  it('a send clears the box once, when durable, and never of what was typed meanwhile', () => {
    let step = run(emptyState(), { type: 'type', text: 'add greetAll' }, { type: 'send', newId: 'r1' });
    assert.deepEqual(step.asks, [{ method: 'send', params: { requestId: 'r1', text: 'add greetAll' } }]);
    step = run(step.state, { type: 'send', newId: 'r2' }, { type: 'resume' });
    assert.deepEqual(
      step.asks.map((a) => (a.method === 'send' ? a.params : a)),
      [{ requestId: 'r1', text: 'add greetAll' }],
      'Enter while in flight sends nothing; a new page re-posts the same request id',
    );
    step = run(step.state, { type: 'type', text: 'and tests' }, { type: 'sent', requestId: 'r1', sessionId: 'c-9' });
    assert.equal(step.state.send.draft, 'and tests');
    assert.equal(step.state.selectedSessionId, 'c-9', 'the view goes to where the message went');
  });
});

/**
 * Seeded random interleavings of what the person does (type, send, switch conversation, approve,
 * hide/show or reload the page) and what the host does (answer sends: written, refused, or
 * written but reported failed, as a full disk does; open transcripts; patch tasks and approvals;
 * confirm or refuse decisions; answers to a page that is gone are lost). The host writes a request
 * id once (engine/sendPath.ts). Invariants after every step: no draft lost (the box is cleared
 * only of a text that is written), no message written twice, no send asked while one is in
 * flight, and no task that says "waiting for you" for an approval with none to act on.
 * A failing seed replays with STORE_SEED=<seed>.
 */
describe('webview: the view store under random interleavings', () => {
  const seeds = process.env.STORE_SEED ? [Number(process.env.STORE_SEED)] : Array.from({ length: 60 }, (_, i) => i + 1);
  for (const seed of seeds) {
    it(`seed ${seed}`, () => {
      const random = mulberry32(seed);
      const pick = <T>(items: T[]): T | undefined => items[Math.floor(random() * items.length)];
      const written = new Map<string, string>(); // request id → text
      const writes: string[] = [];
      const tasks = new Map<string, TaskView>([
        ['t-1', taskView()],
        ['t-2', taskView({ id: 't-2', sessionId: 't-2' })],
      ]);
      const approvals = new Map<string, ApprovalView>();
      let state = emptyState();
      let inbox: StoreEvent[] = []; // the host's answers to this page, not yet delivered
      let ids = 0;
      let typed = 0;
      let approvalIds = 0;
      const apply = (event: StoreEvent, where: string) => {
        const inBox = state.send.draft;
        const sendingBefore = state.send.sending;
        const step = reduce(state, event);
        state = step.state;
        for (const ask of step.asks) {
          if (ask.method === 'send') {
            if (sendingBefore && event.type !== 'resume') assert.fail(`${where}: a send was asked while one was in flight`);
            host(ask.params);
          } else if (ask.method === 'sessions.open') inbox.push({ type: 'opened', result: { session: conversation(ask.params.sessionId), messages: [] } });
        }
        if (inBox.trim() !== '' && state.send.draft === '') {
          assert.ok([...written.values()].includes(inBox.trim()), `${where}: "${inBox}" was cleared but never written`);
        }
        assert.equal(new Set(writes).size, writes.length, `${where}: a message was written twice (${writes.join(' | ')})`);
        for (const id of Object.keys(state.tasks)) {
          const task = state.tasks[id];
          if (taskWord(state, id) === 'waiting for you' && !task.waitingForUser) {
            assert.ok(pendingOf(state, id).length > 0, `${where}: ${id} says "waiting for you" with nothing to act on`);
          }
        }
        if (state.selectedSessionId) assert.ok(!state.selectedSessionId.startsWith('t-'), `${where}: a task lane is shown instead of its conversation`);
      };
      const host = (send: SidebarParams['send']) => {
        const roll = random();
        let ok = true;
        if (!written.has(send.requestId)) {
          if (roll < 0.15) ok = false;
          else {
            written.set(send.requestId, send.text);
            writes.push(send.text);
            ok = roll >= 0.3;
          }
        }
        inbox.push(
          ok ? { type: 'sent', requestId: send.requestId, sessionId: 'c-1' } : { type: 'sendFailed', requestId: send.requestId, error: 'Not saved yet' },
        );
      };
      const initNow = () => initOf([...tasks.values()], [...approvals.values()]);
      apply(initNow(), `seed ${seed} start`);
      for (let i = 0; i < 120; i++) {
        const where = `seed ${seed}, step ${i}`;
        const roll = random();
        if (roll < 0.15) apply({ type: 'type', text: `message ${++typed}` }, where);
        else if (roll < 0.3) apply({ type: 'send', newId: `r${++ids}` }, where);
        else if (roll < 0.37) apply({ type: 'select', sessionId: pick(['c-1', 'c-2', 't-1', 't-2', undefined]) }, where);
        else if (roll < 0.45) {
          const approval = pick(Object.values(state.pending));
          if (approval) {
            apply({ type: 'decide', approvalId: approval.id }, where);
            // The host decides: applied (a patch) or refused (the request's error), later.
            const applied = random() < 0.7 && approvals.get(approval.id)?.status === 'pending';
            if (applied) {
              approvals.delete(approval.id);
              inbox.push({ type: 'approvalPatch', approval: { ...approval, status: 'applied' } });
            } else inbox.push({ type: 'refused', approvalId: approval.id });
          }
        } else if (roll < 0.53) {
          // A task asks for an approval: the card and the task's patch, in either order.
          const taskId = pick(['t-1', 't-2']) ?? 't-1';
          const approval = approvalView({ id: `cs-${++approvalIds}`, taskId, sessionId: taskId, createdAt: approvalIds });
          approvals.set(approval.id, approval);
          tasks.set(taskId, { ...tasks.get(taskId)!, waitingForApproval: true });
          const events: StoreEvent[] = [
            { type: 'approvalPatch', approval },
            { type: 'taskPatch', task: tasks.get(taskId)! },
          ];
          for (const e of random() < 0.5 ? events : events.reverse()) apply(e, where);
        } else if (roll < 0.6) {
          // Hide/show or reload: a new page from the persisted part (the conversation, the send), then init.
          state = emptyState(state.send);
          state.selectedSessionId = pick(['c-1', 'c-2', undefined]);
          inbox = [];
          apply(initNow(), where);
          apply({ type: 'resume' }, where);
        } else {
          for (const event of inbox.splice(0, Math.ceil(random() * inbox.length))) apply(event, where);
        }
      }
      // The person keeps sending what is in the box until it is empty and everything is answered.
      for (let round = 0; round < 30 && (state.send.draft !== '' || state.send.sending || inbox.length); round++) {
        if (!state.send.sending) apply({ type: 'send', newId: `r${++ids}` }, `seed ${seed}, end ${round}`);
        for (const event of inbox.splice(0)) apply(event, `seed ${seed}, end ${round}`);
      }
      assert.equal(state.send.draft, '', `seed ${seed}: the box never emptied`);
      assert.equal(state.send.sending, undefined);
    });
  }
});
