import * as assert from 'node:assert/strict';
import type { ModelServer } from '../../fixtures/modelServer';
import { decodeRun } from '../../../src/core/chores/runRows';
import { decodeSession, decodeTask } from '../../../src/core/engine/durableRows';
import { DurableRowError } from '../../../src/core/store/decodeRow';
import { createHarness, engineHooks } from './harness';
import type { Harness } from './harness';

/** A task row as a release before budgets, warnings and gated action sets wrote it. */
const oldTask = (id: string, sessionId: string, extra: Record<string, unknown> = {}) => ({
  id,
  sessionId,
  name: 'Old work',
  instruction: 'Carry on',
  mode: 'simple',
  status: 'running',
  todos: [],
  actionSets: ['task', 'read'],
  selectedSkills: [],
  source: 'user',
  waitingForUser: true,
  paused: false,
  actionCount: 3,
  limits: { actions: 50, tokens: 1_000_000 },
  createdAt: 1,
  ...extra,
});

const thrown = (fn: () => unknown): DurableRowError => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof DurableRowError, `threw ${String(error)}`);
    return error;
  }
  assert.fail('did not throw');
};

describe('durable rows: decoded, never cast', () => {
  it('an old task row gets today’s defaults and gated action sets', () => {
    const task = decodeTask(JSON.stringify(oldTask('t1', 's1')));
    assert.deepEqual(task.actionSets, ['task', 'read', 'files', 'commands']);
    assert.equal(task.gatedSets, true);
    assert.deepEqual(task.usage, { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cost: 0 });
    assert.deepEqual(task.warned, { actions: false, tokens: false, cost: false });
    assert.equal(task.turns, 0);
    assert.equal(task.historyFromSeq, 0);
    assert.equal(task.actionCount, 3, 'what was stored is kept');
  });

  it('a row that does not decode names its kind, id and field', () => {
    const bad = thrown(() => decodeTask(JSON.stringify(oldTask('t-bad', 's1', { status: 'exploded' }))));
    assert.equal(bad.id, 't-bad');
    assert.equal(bad.field, 'status');
    assert.match(bad.message, /task t-bad .*status/);
    const noLimits = thrown(() => decodeTask(JSON.stringify({ ...oldTask('t2', 's1'), limits: undefined })));
    assert.equal(noLimits.field, 'limits');
    const notJson = thrown(() => decodeSession('{"id": "s', 'row-7'));
    assert.equal(notJson.id, 'row-7');
    assert.match(notJson.message, /not JSON/);
    assert.equal(thrown(() => decodeSession(JSON.stringify({ id: 's9', name: 'x', status: 'idle' }))).field, 'lastActivity');
  });

  it('unknown fields survive a decode (a newer release’s row read by this one loses nothing)', () => {
    const session = decodeSession(JSON.stringify({ id: 's1', name: 'n', status: 'idle', lastActivity: 5, future: { kept: true } }));
    assert.deepEqual((session as unknown as { future: unknown }).future, { kept: true });
  });

  it('a chore run: defaults for old records, the field at fault for damaged ones', () => {
    const run = decodeRun(JSON.stringify({ runId: 'r1', choreId: 'nightly', fireKey: 'k', cause: 'cron', startedAt: 1, status: 'succeeded' }));
    assert.deepEqual(run.steps, []);
    assert.equal(run.endedAt, null);
    assert.equal(run.usage.costUsd, 0);
    const bad = thrown(() => decodeRun(JSON.stringify({ runId: 'r2', choreId: 'nightly', fireKey: 'k', cause: 'lunar', startedAt: 1, status: 'succeeded' })));
    assert.equal(bad.field, 'cause');
  });
});

describe('durable rows: every read path gives one shape', () => {
  let server: ModelServer;
  let h: Harness;
  engineHooks('openai', { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

  it('at start an old task is upgraded, a damaged one is reported and left out; history reads the same shape', async () => {
    server.script([{ text: 'Hello.' }]);
    const { sessionId } = await h.agent.sendMessage('hi');
    await h.idle();
    await h.shutdown();
    const reopenDb = await createHarness({ wire: 'openai', server, dir: h.dir });
    const insert = (task: Record<string, unknown>) =>
      reopenDb.db.mutate('INSERT INTO tasks (id, session_id, status, data, updated_at) VALUES (?, ?, ?, ?, 1)', [
        String(task.id),
        sessionId,
        String(task.status),
        JSON.stringify(task),
      ]);
    insert(oldTask('t-old', sessionId));
    insert({ ...oldTask('t-damaged', sessionId), todos: 'not a list' });
    await reopenDb.db.commit();
    await reopenDb.shutdown();

    const again = await createHarness({ wire: 'openai', server, dir: h.dir });
    try {
      const live = again.agent.views.snapshot().tasks;
      assert.deepEqual(
        live.map((t) => t.id),
        ['t-old'],
        'the damaged row is not half-used',
      );
      assert.deepEqual(live[0].actionSets, ['task', 'read', 'files', 'commands']);
      assert.ok(
        again.logger.lines.some((line) => line.startsWith('error') && line.includes('t-damaged') && line.includes('todos')),
        again.logger.lines.join('\n'),
      );
      const found = await again.agent.history.session(sessionId);
      assert.deepEqual(
        found?.tasks.map((t) => [t.id, t.actionSets.join(',')]),
        [['t-old', 'task,read,files,commands']],
        'history reads the same upgraded shape as start-up',
      );
    } finally {
      await again.close();
    }
  });
});
