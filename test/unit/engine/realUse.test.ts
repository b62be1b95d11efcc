/**
 * The loop under real use, one scenario each: what a person does while a turn is in flight
 * (reply during a running action, cancel, stop, a reply during the last turn, a burst), wait
 * triggers, crash messages and lateness. The model is held at gates (no sleeps); the slow action
 * runs until the test releases it or its signal fires.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { z } from 'zod';
import { defineAction } from '../../../src/core/actions/types';
import type { ModelServer } from '../../fixtures/modelServer';
import { createHarness, engineHooks, WIRES } from './harness';
import type { Harness, HarnessOptions } from './harness';
import { crashCopy } from './interleavingWorld';

const HOUR = 3_600_000;
/** Storage dirs a test reopened by hand (the harness removes only the one it made). */
const leftovers: string[] = [];
after(() => leftovers.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** An action that runs until released (its "child process" is `running`), and stops on abort. */
function slowAction() {
  const state = { running: 0, started: 0, aborted: 0, release: () => undefined as void, startedSignal: Promise.resolve() };
  let markStarted!: () => void;
  state.startedSignal = new Promise<void>((resolve) => (markStarted = resolve));
  const action = defineAction({
    name: 'slow_build',
    description: 'Build the project (slow).',
    input: z.object({}),
    actionSets: ['build'],
    parallelizable: false,
    irreversible: false,
    approval: 'never',
    run: (_input, ctx) =>
      new Promise<string>((resolve, reject) => {
        state.running += 1;
        state.started += 1;
        const done = (fn: () => void) => {
          state.running -= 1;
          fn();
        };
        state.release = () => done(() => resolve('BUILD OUTPUT 123'));
        ctx.signal?.addEventListener(
          'abort',
          () => {
            state.aborted += 1;
            done(() => reject(new Error('killed')));
          },
          { once: true },
        );
        markStarted();
      }),
  });
  return { action, state };
}

const bodyOf = (server: ModelServer, i: number) => JSON.stringify(server.requests[i]?.body ?? null);

for (const wire of WIRES) {
  describe(`engine: the loop under real use (${wire})`, () => {
    let server: ModelServer;
    let h: Harness;
    let slow: ReturnType<typeof slowAction>;
    const open = (extra: Partial<HarnessOptions> = {}) => createHarness({ wire, server, actions: [slow.action], skillDirs: [], ...extra });
    engineHooks(wire, { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h }, () => {
      slow = slowAction();
      return open();
    });

    /** A proactive task with the build action set, its first turn calling slow_build. */
    async function startBuilding(): Promise<string> {
      server.script([{ toolCalls: [{ name: 'slow_build', arguments: {} }] }]);
      await h.triggers.emit({ source: 'proactive', sessionId: 'system', payload: { prompt: 'Run the build', actionSets: ['build'] } });
      await slow.state.startedSignal;
      return h.agent.views.snapshot().tasks[0]!.id;
    }

    it('a reply sent while an action runs keeps its real result; the reply comes after it', async () => {
      const id = await startBuilding();
      await h.agent.sendMessage('wait, also run the tests please', { replyToTaskId: id });
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'built' } }] }]);
      slow.state.release();
      await h.idle();
      const second = bodyOf(server, 1);
      assert.ok(second.includes('BUILD OUTPUT 123'), 'the real output reached the model');
      assert.ok(!second.includes('Not run'), 'the result was not replaced by "not run"');
      assert.ok(second.indexOf('BUILD OUTPUT 123') < second.indexOf('also run the tests'), 'the reply comes after the result');
      assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === id)!.status, 'completed');
    });

    it('cancel during a running action stops it: no more model calls, idle at once, nothing queued', async () => {
      const id = await startBuilding();
      const requests = server.requests.length;
      const cancelled = h.agent.cancelTask(id);
      assert.equal(h.agent.views.snapshot().sessions.find((s) => s.id === id)!.status, 'working', 'not idle before the cancel runs');
      await cancelled;
      assert.equal(slow.state.aborted, 1, 'the running action got the abort');
      assert.equal(slow.state.running, 0, 'nothing of it runs after the cancel resolved');
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === id)!;
      assert.equal(session.status, 'idle');
      await h.idle();
      assert.equal(server.requests.length, requests, 'no model call after the cancel');
      assert.deepEqual(h.triggers.pending(id), [], 'finalize of a cancelled task queues nothing');
      assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === id)!.status, 'cancelled');
      assert.equal(h.agent.views.snapshot().sessions.find((s) => s.id === id)!.status, 'idle', 'still idle once everything settled');
    });

    it('Stop during a model call aborts the SDK request: stopped, not an error, no retry', async () => {
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'a long answer' } }], gate: 'answer', holdAfterChunks: 2 }]);
      const { sessionId } = await h.agent.sendMessage('explain the repo');
      await server.held('answer');
      await h.agent.stop(sessionId);
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === sessionId)!;
      assert.equal(session.status, 'idle');
      server.release('answer');
      await h.idle();
      const after = h.agent.views.snapshot().sessions.find((s) => s.id === sessionId)!;
      assert.ok(!after.messages.some((m) => m.role === 'error'), 'no error line');
      assert.ok(
        after.messages.slice(1).every((m) => m.stopped || m.role === 'event'),
        'only what streamed, marked stopped',
      );
      assert.equal(server.requests.length, 1, 'no retry');
      assert.deepEqual(h.triggers.pending(sessionId), []);
    });

    it('a reply that lands during the turn that ends the task is answered', async () => {
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'build ran' } }], gate: 'last' }]);
      await h.triggers.emit({ source: 'proactive', sessionId: 'system', payload: { prompt: 'Run the build', actionSets: ['build'] } });
      await server.held('last');
      const id = h.agent.views.snapshot().tasks[0]!.id;
      await h.agent.sendMessage('wait, also run the tests please', { replyToTaskId: id });
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'The build ran; I will start the tests.' } }] }]);
      server.release('last');
      await h.idle();
      assert.equal(server.requests.length, 2, 'a turn answered the reply');
      assert.ok(bodyOf(server, 1).includes('also run the tests'));
      const messages = h.agent.views.snapshot().sessions.find((s) => s.id === id)!.messages;
      assert.equal(messages.at(-1)!.text, 'The build ran; I will start the tests.');
    });

    it('two quick messages in one conversation get one turn that sees both', async () => {
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'hello' } }] }]);
      const { sessionId } = await h.agent.sendMessage('hi');
      await h.idle();
      server.script([
        { toolCalls: [{ name: 'send_message', arguments: { text: 'answer A' } }], gate: 'a' },
        { toolCalls: [{ name: 'send_message', arguments: { text: 'answer B' } }] },
      ]);
      await h.agent.sendMessage('what is 2+2?', { sessionId });
      await server.held('a');
      await h.agent.sendMessage('and 3+3?', { sessionId });
      await h.agent.sendMessage('and 4+4?', { sessionId });
      server.release('a');
      await h.idle();
      // The first turn saw only its message; the two that came while it ran get one turn.
      assert.equal(server.requests.length, 3);
      assert.ok(bodyOf(server, 2).includes('and 3+3?') && bodyOf(server, 2).includes('and 4+4?'));
      const last = server.requests[2]!.body.messages.map((m: { content: unknown }) => JSON.stringify(m.content)).join('\n');
      assert.ok(last.indexOf('answer A') < last.indexOf('and 3+3?'), 'the first answer precedes the messages it never saw');
    });

    it('one wait per task: the approval that woke it settles its 3 h wait trigger', async () => {
      const asking = defineAction({
        name: 'propose',
        description: 'Propose a change.',
        input: z.object({}),
        actionSets: ['build'],
        parallelizable: false,
        irreversible: false,
        approval: 'always',
        run: async (_input, ctx) => {
          ctx.turn.needsApproval('ap-1', 'a change');
          return 'proposed';
        },
      });
      await h.close();
      h = await open({ actions: [slow.action, asking] });
      server.script([{ toolCalls: [{ name: 'propose', arguments: {} }] }]);
      await h.triggers.emit({ source: 'proactive', sessionId: 'system', payload: { prompt: 'Change it', actionSets: ['build'] } });
      await h.idle();
      const id = h.agent.views.snapshot().tasks[0]!.id;
      server.script([{ toolCalls: [{ name: 'wait', arguments: { seconds: 4 * 3600 + 600 } }] }]);
      await h.triggers.emit({ source: 'approval', sessionId: id, payload: { approvalId: 'ap-1', decision: 'approved' } });
      await h.idle();
      assert.equal(h.triggers.pending(id).length, 1, 'only the new wait is left');
      const calls = server.requests.length;
      await h.clock.advance(3 * HOUR + 60_000);
      await h.idle();
      assert.equal(server.requests.length, calls, 'no extra turn at the old 3 h re-arm');
      assert.equal(h.agent.views.snapshot().tasks[0]!.status, 'running', 'the wait was not cut short');
    });

    it('after a crash mid-action the model hears once that the call may have run, never "not run"', async () => {
      const id = await startBuilding();
      // The process dies while slow_build runs: the storage as it is now is all that is left.
      const copy = crashCopy(h.dir);
      leftovers.push(copy);
      await h.shutdown();
      slow = slowAction();
      h = await open({ dir: copy, clock: h.clock });
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'checked' } }] }]);
      await h.clock.advance(60_000);
      await h.idle();
      const last = bodyOf(server, server.requests.length - 1);
      assert.match(last, /may have run/);
      assert.ok(!last.includes('Not run'), 'not also told it did not run');
      assert.equal(slow.state.started, 0, 'not replayed');
      assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === id)!.status, 'completed');
    });

    it('lateness is told: a wait woken after VS Code was closed carries a note; > 24 h overdue asks first', async () => {
      server.script([{ toolCalls: [{ name: 'wait', arguments: { seconds: 60 } }] }]);
      await h.triggers.emit({ source: 'proactive', sessionId: 'system', payload: { prompt: 'Poll', actionSets: ['build'] } });
      await h.idle();
      const id = h.agent.views.snapshot().tasks[0]!.id;
      const dir = h.dir;
      const clock = h.clock;
      leftovers.push(dir);
      await h.shutdown();
      await clock.advance(3 * HOUR); // VS Code closed for three hours
      h = await open({ dir, clock });
      server.script([{ toolCalls: [{ name: 'wait', arguments: { seconds: 60 } }] }]);
      await h.idle();
      assert.match(bodyOf(server, 1), /delivered 3 h late .*because VS Code was closed/);
      await h.shutdown();
      await clock.advance(3 * 24 * HOUR); // closed for three days
      h = await open({ dir, clock });
      await h.idle();
      assert.equal(server.requests.length, 2, 'a step 3 days overdue is not run blindly');
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === id)!;
      assert.match(session.messages.at(-1)!.text, /was due .* 3 days ago .*reply to go on/);
      assert.equal(session.status, 'waiting');
      assert.equal(h.triggers.pending(id).length, 1, 'it waits with a live trigger');
    });
  });
}
