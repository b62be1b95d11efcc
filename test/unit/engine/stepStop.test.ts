/**
 * Stop on a working task's block (src/core/engine/stepStop.ts): the step in flight runs to its
 * end, then the task pauses, kept; no further model call until Continue, which resumes it through
 * the durable queue. Real engine, store and SDK clients against the scripted server.
 */
import * as assert from 'node:assert/strict';
import type { ModelServer } from '../../fixtures/modelServer';
import { createHarness, engineHooks, WIRES } from './harness';
import type { Harness } from './harness';

const DAY = 24 * 3_600_000;

for (const wire of WIRES) {
  describe(`engine: Stop a working task after its step (${wire})`, () => {
    let server: ModelServer;
    let h: Harness;
    engineHooks(wire, { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

    const task = (id: string) => h.agent.views.snapshot().tasks.find((t) => t.id === id);

    /** Starts a task from a conversation; its first step is held at the gate `step` (nothing answered yet). */
    async function startHeldTask(step: { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> }) {
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Tidy', instruction: 'Tidy the readme', mode: 'simple' } }] },
        { ...step, gate: 'step' },
      ]);
      await h.agent.sendMessage('tidy the readme');
      await server.held('step');
      const started = h.agent.views.snapshot().tasks[0];
      assert.ok(started, 'the task was started');
      return started;
    }

    it('lets the step in flight finish, then pauses: no model call after Stop, Continue resumes', async () => {
      const started = await startHeldTask({ toolCalls: [{ name: 'update_todos', arguments: { todos: [{ text: 'Fix the title', status: 'in_progress' }] } }] });
      await h.agent.stopTaskAfterStep(started.id);
      // Asked for, not done yet: the block says it stops after this step.
      assert.equal(task(started.id)?.status, 'running');
      assert.equal(task(started.id)?.stopping, true);

      server.release('step');
      await h.idle();
      const paused = task(started.id);
      assert.equal(paused?.status, 'paused');
      assert.equal(paused?.pauseReason, 'stopped');
      assert.equal(paused?.stopping, undefined, 'the Stop is done once paused');
      assert.deepEqual(
        paused?.todos.map((t) => t.text),
        ['Fix the title'],
        'the step in flight ran to its end (its actions too)',
      );
      const lines = h.agent.views.snapshot().sessions.find((s) => s.id === started.sessionId)?.messages ?? [];
      assert.ok(
        lines.some((m) => m.role === 'event' && /Stopped by you/.test(m.text)),
        'the thread says the person stopped it',
      );
      assert.ok(!lines.some((m) => m.role === 'error'), 'a Stop is no error');

      // Nothing wakes it: not the queue, not time passing.
      await h.clock.advance(DAY);
      await h.idle();
      assert.equal(server.requests.length, 2, 'no model call after Stop');

      server.script([{ toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'Tidied.' } }] }]);
      await h.agent.continueTask(started.id);
      await h.idle();
      assert.equal(server.requests.length, 3, 'Continue runs the next step');
      assert.ok(JSON.stringify(server.requests[2]?.body).includes('Fix the title'), 'it resumes from where it stopped (its todos)');
      assert.equal(task(started.id)?.status, 'completed');
    });

    it('Continue before the step ends takes the Stop back: the task goes on', async () => {
      const started = await startHeldTask({ toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] });
      await h.agent.stopTaskAfterStep(started.id);
      await h.agent.continueTask(started.id);
      assert.equal(task(started.id)?.stopping, undefined);
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'Read it.' } }] }]);
      server.release('step');
      await h.idle();
      assert.equal(task(started.id)?.status, 'completed');
      assert.equal(server.requests.length, 3);
    });

    it('pauses at once a task with no step running (a wait), and keeps it through a restart', async () => {
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Later', instruction: 'Check back later', mode: 'simple' } }] },
        { toolCalls: [{ name: 'wait', arguments: { seconds: 1800, reason: 'the build' } }] },
      ]);
      await h.agent.sendMessage('check back later');
      await h.idle();
      const waiting = h.agent.views.snapshot().tasks[0];
      assert.ok(waiting && waiting.status === 'running', 'the task waits on a timer');
      await h.agent.stopTaskAfterStep(waiting.id);
      assert.equal(task(waiting.id)?.status, 'paused');

      await h.shutdown();
      const old = h;
      h = await createHarness({ wire, server, dir: old.dir, clock: old.clock });
      const close = h.close;
      h.close = async () => {
        await close();
        await old.close();
      };
      await h.clock.advance(DAY);
      await h.idle();
      assert.equal(task(waiting.id)?.status, 'paused', 'its wait was settled: the timer does not wake it');
      assert.equal(server.requests.length, 2, 'no model call after Stop');
    });

    it('refuses a Stop while the task waits for the person, saying what to do instead', async () => {
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Ask', instruction: 'Ask which file', mode: 'simple' } }] },
        { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which file?' } }] },
      ]);
      await h.agent.sendMessage('ask me');
      await h.idle();
      const asking = h.agent.views.snapshot().tasks[0];
      assert.equal(asking?.waitingForUser, true);
      await assert.rejects(h.agent.stopTaskAfterStep(asking.id), /waiting for you.*answer it, or Cancel it/);
      assert.equal(task(asking.id)?.status, 'running');
    });

    it('a step that ends in a question meets the Stop: the task waits for the answer, not paused', async () => {
      const started = await startHeldTask({ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which title?' } }] });
      await h.agent.stopTaskAfterStep(started.id);
      server.release('step');
      await h.idle();
      const asking = task(started.id);
      assert.equal(asking?.status, 'running');
      assert.equal(asking?.waitingForUser, true);
      assert.equal(asking?.stopping, undefined);
    });
  });
}
