import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { defineAction } from '../../../src/core/actions/types';
import type { ModelServer } from '../../fixtures/modelServer';
import { createHarness, engineHooks, WIRES } from './harness';
import type { Harness, HarnessOptions } from './harness';

const HOUR = 3_600_000;

for (const wire of WIRES) {
  describe(`engine: restore at activation and the ledger (${wire})`, () => {
    let server: ModelServer;
    let h: Harness;
    let webhookRuns: unknown[];
    const postWebhook = defineAction({
      name: 'post_webhook',
      description: 'Post a JSON payload to the team webhook.',
      input: z.object({ message: z.string() }),
      actionSets: ['notify'],
      parallelizable: false,
      irreversible: true,
      approval: 'never',
      async run(input) {
        webhookRuns.push(input);
        return { status: 200 };
      },
    });
    const open = (extra: Partial<HarnessOptions> = {}) => createHarness({ wire, server, actions: [postWebhook], ...extra });

    engineHooks(wire, { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h }, () => {
      webhookRuns = [];
      return open();
    });

    async function startWaitingTask(): Promise<string> {
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Long job', instruction: 'Do a long job', mode: 'simple' } }] },
        { toolCalls: [{ name: 'wait', arguments: { seconds: 3600, reason: 'build running' } }] },
      ]);
      await h.agent.sendMessage('start the long job');
      await h.idle();
      return h.agent.views.snapshot().tasks[0].id;
    }

    /** Shuts the extension down and opens it again on the same storage. */
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
    }

    it('keeps a running task across a restart: notice without a model call, then its pending trigger resumes it', async () => {
      const id = await startWaitingTask();
      const before = server.requests.length;
      await reload();
      await h.idle();
      assert.equal(server.requests.length, before, 'the restart notice costs no model call');
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === id)!;
      assert.match(session.messages.at(-1)!.text, /I was restarted/);
      const task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.status, 'running');
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'finished after restart' } }] }]);
      await h.clock.advance(HOUR);
      await h.idle();
      assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === id)!.status, 'completed');
      assert.match(JSON.stringify(server.requests.at(-1)!.body), /The extension restarted/);
    });

    it('re-queues a running task that lost its trigger, once, with a dedup-keyed resume', async () => {
      const id = await startWaitingTask();
      await h.triggers.cancel(id); // as if the continuation was never written
      await h.shutdown();
      const { dir, clock } = h;
      const old = h;
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'resumed' } }] }]);
      h = await open({ dir, clock });
      const close = h.close;
      h.close = async () => {
        await close();
        await old.close();
      };
      const again = await h.agent.restore(); // a second activation's restore
      await h.idle();
      assert.deepEqual(again.resumed, [], 'the second restore finds the resume already queued or done');
      assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === id)!.status, 'completed');
      assert.equal(server.pending, 0);
      const turns = server.requests.filter((r) => JSON.stringify(r.body).includes('Do a long job'));
      assert.equal(turns.length, 2, 'exactly one resumed turn');
    });

    it('a shutdown during a model call does not pause the task: the turn is redone after the restart', async () => {
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Slow', instruction: 'Slow job', mode: 'simple' } }] },
        // Held (not answered) until the reload: the model call is in flight when the extension shuts down.
        { toolCalls: [{ name: 'list_files', arguments: {} }], gate: 'slow' },
      ]);
      await h.agent.sendMessage('slow job');
      await server.held('slow');
      const id = h.agent.views.snapshot().tasks[0].id;
      await reload();
      assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === id)!.status, 'running');
      server.reset();
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'done after restart' } }] }]);
      await h.clock.advance(60_000);
      await h.idle();
      assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === id)!.status, 'completed');
    });

    it('records intent and outcome around an irreversible action', async () => {
      server.script([
        { toolCalls: [{ name: 'post_webhook', arguments: { message: 'deployed' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'posted' } }] },
      ]);
      // A proactive trigger gives the task the notify action set.
      await h.triggers.emit({ source: 'proactive', sessionId: 'system', payload: { prompt: 'Tell the team', actionSets: ['notify'] } });
      await h.idle();
      assert.deepEqual(webhookRuns, [{ message: 'deployed' }]);
      const rows = h.db.query('SELECT action, status, intent, outcome FROM ledger');
      assert.equal(rows.length, 1);
      assert.equal(rows[0].status, 'done');
      assert.deepEqual(JSON.parse(String(rows[0].intent)), { message: 'deployed' });
      assert.deepEqual(JSON.parse(String(rows[0].outcome)), { status: 200 });
    });

    it('never replays an intent without outcome after a crash: the task and the user are told', async () => {
      const id = await startWaitingTask();
      // The process died while post_webhook ran: intent durable, no outcome.
      h.db.mutate(
        "INSERT INTO ledger (id, task_id, action, status, intent, outcome, created_at, updated_at) VALUES ('l-1', ?, 'post_webhook', 'intent', ?, NULL, 1, 1)",
        [id, JSON.stringify({ message: 'deployed' })],
      );
      await h.db.commit();
      await reload();
      await h.idle();
      assert.deepEqual(webhookRuns, [], 'not replayed');
      assert.equal(h.db.query("SELECT status FROM ledger WHERE id = 'l-1'")[0].status, 'interrupted');
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === id)!;
      assert.ok(session.messages.some((m) => m.role === 'error' && /post_webhook .* may have run before the restart/.test(m.text)));
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'checked' } }] }]);
      await h.clock.advance(HOUR);
      await h.idle();
      assert.match(JSON.stringify(server.requests.at(-1)!.body), /post_webhook .*may have run before the restart/);
      // Reported once: a second restart does not repeat it.
      await reload();
      await h.idle();
      // The task ended, so its session's tail is read when asked for, not at activation.
      const errors = (await h.agent.views.sessionMessages(id)).filter((m) => /may have run before the restart/.test(m.text));
      assert.equal(errors.length, 1);
    });
  });
}
