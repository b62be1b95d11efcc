/**
 * A cap pauses, never kills (issue 43): a task that reaches its budget parks with no further model
 * call and its state kept, survives reopening the store, and Continue resumes the same task from
 * the step it reached (its earlier tool results still in the request).
 */
import * as assert from 'node:assert/strict';
import type { ModelServer } from '../../fixtures/modelServer';
import { createHarness, engineHooks, WIRES } from './harness';
import type { Harness, HarnessOptions } from './harness';

const HOUR = 3_600_000;

for (const wire of WIRES) {
  describe(`engine: a budget pauses a task, across a reload (${wire})`, () => {
    let server: ModelServer;
    let h: Harness;
    const settings = { maxActionsPerTask: 2, budgetIncrement: { actions: 3 } };
    const open = (extra: Partial<HarnessOptions> = {}) => createHarness({ wire, server, settings, ...extra });
    engineHooks(wire, { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h }, () => open());

    /** Shuts the extension down and opens it again on the same storage and clock. */
    async function reload(): Promise<void> {
      await h.shutdown();
      const { dir, clock } = h;
      const old = h;
      h = await open({ dir, clock });
      const close = h.close;
      h.close = async () => {
        await close();
        await old.close();
      };
      await h.agent.restore();
      await h.idle();
    }

    const taskOf = (id: string) => h.agent.views.snapshot().tasks.find((t) => t.id === id)!;

    it('parks at the cap with no model call, keeps it through a reload, and Continue resumes the same step', async () => {
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Audit', instruction: 'Read the two files and report', mode: 'simple' } }] },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'src/app.ts' } }] },
        // Never reached while paused: a model call here would end the task early.
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'ended while it should have been paused' } }] },
      ]);
      await h.agent.sendMessage('audit the repo');
      await h.idle();
      const id = h.agent.views.snapshot().tasks[0].id;
      let task = taskOf(id);
      assert.equal(task.status, 'paused');
      assert.equal(task.pauseReason, 'budget');
      assert.equal(task.counters.actions.used, 2);
      const callsAtPause = server.requests.length;
      assert.equal(callsAtPause, 3, 'the conversation turn and the two task turns; none after the cap');

      // Time passing costs nothing: no timer or retry wakes a paused task.
      await h.clock.advance(HOUR);
      await h.idle();
      assert.equal(server.requests.length, callsAtPause, 'no model call while paused');

      await reload();
      assert.equal(server.requests.length, callsAtPause, 'reopening the store makes no model call for a paused task');
      task = taskOf(id);
      assert.equal(task.status, 'paused', 'the pause survives the reload');
      assert.equal(task.pauseReason, 'budget');
      assert.equal(task.counters.actions.used, 2, 'spend is kept, not reset by the reload');
      assert.equal(task.counters.actions.limit, 2);
      await h.clock.advance(HOUR);
      await h.idle();
      assert.equal(server.requests.length, callsAtPause, 'still no model call after the reload');

      server.reset();
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'Both files read: README and the answer constant.' } }] }]);
      await h.agent.continueTask(id);
      await h.idle();
      task = taskOf(id);
      assert.equal(task.counters.actions.limit, 5, 'Continue raised the cap by the increment');
      assert.equal(task.status, 'completed');
      assert.equal(task.finalSummary, 'Both files read: README and the answer constant.');
      assert.equal(h.agent.views.snapshot().tasks.length, 1, 'the same task resumed; no new one started');
      const resumed = JSON.stringify(server.requests[0].body);
      // Same step: the request carries both earlier reads' results, so the model does not redo them.
      assert.ok(resumed.includes('Hello.'), 'the first read result is in the resumed request');
      assert.ok(resumed.includes('export const answer = 42'), 'the second read result is in the resumed request');
    });
  });
}
