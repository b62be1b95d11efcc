import * as assert from 'node:assert/strict';
import { toMessage } from '../../../src/core/engine/engineState';
import { presentSteps } from '../../../src/host/stepPresenter';
import { ModelError } from '../../../src/core/model/types';
import type { ModelServer } from '../../fixtures/modelServer';
import { createHarness, engineHooks, WIRES } from './harness';
import type { Harness } from './harness';

for (const wire of WIRES) {
  describe(`engine: conversation mode (${wire})`, () => {
    let server: ModelServer;
    let h: Harness;
    engineHooks(wire, { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

    it('replies through send_message, as a durable trigger turn', async () => {
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'Hi! How can I help?' } }] }]);
      const { sessionId } = await h.agent.sendMessage('hello');
      await h.idle();
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === sessionId);
      assert.ok(session);
      assert.deepEqual(
        session.messages.map((m) => [m.role, m.text]),
        [
          ['user', 'hello'],
          ['assistant', 'Hi! How can I help?'],
        ],
      );
      assert.equal(server.requests.length, 1);
      assert.equal(server.requests[0].format, wire);
      assert.ok(h.changes.some((c) => c.type === 'message' && c.message.text === 'Hi! How can I help?'));
      assert.ok(h.logger.lines.some((l) => l.includes('[REACT]') && l.includes('conversation')));
    });

    it('keeps the message and shows a retryable error when the model fails, then retries', async () => {
      server.script([{ error: { status: 401, message: 'bad key' } }]);
      const { sessionId } = await h.agent.sendMessage('are you there?');
      await h.idle();
      let session = h.agent.views.snapshot().sessions.find((s) => s.id === sessionId)!;
      assert.equal(session.messages[0].text, 'are you there?');
      const error = session.messages.find((m) => m.role === 'error');
      assert.ok(error, 'an error line is shown');
      assert.equal(error.retryable, true);
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'Yes.' } }] }]);
      await h.agent.retry(sessionId);
      await h.idle();
      session = h.agent.views.snapshot().sessions.find((s) => s.id === sessionId)!;
      assert.equal(session.messages.at(-1)?.text, 'Yes.');
      // The retried request still carries the user's message.
      assert.ok(JSON.stringify(server.requests.at(-1)?.body).includes('are you there?'));
    });

    it('invalid tool calls twice: a retryable error line whose code the page words (issue 42)', async () => {
      server.script([{ toolCalls: [{ name: 'no_such_action', arguments: {} }] }, { toolCalls: [{ name: 'send_message', arguments: '{not json' }] }]);
      const { sessionId } = await h.agent.sendMessage('hello');
      await h.idle();
      const error = h.agent.views
        .snapshot()
        .sessions.find((s) => s.id === sessionId)!
        .messages.find((m) => m.role === 'error');
      assert.ok(error, 'an error line is shown');
      assert.equal(error.retryable, true);
      // The English stays the transcript's; `said` carries the code and the calls' own account.
      assert.match(error.text, /^The model answered with invalid tool calls twice: /);
      assert.equal(error.said?.code, 'invalid_tool_calls');
      assert.ok(error.said.detail.length > 0 && error.text.endsWith(error.said.detail), error.said.detail);
      // As published to the host, which maps it for the page (src/host/viewMapping.ts).
      const stored = h.changes.find((c) => c.type === 'message' && c.message.role === 'error');
      assert.deepEqual(stored?.type === 'message' && stored.message.said, error.said);
    });

    it('the error line says how to retry, and doing what it says answers the kept message', async () => {
      server.script([{ error: { status: 401, message: 'bad key' } }]);
      const { sessionId } = await h.agent.sendMessage('what is in src/app.ts?');
      await h.idle();
      const error = h.agent.views
        .snapshot()
        .sessions.find((s) => s.id === sessionId)!
        .messages.find((m) => m.role === 'error');
      assert.match(error?.text ?? '', /send another message \("retry" will do\) and it is answered too/);
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'It exports answer.' } }] }]);
      await h.agent.sendMessage('retry', { sessionId });
      await h.idle();
      const body = JSON.stringify(server.requests.at(-1)?.body);
      assert.ok(body.includes('what is in src/app.ts?') && body.includes('retry'), 'the retried turn did not carry the kept message');
      assert.equal(
        h.agent.views
          .snapshot()
          .sessions.find((s) => s.id === sessionId)!
          .messages.at(-1)?.text,
        'It exports answer.',
      );
    });

    it('shows a missing-key error from the model factory without losing the message', async () => {
      await h.close();
      h = await createHarness({
        wire,
        server,
        model: async () => {
          throw new ModelError('missing_key', 'No API key set. Run "Tasklane: Set API Key".');
        },
      });
      const { sessionId } = await h.agent.sendMessage('hello');
      await h.idle();
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === sessionId)!;
      assert.deepEqual(
        session.messages.map((m) => m.role),
        ['user', 'error'],
      );
      assert.match(session.messages[1].text, /No API key set/);
      assert.equal(session.status, 'error');
    });

    it('starts several tasks in one turn, each with its own session and continuation', async () => {
      server.script([
        {
          toolCalls: [
            { name: 'task_start', arguments: { name: 'Read README', instruction: 'Summarise README.md', mode: 'simple' } },
            { name: 'task_start', arguments: { name: 'Read app', instruction: 'Summarise src/app.ts', mode: 'simple' } },
          ],
        },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'done A' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'done B' } }] },
      ]);
      const { sessionId } = await h.agent.sendMessage('look at the repo');
      await h.idle();
      const snap = h.agent.views.snapshot();
      assert.equal(snap.tasks.length, 2);
      assert.deepEqual(snap.tasks.map((t) => t.status).sort(), ['completed', 'completed']);
      for (const task of snap.tasks) assert.equal(task.sessionId, task.id);
      const origin = snap.sessions.find((s) => s.id === sessionId)!;
      assert.equal(origin.messages.filter((m) => m.role === 'event' && m.text.startsWith('Started task')).length, 2);
      // Each "started" line names its task (the sidebar draws the task's block there), also as
      // read back from the session's stream after a reload.
      const ids = snap.tasks.map((t) => t.id).sort();
      assert.deepEqual(origin.messages.flatMap((m) => (m.taskId ? [m.taskId] : [])).sort(), ids);
      const stored = (await h.agent.views.readTaskEvents(sessionId, { limit: 50 })).filter((e) => e.kind === 'message').map(toMessage);
      assert.deepEqual(stored.flatMap((m) => (m.taskId ? [m.taskId] : [])).sort(), ids);
      assert.equal(server.requests.length, 3);
    });

    it('lists a conversation once, with the tasks its message started nested under it', async () => {
      server.script([
        {
          toolCalls: [
            { name: 'task_start', arguments: { name: 'Read README', instruction: 'Summarise README.md', mode: 'simple' } },
            { name: 'task_start', arguments: { name: 'Read app', instruction: 'Summarise src/app.ts', mode: 'simple' } },
          ],
        },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'done A' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'done B' } }] },
      ]);
      const { sessionId } = await h.agent.sendMessage('look at the repo');
      await h.idle();
      const ids = h.agent.views
        .snapshot()
        .tasks.map((t) => t.id)
        .sort();
      // Each task keeps its own lane (the engine's model), which remembers the conversation.
      for (const id of ids) assert.equal(h.agent.views.sessionRow(id).session?.parentId, sessionId);
      const page = await h.agent.views.sessionPage();
      assert.deepEqual(
        page.sessions.map((s) => s.id),
        [sessionId],
        'one row: the conversation',
      );
      const [row] = page.sessions;
      assert.equal(row.name, 'look at the repo', 'titled by its first message');
      assert.deepEqual(row.tasks?.map((t) => t.id).sort(), ids);
      assert.equal(row.lastActivity, Math.max(...[row, ...(row.tasks ?? [])].map((s) => s.lastActivity)));
      // A change in a task's lane re-draws the conversation's row.
      const shown = h.agent.views.listRow(ids[0]);
      assert.equal(shown?.session.id, sessionId);
      assert.deepEqual(shown?.children.map((c) => c.session.id).sort(), ids);
    });

    it('keeps a task a task started in the conversation: nested in its row, drawn from its starter’s step', async () => {
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Fix the build', instruction: 'Make npm run build pass', mode: 'simple' } }] },
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Fix the tests', instruction: 'Make npm test pass', mode: 'simple' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'done' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'done' } }] },
      ]);
      const { sessionId } = await h.agent.sendMessage('fix the build');
      await h.idle();
      const tasks = h.agent.views.snapshot().tasks;
      const parent = tasks.find((t) => t.name === 'Fix the build')!;
      const child = tasks.find((t) => t.name === 'Fix the tests')!;
      assert.equal(child.source, `successor:${parent.id}`);
      // Not a conversation of its own: its lane is listed under the conversation, beside its starter.
      assert.equal(h.agent.views.sessionRow(child.id).session?.parentId, sessionId);
      const page = await h.agent.views.sessionPage();
      assert.deepEqual(
        page.sessions.map((s) => s.id),
        [sessionId],
      );
      assert.deepEqual(page.sessions[0]!.tasks?.map((t) => t.id).sort(), [parent.id, child.id].sort());
      assert.equal(h.agent.views.listRow(child.id)?.session.id, sessionId, 'a change of the sub-task re-draws the conversation’s row');
      // The conversation's transcript draws the starter's block; the starter's steps name the
      // sub-task, so the thread draws its block there (the webview nests it, thread.test.ts).
      const conversation = h.agent.views.snapshot().sessions.find((s) => s.id === sessionId)!;
      assert.deepEqual(
        conversation.messages.flatMap((m) => (m.taskId ? [m.taskId] : [])),
        [parent.id],
      );
      const steps = presentSteps(parent.id, await h.agent.views.readTaskEvents(parent.id, { limit: 100 }));
      assert.deepEqual(
        steps.filter((s) => s.kind === 'task').map((s) => [s.text.join(''), s.taskId]),
        [['Started task “Fix the tests”', child.id]],
      );
    });

    it('ignores a message when the model says so', async () => {
      server.script([{ toolCalls: [{ name: 'ignore', arguments: {} }] }]);
      const { sessionId } = await h.agent.sendMessage('thanks');
      await h.idle();
      const session = h.agent.views.snapshot().sessions.find((s) => s.id === sessionId)!;
      assert.deepEqual(
        session.messages.map((m) => m.role),
        ['user'],
      );
      assert.equal(session.status, 'idle');
    });
  });
}
