import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { defineAction } from '../../../src/core/actions/types';
import { EngineState } from '../../../src/core/engine/engineState';
import { AppendFile, EventStreams } from '../../../src/core/engine/eventLog';
import { chooseRung } from '../../../src/core/engine/react';
import { emptyTotals } from '../../../src/core/engine/records';
import type { TaskRecord } from '../../../src/core/engine/records';
import { silentLogger } from '../../../src/core/ports';
import type { DurableDb, Trigger, TriggerSource } from '../../../src/core/store/types';
import type { ModelServer } from '../../fixtures/modelServer';
import { FakeClock } from '../../fakes/fakeClock';
import { presentSteps } from '../../../src/host/stepPresenter';
import { agentFile, createHarness, engineHooks, WIRES } from './harness';
import type { Harness } from './harness';

function trigger(source: TriggerSource, sessionId: string, payload: unknown = null): Trigger {
  return { id: 'tr-1', source, sessionId, payload, fireAt: 0, priority: 100, dedupKey: null, attempts: 1, status: 'claimed', createdAt: 0, lastError: null };
}

function task(over: Partial<TaskRecord>): TaskRecord {
  return {
    id: 't1',
    sessionId: 't1',
    name: 'n',
    instruction: 'i',
    mode: 'simple',
    status: 'running',
    todos: [],
    actionSets: ['task'],
    selectedSkills: [],
    source: 'user',
    waitingForUser: false,
    paused: false,
    actionCount: 0,
    usage: emptyTotals(),
    limits: { actions: 10, tokens: 1000 },
    warned: { actions: false, tokens: false, cost: false },
    turns: 0,
    modelErrors: 0,
    prefix: '',
    historyFromSeq: 1,
    createdAt: 0,
    ...over,
  };
}

describe('engine: trigger routing ladder (chooseRung), first match wins', () => {
  const state = new EngineState({} as DurableDb, new EventStreams('/nonexistent'), new AppendFile('/nonexistent/EVENT.md'), new FakeClock(), silentLogger);
  const put = (t: TaskRecord) => {
    state.tasks.set(t.id, t);
    state.sessions.set(t.sessionId, { id: t.sessionId, name: t.name, status: 'idle', lastActivity: 0, taskId: t.id, usage: emptyTotals() });
  };
  state.sessions.set('conv', { id: 'conv', name: 'c', status: 'idle', lastActivity: 0, usage: emptyTotals() });
  put(task({ id: 'simple', sessionId: 'simple' }));
  put(task({ id: 'complex', sessionId: 'complex', mode: 'complex' }));
  put(task({ id: 'waiting', sessionId: 'waiting', mode: 'complex', waitingForUser: true }));
  put(task({ id: 'approval', sessionId: 'approval', waitingForApproval: 'a-1' }));
  put(task({ id: 'paused', sessionId: 'paused', status: 'paused', paused: true, pauseReason: 'budget' }));
  put(task({ id: 'ended', sessionId: 'ended', status: 'completed' }));

  const cases: Array<[string, Trigger, string]> = [
    ['restart notice beats everything, even on a task session', trigger('restart_notice', 'waiting'), 'restart_notice'],
    ['memory', trigger('memory', 'complex'), 'memory'],
    ['scheduled chore fire', trigger('scheduled', 'x', { prompt: 'p' }), 'proactive'],
    ['file event', trigger('file_event', 'x', { prompt: 'p' }), 'proactive'],
    ['task event', trigger('task_event', 'x', { prompt: 'p' }), 'proactive'],
    ['waiting task, continuation without a message', trigger('task_continuation', 'waiting', { wait: 'reply' }), 'rearm_wait'],
    ['waiting for approval, no decision', trigger('resume', 'approval'), 'rearm_wait'],
    ['waiting for approval, the decision arrives', trigger('approval', 'approval', { approvalId: 'a-1', decision: 'approved' }), 'simple_task'],
    ['waiting task, trigger carries a message', trigger('user_message', 'waiting', { text: 'hi' }), 'complex_task'],
    ['complex task', trigger('task_continuation', 'complex'), 'complex_task'],
    ['simple task', trigger('task_continuation', 'simple'), 'simple_task'],
    ['conversation', trigger('user_message', 'conv', { text: 'hi' }), 'conversation'],
    ['paused task does nothing until Continue', trigger('task_continuation', 'paused'), 'stale'],
    ['continuation of an ended task', trigger('task_continuation', 'ended'), 'stale'],
    ['message to an ended task session is conversation', trigger('user_message', 'ended', { text: 'hi' }), 'conversation'],
  ];
  for (const [name, t, rung] of cases) {
    it(`${name} → ${rung}`, () => assert.equal(chooseRung(t, state), rung));
  }
});

for (const wire of WIRES) {
  describe(`engine: ladder rungs end to end (${wire})`, () => {
    let server: ModelServer;
    let h: Harness;
    engineHooks(wire, { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

    it('proactive: a chore fire starts a task with its skills, once even if the trigger is retried', async () => {
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'changelog updated', output: { status: 'done', entries: 3 } } }] }]);
      const fire = await h.triggers.emit({
        source: 'scheduled',
        sessionId: 'system',
        dedupKey: 'chore:nightly:1',
        payload: { prompt: 'Update CHANGELOG.md', name: 'Nightly changelog', choreId: 'nightly', skills: ['changelog'] },
      });
      await h.idle();
      const t = h.agent.views.snapshot().tasks[0];
      assert.equal(t.source, 'chore:nightly');
      assert.deepEqual(t.selectedSkills, ['changelog']);
      assert.equal(t.status, 'completed');
      assert.deepEqual(t.output, { status: 'done', entries: 3 });
      assert.match(JSON.stringify(server.requests[0].body), /Writing a changelog entry from commits/);
      // The same trigger delivered again (crash retry) does not start a second task.
      await h.triggers.retryDead(fire.id).catch(() => undefined);
      await h.triggers.emit({ source: 'scheduled', sessionId: 'system', dedupKey: 'chore:nightly:1', payload: { prompt: 'Update CHANGELOG.md' } });
      await h.idle();
      assert.equal(h.agent.views.snapshot().tasks.length, 1);
    });

    it('memory: distils recent events into MEMORY.md, which later tasks get as context', async () => {
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'We use pnpm here.' } }] }]);
      await h.agent.sendMessage('remember that this repo uses pnpm, not npm');
      await h.idle();
      // Distillation runs only with enough new events (tasklane.memory.minEvents, default 20).
      await h.agent.whenReady();
      fs.appendFileSync(path.join(h.dir, 'agent', 'EVENT.md'), Array.from({ length: 20 }, (_, i) => `- filler event ${i}\n`).join(''));
      server.script([{ toolCalls: [{ name: 'save_memory', arguments: { content: '# Memory\n## Conventions\n- The repo uses pnpm, not npm.' } }] }]);
      await h.triggers.emit({ source: 'memory', sessionId: 'memory' });
      await h.idle();
      const memoryRequest = JSON.stringify(server.requests.at(-1)!.body);
      assert.match(memoryRequest, /uses pnpm, not npm/, 'the distillation read the recent events');
      assert.match(agentFile(h, 'MEMORY.md'), /## Conventions\n- The repo uses pnpm, not npm\./);
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Install', instruction: 'Install deps', mode: 'simple' } }] },
        {
          toolCalls: [
            { name: 'remember', arguments: { note: 'CI runs on Node 20.' } },
            { name: 'task_end', arguments: { summary: 'ok' } },
          ],
        },
      ]);
      await h.agent.sendMessage('install the deps');
      await h.idle();
      assert.match(JSON.stringify(server.requests.at(-1)!.body), /# Memory[\s\S]*uses pnpm/);
      // `remember` only proposes (security review, finding 7): memory changes when the person accepts.
      assert.doesNotMatch(agentFile(h, 'MEMORY.md'), /CI runs on Node 20/);
      assert.deepEqual(await h.agent.memoryProposals(), ['CI runs on Node 20.']);
      await h.agent.settleMemoryProposals(['CI runs on Node 20.']);
      assert.match(agentFile(h, 'MEMORY.md'), /## Notes\n- CI runs on Node 20\./);
      assert.deepEqual(await h.agent.memoryProposals(), []);
    });

    it('memory: an invalid distillation leaves MEMORY.md untouched', async () => {
      fs.mkdirSync(path.join(h.dir, 'agent'), { recursive: true });
      fs.writeFileSync(path.join(h.dir, 'agent', 'MEMORY.md'), '# Memory\n- keep me\n');
      fs.writeFileSync(path.join(h.dir, 'agent', 'EVENT.md'), '- something happened\n');
      server.script([{ toolCalls: [{ name: 'save_memory', arguments: { text: 'wrong field' } }] }]);
      await h.triggers.emit({ source: 'memory', sessionId: 'memory' });
      await h.idle();
      assert.equal(agentFile(h, 'MEMORY.md'), '# Memory\n- keep me\n');
    });

    /** A task that proposed an edit (approval a-7) and waits for the person's decision. */
    async function waitingOnApproval(): Promise<ReturnType<Harness['agent']['views']['snapshot']>['tasks'][number]> {
      await h.close();
      const proposeEdit = defineAction({
        name: 'propose_edit',
        description: 'Propose an edit.',
        input: z.object({ path: z.string() }),
        actionSets: ['edit'],
        parallelizable: false,
        irreversible: false,
        approval: 'always',
        async run(input, ctx) {
          ctx.turn.needsApproval('a-7', `edit ${input.path}`);
          return 'proposed; waiting for the user';
        },
      });
      h = await createHarness({ wire, server, actions: [proposeEdit] });
      server.script([{ toolCalls: [{ name: 'propose_edit', arguments: { path: 'README.md' } }] }]);
      await h.triggers.emit({ source: 'proactive', sessionId: 'system', payload: { prompt: 'Fix the README', actionSets: ['edit'] } });
      await h.idle();
      return h.agent.views.snapshot().tasks[0]!;
    }

    it('approval: an action that needs approval makes the task wait; the decision wakes it', async () => {
      const t = await waitingOnApproval();
      assert.equal(t.waitingForApproval, 'a-7');
      const before = server.requests.length;
      await h.clock.advance(3 * 3_600_000);
      await h.idle();
      assert.equal(server.requests.length, before, 'no model call while waiting for the decision');
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'edited' } }] }]);
      await h.triggers.emit({ source: 'approval', sessionId: t.sessionId, payload: { approvalId: 'a-7', decision: 'approved' } });
      await h.idle();
      assert.equal(h.agent.views.snapshot().tasks[0].status, 'completed');
      assert.match(JSON.stringify(server.requests.at(-1)!.body), /Approval a-7: approved/);
    });

    it('approval: a change set gone stale tells the task in English and keeps its files as data for the thread', async () => {
      const t = await waitingOnApproval();
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'gave up' } }] }]);
      const stale = [{ path: 'README.md', change: 'modified' as const }];
      const note = 'The change was not applied: nothing was applied because these files changed on disk since the proposal: README.md (modified).';
      await h.triggers.emit({ source: 'approval', sessionId: t.sessionId, payload: { approvalId: 'a-7', decision: 'rejected', note, stale } });
      await h.idle();
      const events = await h.agent.views.readTaskEvents(t.id, { limit: 100 });
      const decision = events.find((e) => e.kind === 'user_message' && /^Approval a-7: rejected/.test(String(e.data.text)));
      assert.deepEqual(decision?.data.stale, stale, 'the decision in the stream keeps which files changed (issue 42)');
      assert.ok(JSON.stringify(server.requests.at(-1)!.body).includes('these files changed on disk since the proposal: README.md (modified)'));
      const row = presentSteps(t.id, events).find((r) => r.id === `e${decision!.seq}`);
      assert.equal(row?.note, 'README.md (modified)', 'the thread words the files from the data');
    });

    it('proactive: a budget in the payload lowers the task limits and never raises them', async () => {
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'ok' } }] }, { toolCalls: [{ name: 'task_end', arguments: { summary: 'ok' } }] }]);
      await h.triggers.emit({ source: 'proactive', sessionId: 'system', payload: { prompt: 'Cheap', limits: { actions: 5, tokens: 2_000_000, cost: 0.5 } } });
      await h.triggers.emit({ source: 'proactive', sessionId: 'system', payload: { prompt: 'Nonsense', limits: { actions: -1, tokens: Number.NaN } } });
      await h.idle();
      const byName = new Map(h.agent.views.snapshot().tasks.map((t) => [t.instruction, t.counters]));
      assert.equal(byName.get('Cheap')?.actions.limit, 5, 'a lower actions limit applies');
      assert.equal(byName.get('Cheap')?.tokens.limit, 1_000_000, 'a higher tokens limit is clamped to the configured one');
      assert.equal(byName.get('Cheap')?.cost?.limit, 0.5, 'a cost limit asked for applies');
      assert.equal(byName.get('Nonsense')?.actions.limit, 50, 'nonsense leaves the configured limit');
      assert.equal(byName.get('Nonsense')?.tokens.limit, 1_000_000);
    });
  });
}
