import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChoreRunLog, DbRunPersistence, InMemoryRunPersistence, maxStepTextChars } from '../../../src/core/chores/runLog';
import type { ChoreRunRecord } from '../../../src/core/chores/runLog';
import { fireKey } from '../../../src/core/chores/schedule';
import { FakeClock } from '../../fakes/fakeClock';
import { openDurableDb } from '../../../src/core/store/durableDb';
import { loadSqlJs } from '../../../src/core/store/sqlJs';
import { sqlJsMemoryDb } from './choreFakes';

describe('chores: ChoreRunLog', () => {
  let clock: FakeClock;
  let persistence: InMemoryRunPersistence;
  let ids: number;
  const make = (keep = 30) => new ChoreRunLog(persistence, clock, keep, () => `run-${++ids}`);
  const key = fireKey('nightly', Date.parse('2025-03-05T02:00:00Z'));

  beforeEach(() => {
    clock = new FakeClock(1_000);
    persistence = new InMemoryRunPersistence();
    ids = 0;
  });

  it('a fire redelivered after a crash between claim and ack finds its run instead of starting a second', async () => {
    const log = make();
    const first = await log.start({ choreId: 'nightly', fireKey: key, cause: 'cron' });
    assert.equal(first.created, true);
    log.stepStarted(first.run.runId, 'read_file', { path: 'CHANGELOG.md' });
    // Crash: the trigger was claimed, never acked; the extension host restarts and reloads.
    const revived = make();
    const again = await revived.start({ choreId: 'nightly', fireKey: key, cause: 'cron' });
    assert.equal(again.created, false);
    assert.equal(again.run.runId, first.run.runId);
    assert.equal(again.run.status, 'running');
    assert.deepEqual(
      revived.active().map((r) => r.runId),
      [first.run.runId],
    );
    await revived.finish(again.run.runId, 'succeeded');
    const third = await make().start({ choreId: 'nightly', fireKey: key, cause: 'cron' });
    assert.equal(third.created, false);
    assert.equal(third.run.status, 'succeeded', 'an ended run is not run again');
    // A retry is a different attempt of the same fire.
    assert.equal((await make().start({ choreId: 'nightly', fireKey: key, attempt: 1, cause: 'retry' })).created, true);
  });

  it('updates steps in place, live, and persists the trace', async () => {
    const log = make();
    const seen: string[] = [];
    const dispose = log.onDidChange((run) => seen.push(run.steps.map((s) => `${s.name}:${s.status}`).join(',')));
    const { run } = await log.start({ choreId: 'nightly', fireKey: key, cause: 'cron' });
    const step = log.stepStarted(run.runId, 'propose_edit', { path: 'CHANGELOG.md', text: 'x'.repeat(5_000) });
    await clock.advance(250);
    log.stepEnded(run.runId, step, 'ok', { proposalId: 'p1' });
    dispose();
    log.stepStarted(run.runId, 'ignored_by_listener', {});
    assert.deepEqual(seen, ['', 'propose_edit:running', 'propose_edit:ok']);
    const stored = persistence.loadAll()[0];
    assert.equal(stored.steps.length, 2);
    assert.equal(stored.steps[0].status, 'ok');
    assert.equal(stored.steps[0].durationMs, 250);
    assert.equal(stored.steps[0].result, '{"proposalId":"p1"}');
    assert.ok(stored.steps[0].args.length < maxStepTextChars + 30, 'long arguments are clipped');
    const ended = await log.finish(run.runId, 'budget_exhausted', 'spent $1.0000 of $1');
    assert.equal(ended.steps[1].status, 'error', 'a step still running when the run ends is marked interrupted');
    assert.match(ended.steps[1].result, /interrupted/);
  });

  it('keeps a bounded history per chore, newest first, and records skipped fires', async () => {
    const log = make(3);
    for (let i = 0; i < 5; i++) {
      const { run } = await log.start({ choreId: 'nightly', fireKey: `k${i}`, cause: 'cron' });
      await clock.advance(1_000);
      await log.finish(run.runId, 'succeeded');
    }
    await log.recordSkipped({ choreId: 'other', fireKey: 'o1', cause: 'files', reason: 'run run-1 was still active (concurrency: skip)' });
    assert.deepEqual(
      log.history('nightly').map((r) => r.fireKey),
      ['k4', 'k3', 'k2'],
    );
    assert.equal(persistence.records.size, 4);
    const skipped = log.history('other')[0];
    assert.equal(skipped.status, 'skipped');
    assert.match(skipped.reason!, /concurrency: skip/);
  });
});

describe('chores: DbRunPersistence (sql.js behind the DurableDb contract)', () => {
  it('round-trips run records through the chore_runs table', async () => {
    const db = await sqlJsMemoryDb();
    const query = db.query;
    const clock = new FakeClock(5_000);
    const log = new ChoreRunLog(new DbRunPersistence(db), clock, 30, () => 'run-a');
    const { run } = await log.start({ choreId: 'c', fireKey: 'chore:c:x', cause: 'manual' });
    const s = log.stepStarted(run.runId, 'search_text', { query: 'TODO' });
    log.stepEnded(run.runId, s, 'ok', '3 matches');
    await log.finish(run.runId, 'succeeded');
    const reloaded = new ChoreRunLog(new DbRunPersistence(db), clock);
    const back = reloaded.get('run-a') as ChoreRunRecord;
    assert.equal(back.status, 'succeeded');
    assert.deepEqual(
      back.steps.map((x) => [x.name, x.status, x.result]),
      [['search_text', 'ok', '3 matches']],
    );
    assert.deepEqual(query('SELECT chore_id, fire_key, status FROM chore_runs'), [{ chore_id: 'c', fire_key: 'chore:c:x', status: 'succeeded' }]);
    await db.close();
  });

  it('writes runs into the real store and reads them back after a reopen', async () => {
    // The run log owns no DDL: this fails if the store's migrations and the log disagree.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-runlog-'));
    const clock = new FakeClock(5_000);
    try {
      const sqlJs = await loadSqlJs();
      const db = await openDurableDb({ dir, sqlJs });
      const log = new ChoreRunLog(new DbRunPersistence(db), clock, 30, () => 'run-real');
      const { run } = await log.start({ choreId: 'c', fireKey: 'chore:c:y', cause: 'manual' });
      await log.finish(run.runId, 'failed', 'no luck');
      await db.close();
      const again = await openDurableDb({ dir, sqlJs });
      const back = new ChoreRunLog(new DbRunPersistence(again), clock).get('run-real') as ChoreRunRecord;
      assert.equal(back.status, 'failed');
      assert.deepEqual(again.query('SELECT fire_key, attempt FROM chore_runs'), [{ fire_key: 'chore:c:y', attempt: 0 }]);
      await again.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
