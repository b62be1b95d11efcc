import * as assert from 'node:assert/strict';
import type { ModelServer } from '../../fixtures/modelServer';
import { engineHooks, WIRES } from './harness';
import type { Harness } from './harness';

for (const wire of WIRES) {
  describe(`engine: the consumer loop (${wire})`, () => {
    let server: ModelServer;
    let h: Harness;
    engineHooks(wire, { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

    it('nacks an escaped exception, retries with backoff, then dead-letters it visibly in the session', async () => {
      server.script([{ toolCalls: [{ name: 'ignore', arguments: {} }] }]);
      const { sessionId } = await h.agent.sendMessage('hi');
      await h.idle();
      // A valid chore fire with no chore runner attached: react throws (an invalid payload would be
      // set aside at once instead, see triggerPayloads.test.ts).
      await h.triggers.emit({
        source: 'scheduled',
        sessionId,
        payload: { kind: 'chore_fire', choreId: 'nightly', fireTime: new Date(0).toISOString(), missed: false },
      });
      for (let i = 0; i < 8; i++) {
        await h.idle();
        await h.clock.advance(10 * 60_000);
      }
      await h.idle();
      assert.ok(h.logger.lines.some((l) => l.startsWith('error [TRIGGER]') && l.includes('no chore runner is attached')));
      const snap = h.agent.views.snapshot();
      assert.equal(snap.deadLetters.length, 1);
      assert.equal(snap.deadLetters[0].attempts, 5);
      assert.match(snap.deadLetters[0].lastError ?? '', /no chore runner is attached/);
      const session = snap.sessions.find((s) => s.id === sessionId)!;
      assert.match(session.messages.at(-1)!.text, /failed 5 times and was set aside/);
      assert.ok(h.changes.some((c) => c.type === 'deadLetters'));
      // The loop kept running.
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'still here' } }] }]);
      await h.agent.sendMessage('are you alive?', { sessionId });
      await h.idle();
      assert.equal(
        h.agent.views
          .snapshot()
          .sessions.find((s) => s.id === sessionId)!
          .messages.at(-1)!.text,
        'still here',
      );
    });

    it('onDidSettle is told after each turn, once its trigger is acked or nacked and the loop holds none', async () => {
      const seen: string[] = [];
      h.agent.onDidSettle(({ trigger, rung }) => {
        const claimed = h.triggers.pending().filter((t) => t.status === 'claimed').length;
        const task = h.agent.views.snapshot().tasks[0];
        seen.push(`${trigger.source} ${rung} claimed=${claimed} inTurn=${h.agent.inTurn} task=${task?.status ?? '-'}`);
      });
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'T', instruction: 'Look around', mode: 'simple' } }] },
        { toolCalls: [{ name: 'list_files', arguments: {} }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'ok' } }] },
      ]);
      const { sessionId } = await h.agent.sendMessage('look around');
      await h.idle();
      assert.deepEqual(seen, [
        'user_message conversation claimed=0 inTurn=false task=running',
        'task_continuation simple_task claimed=0 inTurn=false task=running',
        // The last turn is told once it is over: the task has ended by then.
        'task_continuation simple_task claimed=0 inTurn=false task=completed',
      ]);
      // A turn that throws is told too, after its nack (a chore fire with no chore runner attached).
      await h.triggers.emit({
        source: 'scheduled',
        sessionId,
        payload: { kind: 'chore_fire', choreId: 'nightly', fireTime: new Date(0).toISOString(), missed: false },
      });
      await h.idle();
      assert.equal(seen.at(-1), 'scheduled failed claimed=0 inTurn=false task=completed');
      assert.equal(h.triggers.pending(sessionId)[0]?.attempts, 1, 'nacked into its backoff');
    });

    it('sends the stable prefix first (cache breakpoint on Anthropic), records usage and cost per turn, task and session, and logs with the tags', async () => {
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'T', instruction: 'Look around', mode: 'simple' } }] },
        { toolCalls: [{ name: 'list_files', arguments: {} }], usage: { input: 1000, output: 100, cacheRead: 500 } },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'ok' } }], usage: { input: 200, output: 50, cacheRead: 1500 } },
      ]);
      await h.agent.sendMessage('look around');
      await h.idle();
      const [, first, second] = server.requests;
      if (wire === 'anthropic') {
        const content = first.body.messages[0].content;
        const blocks = Array.isArray(content) ? content : [];
        assert.ok(
          blocks.some((b: { cache_control?: unknown }) => b.cache_control),
          'cache_control on the prefix message',
        );
      }
      // Turn 2 starts with exactly turn 1's prefix (Anthropic merges the tail into the same user turn, after the breakpoint).
      const prefixOf = (body: { messages: Array<{ content: unknown }> }) =>
        JSON.stringify(wire === 'anthropic' ? (body.messages[0].content as unknown[])[0] : body.messages.slice(0, 2));
      assert.equal(prefixOf(second.body), prefixOf(first.body));
      assert.equal(JSON.stringify(second.body.tools), JSON.stringify(first.body.tools));
      // The history carries the arguments of earlier calls (Anthropic tool_use input, OpenAI arguments).
      const third = server.requests[2];
      assert.match(
        JSON.stringify(third.body.messages),
        wire === 'anthropic' ? /"type":"tool_use"[^}]*"name":"list_files","input":\{\}/ : /"name":"list_files","arguments":"\{\}"/,
      );
      const task = h.agent.views.snapshot().tasks[0];
      assert.equal(task.usage.cacheReadTokens, 2000);
      assert.equal(task.usage.outputTokens, 150);
      assert.ok(task.usage.cost > 0, 'priced from the table');
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === task.id)!;
      assert.equal(session.usage.cacheReadTokens, 2000);
      const turns = (await h.agent.views.readTaskEvents(task.id, { limit: 100 })).filter((e) => e.kind === 'turn');
      assert.equal(turns.length, 2);
      assert.equal((turns[0].data.usage as { cacheReadTokens: number }).cacheReadTokens, 500);
      assert.ok(Number(turns[0].data.cost) > 0);
      for (const tag of ['TRIGGER', 'REACT', 'WORKFLOW: select', 'WORKFLOW: execute', 'WORKFLOW: finalize', 'ACTION', 'CHAT', 'TASK']) {
        assert.ok(
          h.logger.lines.some((l) => l.includes(`[${tag}]`)),
          `logged with [${tag}]`,
        );
      }
    });
  });
}
