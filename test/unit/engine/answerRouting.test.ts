import * as assert from 'node:assert/strict';
import type { ModelServer } from '../../fixtures/modelServer';
import { engineHooks, WIRES } from './harness';
import type { Harness } from './harness';

/**
 * Seeds S31: a task's question shows in the conversation that started it, so what the person
 * types there is the answer. It must reach the task's next model request, not a conversation turn
 * that cannot see the question.
 */
for (const wire of WIRES) {
  describe(`engine: an answer typed in the conversation reaches the waiting task (${wire})`, () => {
    let server: ModelServer;
    let h: Harness;
    engineHooks(wire, { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

    /** A conversation whose tasks (one per name) each ask a question and wait. */
    async function conversationWithWaiting(names: string[]): Promise<{ conversation: string; tasks: Array<{ id: string; question: string }> }> {
      server.script([
        { toolCalls: names.map((name) => ({ name: 'task_start', arguments: { name, instruction: `Do ${name}`, mode: 'simple' } })) },
        ...names.map((name) => ({ toolCalls: [{ name: 'ask_user', arguments: { question: `Question of ${name}?` } }] })),
      ]);
      const { sessionId } = await h.agent.sendMessage('do the things');
      await h.idle();
      const tasks = [];
      for (const task of h.agent.views.snapshot().tasks) {
        assert.equal(task.waitingForUser, true);
        const lane = await h.agent.views.sessionMessages(task.id);
        tasks.push({ id: task.id, question: lane.filter((m) => m.role === 'assistant').at(-1)!.text });
      }
      return { conversation: sessionId, tasks };
    }

    it('one waiting task takes the answer; the conversation shows where it went; no conversation turn', async () => {
      const { conversation, tasks } = await conversationWithWaiting(['Deploy check']);
      const before = server.requests.length;
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'staging checked' } }] }]);
      const sent = await h.agent.sendMessage('staging', { sessionId: conversation, requestId: 'r-1' });
      await h.idle();
      assert.deepEqual(sent, { sessionId: conversation, taskId: tasks[0].id });
      assert.equal(server.requests.length, before + 1, 'one model request: the task turn');
      const request = JSON.stringify(server.requests.at(-1)!.body);
      assert.match(request, /Question of Deploy check\?/);
      assert.match(request, /User: staging/);
      assert.equal(h.agent.views.snapshot().tasks[0].status, 'completed');
      const shown = (await h.agent.views.sessionMessages(conversation)).slice(-2).map((m) => `${m.role}: ${m.text}`);
      assert.deepEqual(shown, ['user: staging', 'event: Sent to “Deploy check” as its answer.']);
    });

    it('with several waiting, the router sees their questions and the chosen task gets the answer', async () => {
      const { conversation, tasks } = await conversationWithWaiting(['Flights', 'Hotels']);
      const hotels = tasks.find((t) => t.question === 'Question of Hotels?')!;
      server.script([
        { toolCalls: [{ name: 'route_message', arguments: { decision: 'answer', taskId: hotels.id } }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'booked the cheaper hotel' } }] },
      ]);
      await h.agent.sendMessage('the cheaper one', { sessionId: conversation, requestId: 'r-2' });
      await h.idle();
      const router = JSON.stringify(server.requests.at(-2)!.body);
      assert.match(router, /route_message/);
      assert.match(router, /asked the user: Question of Flights\?/);
      assert.match(router, /asked the user: Question of Hotels\?/);
      const taskRequest = JSON.stringify(server.requests.at(-1)!.body);
      assert.match(taskRequest, /Question of Hotels\?/);
      assert.match(taskRequest, /User: the cheaper one/);
      const snapshot = h.agent.views.snapshot();
      assert.equal(snapshot.tasks.find((t) => t.id === hotels.id)!.status, 'completed');
      assert.equal(snapshot.tasks.find((t) => t.id !== hotels.id)!.waitingForUser, true, 'the other task still waits');
      const shown = (await h.agent.views.sessionMessages(conversation)).slice(-2).map((m) => `${m.role}: ${m.text}`);
      assert.deepEqual(shown, ['user: the cheaper one', 'event: Sent to “Hotels” as its answer.']);
    });

    it('with several waiting, a message the router calls new is answered by the conversation', async () => {
      const { conversation } = await conversationWithWaiting(['Flights', 'Hotels']);
      server.script([
        { toolCalls: [{ name: 'route_message', arguments: { decision: 'new' } }] },
        { toolCalls: [{ name: 'send_message', arguments: { text: 'It is sunny.' } }] },
      ]);
      await h.agent.sendMessage('what is the weather?', { sessionId: conversation });
      await h.idle();
      const shown = (await h.agent.views.sessionMessages(conversation)).slice(-2).map((m) => `${m.role}: ${m.text}`);
      assert.deepEqual(shown, ['user: what is the weather?', 'assistant: It is sunny.']);
      assert.ok(h.agent.views.snapshot().tasks.every((t) => t.waitingForUser));
    });
  });
}
