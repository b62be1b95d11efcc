import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeClock } from '../../fakes/fakeClock';
import { createHarness } from './harness';
import type { Harness } from './harness';

const DAY = 86_400_000;

function noModel(): never {
  throw new Error('no model in this test');
}

describe('engine: history (archive pass, retention, search, export)', function () {
  this.timeout(30_000);
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ wire: 'openai', server: undefined as never, model: async () => noModel(), clock: new FakeClock(Date.UTC(2026, 5, 1)) });
  });
  afterEach(async () => h.close());

  it('retention removes exactly what its rules say, and the archive pass moves exactly the rows past their age', async () => {
    const { db, clock } = h;
    const now = clock.now();
    // Trigger history: lines settled 8 and 6 days ago (rule: 7 days).
    const historyFile = path.join(h.dir, 'store', 'history', 'triggers.jsonl');
    fs.mkdirSync(path.dirname(historyFile), { recursive: true });
    fs.writeFileSync(
      historyFile,
      [
        JSON.stringify({ id: 'old', status: 'done', doneAt: now - 8 * DAY }),
        JSON.stringify({ id: 'edge', status: 'done', doneAt: now - 7 * DAY + 1 }),
        JSON.stringify({ id: 'new', status: 'cancelled', doneAt: now - 6 * DAY }),
        '',
      ].join('\n'),
    );
    // Scratch dirs: a dead task's old dir goes; a fresh one (a task starting) and a live task's stay.
    const scratch = path.join(h.dir, 'agent', 'scratch');
    for (const name of ['dead-old', 'dead-fresh', 'live']) fs.mkdirSync(path.join(scratch, name), { recursive: true });
    fs.writeFileSync(path.join(scratch, 'dead-old', 'f.txt'), 'x');
    const old = new Date(now - 2 * 60 * 60_000);
    for (const name of ['dead-old', 'live']) fs.utimesSync(path.join(scratch, name), old, old);
    fs.utimesSync(path.join(scratch, 'dead-fresh'), new Date(now - 10 * 60_000), new Date(now - 10 * 60_000));
    db.mutate("INSERT INTO sessions (id, status, data, updated_at) VALUES ('live', 'working', ?, ?)", [
      JSON.stringify({ id: 'live', name: 'live', status: 'working', lastActivity: now, usage: {} }),
      now,
    ]);
    db.mutate("INSERT INTO tasks (id, session_id, status, data, updated_at) VALUES ('live', 'live', 'running', ?, ?)", [
      JSON.stringify({
        id: 'live',
        sessionId: 'live',
        status: 'running',
        name: 'live',
        instruction: '',
        createdAt: now,
        limits: { actions: 50, tokens: 1_000_000 },
      }),
      now,
    ]);
    // Ledger outcomes 31 and 29 days old (rule: 30), and an open intent (never moves).
    for (const [id, status, age] of [
      ['l-31', 'done', 31],
      ['l-29', 'done', 29],
      ['l-intent', 'intent', 90],
    ] as const) {
      db.mutate('INSERT INTO ledger (id, task_id, action, status, intent, outcome, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        id,
        't',
        'post',
        status,
        '{}',
        status === 'done' ? 'ok' : null,
        now - age * DAY,
        now - age * DAY,
      ]);
    }
    // Sessions idle 8 and 6 days (rule: 7), and one idle 8 days with a dead letter (kept hot).
    for (const [id, age] of [
      ['s-8', 8],
      ['s-6', 6],
      ['s-dead', 8],
    ] as const) {
      db.mutate("INSERT INTO sessions (id, status, data, updated_at) VALUES (?, 'idle', ?, ?)", [
        id,
        JSON.stringify({ id, name: `session ${id}`, status: 'idle', lastActivity: now - age * DAY, usage: {} }),
        now - age * DAY,
      ]);
    }
    db.mutate(
      "INSERT INTO triggers (id, source, session_id, payload, fire_at, priority, attempts, status, created_at, last_error) VALUES ('d1', 'memory', 's-dead', '{}', 0, 100, 5, 'dead', 0, 'boom')",
    );
    await db.commit();

    // The live task must be known to the engine for its scratch dir to count as live: reopen.
    await h.shutdown();
    h = await createHarness({ wire: 'openai', server: undefined as never, model: async () => noModel(), clock, dir: h.dir });
    const { moved, retention } = await h.agent.history.runPass();

    const history = fs
      .readFileSync(historyFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; doneAt: number });
    // The start-up triggers settled just now stay too.
    assert.deepEqual(
      history.filter((l) => l.doneAt < now - DAY).map((l) => l.id),
      ['edge', 'new'],
    );
    assert.equal(retention.triggerHistoryLines, 1);
    assert.deepEqual(retention.scratchDirs, ['dead-old']);
    assert.deepEqual(fs.readdirSync(scratch).sort(), ['dead-fresh', 'live']);
    assert.deepEqual(
      h.db.query('SELECT id FROM ledger ORDER BY id').map((r) => r.id),
      ['l-29', 'l-intent'],
    );
    assert.deepEqual(
      h.db.query('SELECT id FROM sessions ORDER BY id').map((r) => r.id),
      ['live', 's-6', 's-dead'],
    );
    assert.equal(moved, 2);
    assert.equal(h.agent.views.sessionRow('s-8').session, undefined, 'the archived session left the sidebar list');
    assert.ok(h.agent.views.sessionRow('s-6').session);

    // Dead letters in bulk: dismissed ones leave the db and go to the trigger history as dismissed.
    assert.equal(await h.agent.deadLetters.dismiss(), 1);
    assert.deepEqual(h.triggers.deadLetters(), []);
    await h.triggers.close();
    assert.match(fs.readFileSync(historyFile, 'utf8'), /"id":"d1".*"status":"dismissed"/);
  });

  it('search finds archived and hot sessions and tasks; export writes the full trace as JSONL and Markdown', async () => {
    const { db, clock, agent } = h;
    const { sessionId } = await agent.sendMessage('How do I configure the Zeppelin bundler?');
    await h.idle();
    const session = db.query('SELECT data FROM sessions WHERE id = ?', [sessionId]);
    assert.equal(session.length, 1);
    // Make it idle and old, as a session from 11 months ago would be, then let the pass archive it.
    db.mutate("UPDATE sessions SET status = 'idle', updated_at = ? WHERE id = ?", [clock.now() - 330 * DAY, sessionId]);
    db.mutate('DELETE FROM triggers WHERE session_id = ?', [sessionId]);
    await db.commit();
    assert.equal((await agent.history.runPass()).moved, 1);
    assert.equal(db.query('SELECT id FROM sessions WHERE id = ?', [sessionId]).length, 0);
    const hits = await agent.history.search('zeppelin');
    assert.deepEqual(
      hits.map((x) => [x.kind, x.sessionId, x.archived]),
      [['session', sessionId, true]],
    );
    const opened = await agent.history.session(sessionId);
    assert.equal(opened?.archived, true);
    const page = await agent.views.readTaskEvents(sessionId, { limit: 2 });
    assert.ok(page.length > 0 && page.some((e) => e.kind === 'message'));
    const out = path.join(h.dir, 'export');
    const result = await agent.views.exportSession(sessionId, out);
    const lines = fs
      .readFileSync(result.jsonl, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines[0].type, 'session');
    assert.equal(lines.at(-1).type, 'usage');
    assert.ok(lines.some((l) => l.type === 'event' && l.event.data.text === 'How do I configure the Zeppelin bundler?'));
    assert.match(fs.readFileSync(result.markdown, 'utf8'), /\*\*user\*\*: How do I configure the Zeppelin bundler\?/);
    await assert.rejects(agent.views.exportSession('s-nope', out), /not found/);
  });
});
