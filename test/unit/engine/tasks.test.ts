import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TaskEvent } from '../../../src/core/engine/types';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { agentFile, createHarness, engineHooks, WIRES } from './harness';
import type { Harness } from './harness';

const HOUR = 3_600_000;

/** Starts one task through a conversation turn and returns its id. */
async function startTask(h: Harness, server: ModelServer, mode: 'simple' | 'complex', steps: Parameters<ModelServer['script']>[0]): Promise<string> {
  server.script([{ toolCalls: [{ name: 'task_start', arguments: { name: 'Work', instruction: 'Do the work on the repo', mode } }] }, ...steps]);
  await h.agent.sendMessage('please do the work');
  await h.idle();
  const task = h.agent.views.snapshot().tasks[0];
  assert.ok(task, 'a task was started');
  return task.id;
}

const kinds = (events: TaskEvent[]) => events.map((e) => (e.kind.startsWith('action') ? `${e.kind}:${e.data.name}` : e.kind));

for (const wire of WIRES) {
  describe(`engine: tasks and the turn pipeline (${wire})`, () => {
    let server: ModelServer;
    let h: Harness;
    engineHooks(wire, { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

    it('runs parallelizable actions concurrently and others in order, one turn per trigger', async () => {
      const id = await startTask(h, server, 'simple', [
        {
          toolCalls: [
            { name: 'read_file', arguments: { path: 'README.md' } },
            { name: 'search_text', arguments: { query: 'answer' } },
          ],
        },
        {
          toolCalls: [
            { name: 'send_message', arguments: { text: 'found it' } },
            { name: 'wait', arguments: { seconds: '60' } },
          ],
        },
      ]);
      // The second turn waits 60 s (seconds sent as a string: coerced).
      assert.equal(server.requests.length, 3);
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'README says hello; answer is 42' } }] }]);
      await h.clock.advance(60_000);
      await h.idle();
      const events = await h.agent.views.readTaskEvents(id, { limit: 100 });
      const k = kinds(events);
      const firstTurn = k.slice(k.indexOf('turn') + 1, k.indexOf('turn') + 5);
      assert.deepEqual(firstTurn, ['action_start:read_file', 'action_start:search_text', 'action_end:read_file', 'action_end:search_text']);
      const secondTurn = k.indexOf('turn', k.indexOf('turn') + 1);
      assert.deepEqual(k.slice(secondTurn + 1, secondTurn + 5), [
        'action_start:send_message',
        'action_end:send_message',
        'action_start:wait',
        'action_end:wait',
      ]);
      const readEnd = events.find((e) => e.kind === 'action_end' && e.data.name === 'read_file')!;
      assert.match(String(readEnd.data.output), /Hello/);
      assert.equal(typeof readEnd.data.durationMs, 'number');
      const task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.status, 'completed');
      assert.equal(task.counters.actions.used, 5);
      assert.match(agentFile(h, 'TASK_HISTORY.md'), new RegExp(`## Work \\(${id}\\)[\\s\\S]*status: completed[\\s\\S]*summary: README says hello`));
      assert.equal(fs.existsSync(path.join(h.dir, 'agent', 'scratch', id)), false, 'scratch dir removed at task end');
      const wire2 = JSON.stringify(server.requests[2].body);
      assert.ok(
        wire2.includes(wire === 'anthropic' ? '"input":{"path":"README.md"}' : '"arguments":"{\\"path\\":\\"README.md\\"}"'),
        'earlier call arguments survive in the history',
      );
      // The tool result of turn 1 reached the model in turn 2.
      assert.ok(JSON.stringify(server.requests[2].body).includes('export const answer = 42'));
    });

    it('repairs an invalid tool call once with the validation error', async () => {
      const id = await startTask(h, server, 'simple', [
        { toolCalls: [{ name: 'read_file', arguments: { file: 'README.md' } }] },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'ok' } }] },
      ]);
      const repair = JSON.stringify(server.requests[2].body);
      assert.match(repair, /Invalid input for read_file: path/);
      assert.match(repair, /Call the tools again with corrected arguments/);
      const task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.status, 'completed');
    });

    it('pauses with a clear error event when the repair turn is invalid too', async () => {
      const id = await startTask(h, server, 'simple', [
        { toolCalls: [{ name: 'no_such_action', arguments: {} }] },
        {
          toolCalls: [
            { name: 'read_file', arguments: '{not json' },
            { name: 'read_file', arguments: { path: 'README.md' } },
          ],
        },
      ]);
      const task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.status, 'paused');
      assert.equal(task.pauseReason, 'model_error');
      const events = await h.agent.views.readTaskEvents(id, { limit: 50 });
      const error = events.find((e) => e.kind === 'error' && /Invalid tool calls after a repair turn/.test(String(e.data.text)));
      assert.ok(error);
      // The calls' own account as data beside the English, for the thread to word its rows (issue 42).
      const pause = events.find((e) => e.kind === 'pause');
      assert.equal(typeof pause?.data.invalidToolCalls, 'string');
      assert.ok(String(pause?.data.text).includes(String(pause?.data.invalidToolCalls)));
      assert.equal(error.data.invalidToolCalls, pause?.data.invalidToolCalls);
      // The valid call beside the invalid one is not run, and says why as a code too.
      const sibling = events.filter((e) => e.kind === 'action_end' && /other calls of this turn were invalid/.test(String(e.data.error)));
      assert.deepEqual(
        sibling.map((e) => e.data.notRun),
        [{ code: 'invalid_siblings' }],
      );
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === id)!;
      assert.match(session.messages.at(-1)!.text, /invalid tool calls twice/);
      assert.deepEqual(session.messages.at(-1)!.said, { code: 'invalid_tool_calls', detail: pause?.data.invalidToolCalls });
      assert.equal(server.requests.length, 3);
    });

    it('complex task: visible todos, approval before task_end, history record', async () => {
      const id = await startTask(h, server, 'complex', [
        {
          toolCalls: [
            {
              name: 'update_todos',
              arguments: {
                todos: [
                  { text: 'read', status: 'in_progress' },
                  { text: 'report', status: 'pending' },
                ],
              },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: 'update_todos',
              arguments: {
                todos: [
                  { text: 'read', status: 'done' },
                  { text: 'report', status: 'done' },
                ],
              },
            },
          ],
        },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'All read and reported.' } }] },
      ]);
      let task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.status, 'running');
      assert.equal(task.waitingForUser, true, 'the first task_end asks the user');
      assert.deepEqual(
        task.todos.map((t) => t.status),
        ['done', 'done'],
      );
      assert.ok(h.changes.some((c) => c.type === 'task' && c.task.todos.length === 2 && c.task.todos[0].status === 'in_progress'));
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'All read and reported.' } }] }]);
      await h.agent.sendMessage('yes', { sessionId: id });
      await h.idle();
      task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.status, 'completed');
      assert.ok(JSON.stringify(server.requests.at(-1)!.body).includes('User: yes'));
      assert.match(agentFile(h, 'TASK_HISTORY.md'), /mode: complex/);
    });

    it('adds a status line to the prompt only when it says something new', async () => {
      await startTask(h, server, 'simple', [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }] },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'read twice' } }] },
      ]);
      const statusLines = (i: number) => (JSON.stringify(server.requests[i].body).match(/\[status\] used/g) ?? []).length;
      // Request 1 is the task's first turn; 2 and 3 follow reads that moved no budget step and no todo.
      assert.equal(statusLines(1), 1);
      assert.equal(statusLines(2), 1, 'an unchanged status was sent again');
      assert.equal(statusLines(3), 1);
    });

    it('waits for a reply: persisted flag, 3 h re-arms with no model call, reply pulls it forward', async () => {
      const id = await startTask(h, server, 'simple', [{ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which branch?' } }] }]);
      const before = server.requests.length;
      let task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.waitingForUser, true);
      const persisted = h.db.query('SELECT data FROM tasks WHERE id = ?', [id])[0];
      assert.equal(JSON.parse(String(persisted.data)).waitingForUser, true);
      const pending = h.triggers.pending(id);
      assert.equal(pending.length, 1);
      assert.equal(pending[0].fireAt, h.clock.now() + 3 * HOUR);
      for (let i = 0; i < 3; i++) {
        await h.clock.advance(3 * HOUR);
        await h.idle();
      }
      assert.equal(server.requests.length, before, 'no model call while waiting');
      assert.equal(h.triggers.pending(id)[0].fireAt, h.clock.now() + 3 * HOUR, 're-armed 3 h ahead');
      assert.ok(h.logger.lines.filter((l) => l.includes('rearm_wait')).length >= 3);
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'used main' } }] }]);
      await h.agent.sendMessage('main', { replyToTaskId: id });
      await h.idle();
      task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.status, 'completed');
      assert.equal(server.requests.length, before + 1);
      assert.ok(JSON.stringify(server.requests.at(-1)!.body).includes('User: main'));
    });

    it('budgets: one warning at 80%, pause at 100%, Continue raises the limit, Cancel ends', async () => {
      await h.close();
      h = await createHarness({ wire, server, settings: { maxActionsPerTask: 5, budgetIncrement: { actions: 5 } } });
      const read = { toolCalls: [{ name: 'list_files', arguments: { dir: '.' } }] };
      const id = await startTask(h, server, 'simple', [read, read, read, read, read, read]);
      let task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.status, 'paused');
      assert.equal(task.pauseReason, 'budget');
      assert.equal(task.counters.actions.used, 5);
      let events = await h.agent.views.readTaskEvents(id, { limit: 100 });
      assert.equal(events.filter((e) => e.kind === 'warning').length, 1, 'warned once per crossing');
      assert.equal(server.requests.length, 1 + 5, 'no model call once the budget is spent');
      const warnIndex = events.findIndex((e) => e.kind === 'warning');
      assert.equal(events.slice(0, warnIndex).filter((e) => e.kind === 'action_end').length, 4, 'warning at 4 of 5');
      // The warning reached the model.
      assert.ok(JSON.stringify(server.requests.at(-1)!.body).includes('80% of the actions budget'));

      server.script([read, read, read, read]);
      await h.agent.continueTask(id);
      await h.idle();
      task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.counters.actions.limit, 10);
      assert.equal(task.status, 'paused', 'paused again at the raised limit');
      assert.equal(task.counters.actions.used, 10);
      events = await h.agent.views.readTaskEvents(id, { limit: 200 });
      assert.equal(events.filter((e) => e.kind === 'warning').length, 2, 'a new crossing warns again');
      await h.agent.sendMessage('why did you stop?', { sessionId: id });
      assert.match(
        h.agent.views
          .snapshot()
          .sessions.find((s) => s.id === id)!
          .messages.at(-1)!.text,
        /paused: it will read your message when you press Continue/,
      );
      assert.ok(JSON.stringify(await h.agent.views.readTaskEvents(id, { limit: 3 })).includes('why did you stop?'));
      await h.agent.cancelTask(id);
      task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.status, 'cancelled');
      assert.equal(task.finalSummary, 'Cancelled by the user while paused (budget).');
      assert.equal(h.triggers.pending(id).length, 0);
    });

    it('pauses on a token budget reported by the provider usage', async () => {
      await h.close();
      h = await createHarness({ wire, server, settings: { maxTokensPerTask: 1000 } });
      const id = await startTask(h, server, 'simple', [{ toolCalls: [{ name: 'list_files', arguments: {} }], usage: { input: 900, output: 200 } }]);
      const task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.status, 'paused');
      assert.ok(task.counters.tokens.used >= 1000);
    });

    it('a simple task that turns out big ends and starts a complex successor with its own lane', async () => {
      const id = await startTask(h, server, 'simple', [
        {
          toolCalls: [
            { name: 'task_start', arguments: { name: 'Big migration', instruction: 'Migrate every module to ESM', mode: 'complex' } },
            { name: 'task_end', arguments: { summary: 'Too big for a simple task; started a complex successor.' } },
          ],
        },
        { toolCalls: [{ name: 'ask_user', arguments: { question: 'Start with src/?' } }] },
      ]);
      const tasks = h.agent.views.snapshot().tasks;
      const first = tasks.find((t) => t.id === id)!;
      const successor = tasks.find((t) => t.id !== id)!;
      assert.equal(first.status, 'completed');
      assert.equal(successor.mode, 'complex');
      assert.equal(successor.source, `successor:${id}`);
      assert.equal(successor.waitingForUser, true);
      assert.deepEqual(successor.actionSets, first.actionSets);
    });

    it('pages a task event stream backwards from the tail', async () => {
      const read = { toolCalls: [{ name: 'list_files', arguments: {} }] };
      const id = await startTask(h, server, 'simple', [read, read, read, { toolCalls: [{ name: 'task_end', arguments: { summary: 's' } }] }]);
      const all = await h.agent.views.readTaskEvents(id, { limit: 1000 });
      assert.deepEqual(
        all.map((e) => e.seq),
        all.map((_, i) => i + 1),
      );
      const tail = await h.agent.views.readTaskEvents(id, { limit: 3 });
      assert.deepEqual(
        tail.map((e) => e.seq),
        [all.length - 2, all.length - 1, all.length],
      );
      const page = await h.agent.views.readTaskEvents(id, { beforeSeq: tail[0].seq, limit: 3 });
      assert.deepEqual(
        page.map((e) => e.seq),
        [all.length - 5, all.length - 4, all.length - 3],
      );
      assert.deepEqual(await h.agent.views.readTaskEvents(id, { beforeSeq: 1, limit: 3 }), []);
      assert.match(agentFile(h, 'EVENT.md'), /Task started/);
    });
  });
}

describe('engine: a long task keeps its prompt bounded', () => {
  let server: ModelServer;
  let h: Harness;
  before(async () => {
    server = await startModelServer();
  });
  after(async () => {
    await h?.close();
    await server.close();
  });

  it('drops the oldest turns from the history once it passes its size, keeping the newest', async () => {
    // Sixteen 40 KB files (a read returns at most about 24,000 characters): sixteen reads pass the 320,000-character history bound.
    const files: Record<string, string> = {};
    for (let i = 0; i < 16; i++) files[`src/big${i}.ts`] = `// file ${i} marker-${i}\n${'x'.repeat(40_000)}\n`;
    h = await createHarness({ wire: 'openai', server, files, settings: { maxActionsPerTask: 100, maxTokensPerTask: 10_000_000 } });
    const reads = Array.from({ length: 16 }, (_, i) => ({ toolCalls: [{ name: 'read_file', arguments: { path: `src/big${i}.ts` } }] }));
    await startTask(h, server, 'simple', [...reads, { toolCalls: [{ name: 'task_end', arguments: { summary: 'read them all' } }] }]);
    const last = JSON.stringify(server.requests.at(-1)!.body);
    assert.ok(last.includes('marker-15'), 'the newest tool output is missing');
    assert.ok(!last.includes('marker-0'), 'the oldest tool output is still in the prompt');
    assert.ok(last.length < 360_000, `the last request is ${last.length} characters`);
    assert.ok(last.includes('# Task: Work'), 'the stable prefix was dropped with the history');
  });
});
