import * as assert from 'node:assert/strict';
import initSqlJs from 'sql.js';
import type { Database } from 'sql.js';
import type { ChangeSet, ChangeSetStatus } from '../../../src/core/approval/changes/changeSet';
import { hashContent } from '../../../src/core/approval/changes/changeSet';
import { approveChangeSet, decideFile, markApplied } from '../../../src/core/approval/changes/changeSetReview';
import { DbChangeSetStore, InMemoryChangeSetStore } from '../../../src/core/approval/changes/changeSetStore';
import type { ChangeSetStore } from '../../../src/core/approval/changes/changeSetStore';
import type { Clock } from '../../../src/core/ports';
import { schemaStatements } from '../../../src/core/store/schema';
import type { DurableDb, Row, SqlValue } from '../../../src/core/store/types';

/** A DurableDb over an in-memory sql.js database that counts commits and can hold them back. */
class SqlJsTestDb implements DurableDb {
  commits = 0;
  holdCommits = false;
  private readonly held: Array<() => void> = [];
  readonly durable = true;
  constructor(readonly sql: Database) {}

  query(text: string, params: SqlValue[] = []): Row[] {
    const statement = this.sql.prepare(text);
    try {
      statement.bind(params);
      const rows: Row[] = [];
      while (statement.step()) rows.push(statement.getAsObject() as Row);
      return rows;
    } finally {
      statement.free();
    }
  }
  mutate(text: string, params: SqlValue[] = []): { changes: number } {
    this.sql.run(text, params);
    return { changes: this.sql.getRowsModified() };
  }
  transaction<T>(fn: (tx: { mutate: DurableDb['mutate']; query: DurableDb['query'] }) => T): T {
    this.sql.run('BEGIN');
    try {
      const result = fn({ mutate: (s, p) => this.mutate(s, p), query: (s, p) => this.query(s, p) });
      this.sql.run('COMMIT');
      return result;
    } catch (error) {
      this.sql.run('ROLLBACK');
      throw error;
    }
  }
  commit(): Promise<void> {
    this.commits += 1;
    if (!this.holdCommits) return Promise.resolve();
    return new Promise((resolve) => this.held.push(resolve));
  }
  releaseCommits(): void {
    for (const resolve of this.held.splice(0)) resolve();
  }
  async close(): Promise<void> {
    this.sql.close();
  }
}

let time = 5_000;
const clock: Clock = { now: () => time, setTimeout: () => ({ cancel() {} }) };

function sample(id: string, createdAt: number, overrides: Partial<ChangeSet> = {}): ChangeSet {
  return {
    id,
    taskId: 'task-a',
    sessionId: 'session-a',
    createdAt,
    status: 'pending',
    files: [{ path: 'src/a.ts', kind: 'modify', before: 'a\n', after: 'b\n', beforeHash: hashContent('a\n'), added: 1, removed: 1 }],
    ...overrides,
  };
}

async function newSqlDb(): Promise<SqlJsTestDb> {
  const SQL = await initSqlJs();
  const db = new SqlJsTestDb(new SQL.Database());
  for (const statement of schemaStatements()) db.sql.run(statement);
  return db;
}

const implementations: Array<[string, () => Promise<ChangeSetStore>]> = [
  ['InMemoryChangeSetStore', async () => new InMemoryChangeSetStore()],
  ['DbChangeSetStore', async () => new DbChangeSetStore(await newSqlDb(), clock)],
];

for (const [name, create] of implementations) {
  describe(`approval: ${name}`, () => {
    let store: ChangeSetStore;
    beforeEach(async () => {
      store = await create();
    });

    it('stores and loads a change set unchanged, including nulls and decisions', async () => {
      const set = sample('cs-1', 100, {
        files: [
          { path: 'gone.txt', kind: 'delete', before: 'x', after: null, beforeHash: hashContent('x'), added: 0, removed: 1, decision: 'reject' },
          { path: 'old.txt', kind: 'rename', newPath: 'new.txt', before: 'y', after: 'y', beforeHash: hashContent('y'), added: 0, removed: 0 },
        ],
      });
      await store.insert(set);
      assert.deepEqual(await store.load('cs-1'), set);
      assert.equal(await store.load('nope'), undefined);
    });

    it('refuses a duplicate id', async () => {
      await store.insert(sample('cs-1', 100));
      await assert.rejects(store.insert(sample('cs-1', 200)));
    });

    it('does not let callers mutate what is stored', async () => {
      const set = sample('cs-1', 100);
      await store.insert(set);
      set.files[0].after = 'tampered';
      const loaded = await store.load('cs-1');
      assert.equal(loaded?.files[0].after, 'b\n');
      if (loaded) loaded.status = 'applied';
      assert.equal((await store.load('cs-1'))?.status, 'pending');
    });

    it('lists oldest first, filtered by status, task and session', async () => {
      await store.insert(sample('c', 300));
      await store.insert(sample('a', 100, { taskId: 'task-b', sessionId: 'session-b' }));
      await store.insert(sample('b', 200, { status: 'rejected', reason: 'no' }));
      await store.insert(sample('a2', 100));
      const ids = async (filter?: Parameters<ChangeSetStore['list']>[0]) => (await store.list(filter)).map((s) => s.id);
      assert.deepEqual(await ids(), ['a', 'a2', 'b', 'c']);
      assert.deepEqual(await ids({ status: 'pending' }), ['a', 'a2', 'c']);
      assert.deepEqual(await ids({ status: ['rejected', 'stale'] }), ['b']);
      assert.deepEqual(await ids({ status: [] }), []);
      assert.deepEqual(await ids({ taskId: 'task-b' }), ['a']);
      assert.deepEqual(await ids({ sessionId: 'session-a', status: 'pending' }), ['a2', 'c']);
      assert.equal((await store.oldestPending())?.id, 'a');
    });

    it('updates only from the expected status, so a second approval of the same set loses', async () => {
      const set = sample('cs-1', 100);
      await store.insert(set);
      const outcome = await approveChangeSet(decideFile(set, 'src/a.ts', 'accept'), { read: async () => 'a\n' });
      assert.ok(outcome.ok);
      assert.equal(await store.update(outcome.changeSet, 'pending'), true);
      assert.equal(await store.update(outcome.changeSet, 'pending'), false, 'the racing approval sees it is no longer pending');
      assert.equal(await store.update(sample('missing', 1), 'pending'), false);
      const applied = markApplied(outcome.changeSet);
      assert.equal(await store.update(applied, 'approved'), true);
      const loaded = await store.load('cs-1');
      assert.equal(loaded?.status, 'applied');
      assert.equal(loaded?.files[0].decision, 'accept');
      assert.equal(await store.oldestPending(), undefined);
      assert.deepEqual(
        (await store.list({ status: 'applied' as ChangeSetStatus })).map((s) => s.id),
        ['cs-1'],
      );
    });

    it('deletes decided sets', async () => {
      await store.insert(sample('cs-1', 100));
      assert.equal(await store.delete('cs-1'), true);
      assert.equal(await store.delete('cs-1'), false);
      assert.equal(await store.load('cs-1'), undefined);
    });
  });
}

describe('approval: DbChangeSetStore on the approvals table', () => {
  it('is durable before insert and update resolve, and writes the filter columns', async () => {
    const db = await newSqlDb();
    const store = new DbChangeSetStore(db, clock);
    db.holdCommits = true;
    let inserted = false;
    const insert = store.insert(sample('cs-1', 100)).then(() => {
      inserted = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(inserted, false, 'insert waits for the commit');
    db.releaseCommits();
    await insert;
    assert.equal(db.commits, 1);

    time = 9_000;
    db.holdCommits = false;
    assert.equal(await store.update({ ...sample('cs-1', 100), status: 'rejected', reason: 'no' }, 'pending'), true);
    assert.equal(db.commits, 2);
    assert.deepEqual(db.query('SELECT id, task_id, session_id, status, created_at, updated_at FROM approvals'), [
      { id: 'cs-1', task_id: 'task-a', session_id: 'session-a', status: 'rejected', created_at: 100, updated_at: 9_000 },
    ]);
    assert.equal(await store.update({ ...sample('cs-1', 100), status: 'stale' }, 'pending'), false);
    assert.equal(db.commits, 2, 'a lost race commits nothing');
  });

  it('reports a damaged row instead of returning garbage', async () => {
    const db = await newSqlDb();
    const reported: string[] = [];
    const store = new DbChangeSetStore(db, clock, (error) => reported.push(`${error.id}:${error.field}`));
    db.mutate("INSERT INTO approvals VALUES ('bad', 't', 's', 'pending', '{\"id\":\"bad\",\"files\":7}', 1, 1)");
    await assert.rejects(
      store.load('bad'),
      /Change set bad in the approvals table is damaged \(taskId: .*expected string.*\); delete it and let the task propose the edit again/,
    );
    db.mutate("UPDATE approvals SET data = 'not json' WHERE id = 'bad'");
    // A list (the review queue) leaves the damaged set out and reports it rather than failing for all.
    assert.equal(await store.oldestPending(), undefined);
    assert.deepEqual(reported, ['bad:']);
  });
});
