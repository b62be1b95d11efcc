import * as assert from 'node:assert/strict';
import type { ModelServer } from '../../fixtures/modelServer';
import type { TaskRecord } from '../../../src/core/engine/records';
import { describeTaskForRouter, ROUTER_RECENT_MESSAGES, routerRequest } from '../../../src/core/engine/messageRouter';
import { engineHooks, WIRES } from './harness';
import type { Harness } from './harness';

for (const wire of WIRES) {
  describe(`engine: message routing ladder (${wire})`, () => {
    let server: ModelServer;
    let h: Harness;
    engineHooks(wire, { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

    /** A live task waiting for the user. */
    async function waitingTask(): Promise<string> {
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Deploy check', instruction: 'Check the deploy config', mode: 'simple' } }] },
        { toolCalls: [{ name: 'ask_user', arguments: { question: 'Staging or prod?' } }] },
      ]);
      await h.agent.sendMessage('check the deploy');
      await h.idle();
      const task = h.agent.views.snapshot().tasks[0];
      assert.equal(task.waitingForUser, true);
      return task.id;
    }

    it('rung 1: a third-party notification opens no session and calls no model', async () => {
      const { sessionId } = await h.agent.sendMessage('build #42 passed', { notification: true });
      await h.idle();
      assert.equal(sessionId, '');
      assert.equal(h.agent.views.snapshot().sessions.length, 0);
      assert.equal(server.requests.length, 0);
    });

    it('rung 2: an explicit reply goes to its task (no router call)', async () => {
      const id = await waitingTask();
      const before = server.requests.length;
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'staging checked' } }] }]);
      const { sessionId } = await h.agent.sendMessage('staging', { replyToTaskId: id });
      await h.idle();
      assert.equal(sessionId, id);
      assert.equal(server.requests.length, before + 1);
      assert.ok(JSON.stringify(server.requests.at(-1)!.body).includes('User: staging'));
    });

    it('rung 3: a reply to a task that is gone opens a fresh session', async () => {
      const id = await waitingTask();
      await h.agent.cancelTask(id);
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'That task was cancelled; what now?' } }] }]);
      const { sessionId } = await h.agent.sendMessage('prod', { replyToTaskId: id });
      await h.idle();
      assert.notEqual(sessionId, id);
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === sessionId)!;
      assert.deepEqual(
        session.messages.map((m) => m.role),
        ['user', 'assistant'],
      );
    });

    it('rung 4: with a task active the router model decides (answer → that task)', async () => {
      const id = await waitingTask();
      server.script([
        { toolCalls: [{ name: 'route_message', arguments: { decision: 'answer', taskId: id, reason: 'answers the question' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'prod checked' } }] },
      ]);
      const { sessionId } = await h.agent.sendMessage('prod please');
      await h.idle();
      const routerRequest = JSON.stringify(server.requests.at(-2)!.body);
      assert.match(routerRequest, /route_message/);
      assert.match(routerRequest, /Deploy check/);
      assert.match(routerRequest, /waiting for the user's reply/);
      // The conversation the person was in, so a short answer has its referent.
      assert.match(routerRequest, /# Recent conversation\\n- user: check the deploy/);
      assert.ok(h.changes.some((c) => c.type === 'sessionRemoved' && c.sessionId === sessionId && c.movedTo === id));
      assert.equal(
        h.agent.views.snapshot().sessions.some((s) => s.id === sessionId),
        false,
      );
      const task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.status, 'completed');
      const taskSession = h.agent.views.snapshot().sessions.find((s) => s.id === id)!;
      assert.ok(taskSession.messages.some((m) => m.role === 'user' && m.text === 'prod please'));
    });

    it('rung 4: "modify" injects the message into the task as a change of plan', async () => {
      const id = await waitingTask();
      server.script([
        { toolCalls: [{ name: 'route_message', arguments: { decision: 'modify', taskId: id } }] },
        { toolCalls: [{ name: 'ask_user', arguments: { question: 'ok, which file?' } }] },
      ]);
      await h.agent.sendMessage('actually check the docker config instead');
      await h.idle();
      assert.match(JSON.stringify(server.requests.at(-1)!.body), /Change of plan from the user: actually check the docker config instead/);
    });

    it('rung 4: the router can cancel a task', async () => {
      const id = await waitingTask();
      server.script([{ toolCalls: [{ name: 'route_message', arguments: { decision: 'cancel', taskId: id } }] }]);
      await h.agent.sendMessage('stop the deploy check');
      await h.idle();
      assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === id)!.status, 'cancelled');
    });

    it('rung 4: "new", an invalid decision or a router failure all land in a fresh session', async () => {
      const id = await waitingTask();
      const cases = [
        { toolCalls: [{ name: 'route_message', arguments: { decision: 'new' } }] },
        { toolCalls: [{ name: 'route_message', arguments: { decision: 'continue', taskId: 'no-such-task' } }] },
        { toolCalls: [{ name: 'route_message', arguments: { decision: 'perhaps' } }] },
        { error: { status: 500 } },
      ];
      for (const step of cases) {
        server.script([step, { toolCalls: [{ name: 'send_message', arguments: { text: 'fresh reply' } }] }]);
        const { sessionId } = await h.agent.sendMessage('unrelated question');
        await h.idle();
        const session = h.agent.views.snapshot().sessions.find((s) => s.id === sessionId);
        assert.ok(session, `message kept in its fresh session for ${JSON.stringify(step)}`);
        assert.deepEqual(
          session.messages.map((m) => m.text),
          ['unrelated question', 'fresh reply'],
        );
      }
      assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === id)!.waitingForUser, true, 'the task was not disturbed');
    });

    it('rung 5: with no task active a message opens a fresh session without a router call', async () => {
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'hi' } }] }]);
      await h.agent.sendMessage('hello');
      await h.idle();
      assert.equal(server.requests.length, 1);
      assert.doesNotMatch(JSON.stringify(server.requests[0].body), /route_message/);
    });
  });
}

describe('engine: what the router reads about a task', () => {
  it('says when a task waits for an approval or is paused, and bounds the recent conversation', () => {
    const task = {
      id: 't1',
      name: 'Fix greet',
      mode: 'simple',
      source: 'user',
      status: 'running',
      todos: [],
      instruction: 'Fix the greeting',
      waitingForUser: false,
      waitingForApproval: 'cs-1',
      paused: false,
    } as unknown as TaskRecord;
    assert.match(describeTaskForRouter(task, []), /waiting for the user's approval of a proposed change/);
    assert.match(describeTaskForRouter({ ...task, waitingForApproval: undefined, paused: true, pauseReason: 'budget' } as TaskRecord, []), /paused \(budget\)/);
    const recent = Array.from({ length: 10 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', text: `message ${i}\nsecond line ${'x'.repeat(400)}` }));
    const content = String(routerRequest('yes', ['## Task t1'], recent).messages[0]!.content);
    const lines = content.split('# Recent conversation\n')[1]!.split('\n\n# New message')[0]!.split('\n');
    assert.equal(lines.length, ROUTER_RECENT_MESSAGES);
    assert.match(lines[0]!, /^- user: message 4 second line x+$/);
    assert.ok(lines.every((l) => l.length < 320));
  });
});
