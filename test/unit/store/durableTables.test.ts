import * as assert from 'node:assert/strict';
import { Ledger } from '../../../src/core/actions/ledger';
import { DbChangeSetStore } from '../../../src/core/approval/changes/changeSetStore';
import type { ChangeSet } from '../../../src/core/approval/changes/changeSet';
import { DbCommandApprovalStore } from '../../../src/core/approval/commands/commandApproval';
import type { CommandApproval } from '../../../src/core/approval/commands/commandApproval';
import { DbSchedulePersistence } from '../../../src/core/chores/schedulePersistence';
import { ChoreSpendLedger, DbSpendPersistence } from '../../../src/core/chores/spendLedger';
import { readCursor } from '../../../src/core/memory/distiller';
import { DbPlannerPersistence } from '../../../src/core/planner/planner';
import { DurableRowError } from '../../../src/core/store/decodeRow';
import type { DurableDb } from '../../../src/core/store/types';
import { FakeClock } from '../../fakes/fakeClock';
import { sqlJsMemoryDb } from '../chores/choreFakes';

/** Collects what a store reports, as the engine logs it. */
function reports(): { errors: DurableRowError[]; report: (error: DurableRowError) => void } {
  const errors: DurableRowError[] = [];
  return { errors, report: (error) => errors.push(error) };
}

const changeSet = (id: string, extra: Record<string, unknown> = {}): ChangeSet =>
  ({
    id,
    taskId: 't1',
    sessionId: 's1',
    createdAt: 1,
    status: 'pending',
    files: [{ path: 'a.ts', kind: 'modify', before: 'a', after: 'b', beforeHash: 'h', added: 1, removed: 1 }],
    ...extra,
  }) as ChangeSet;

const approval = (id: string, extra: Record<string, unknown> = {}): CommandApproval =>
  ({
    id,
    taskId: 't1',
    sessionId: 's1',
    kind: 'command',
    command: 'npm test',
    reason: 'check',
    timeoutMs: 1000,
    status: 'pending',
    createdAt: 1,
    ...extra,
  }) as CommandApproval;

function setMeta(db: DurableDb, key: string, value: string): void {
  db.mutate('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [key, value]);
}

describe('durable tables: a damaged row is reported with its id and field, never half-used', () => {
  let db: DurableDb;
  let clock: FakeClock;
  beforeEach(async () => {
    db = await sqlJsMemoryDb();
    clock = new FakeClock();
  });

  it('ledger: a wrong status or unreadable intent leaves that entry out; the others are listed', async () => {
    const { errors, report } = reports();
    const ledger = new Ledger(db, clock, report);
    const good = await ledger.intent('t1', 'apply_edit', { files: 1 });
    const insert = (id: string, status: string, intent: string, outcome: string | null) =>
      db.mutate('INSERT INTO ledger (id, task_id, action, status, intent, outcome, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, 1)', [
        id,
        't1',
        'apply_edit',
        status,
        intent,
        outcome,
      ]);
    insert('l-bad-json', 'intent', '{"files": ', null);
    insert('l-bad-status', 'exploded', '{}', null);
    insert('l-bad-outcome', 'done', '{}', 'not json');
    assert.deepEqual(
      ledger.unresolved().map((e) => e.id),
      [good],
    );
    assert.deepEqual(
      ledger.entries('t1').map((e) => [e.id, e.intent]),
      [[good, { files: 1 }]],
    );
    const named = errors.map((e) => `${e.id}:${e.field}`);
    assert.ok(named.includes('l-bad-json:intent'), named.join(', '));
    assert.ok(named.includes('l-bad-status:status'), named.join(', '));
    assert.ok(named.includes('l-bad-outcome:outcome'), named.join(', '));
    assert.match(errors.find((e) => e.id === 'l-bad-json')!.message, /ledger entry l-bad-json .*intent.*not JSON/);
  });

  it('change sets: a list leaves a damaged set out and names it; loading it by id says which field', async () => {
    const { errors, report } = reports();
    const store = new DbChangeSetStore(db, clock, report);
    await store.insert(changeSet('cs-old'));
    await store.insert(changeSet('cs-good', { createdAt: 2 }));
    // A file whose added count is text, and a row that is not JSON at all.
    db.mutate('UPDATE approvals SET data = ? WHERE id = ?', [
      JSON.stringify({ ...changeSet('cs-old'), files: [{ ...changeSet('x').files[0], added: 'one' }] }),
      'cs-old',
    ]);
    await store.insert(changeSet('cs-torn', { createdAt: 3 }));
    db.mutate("UPDATE approvals SET data = '{\"id\":' WHERE id = 'cs-torn'");
    assert.deepEqual(
      (await store.list()).map((s) => s.id),
      ['cs-good'],
    );
    assert.equal((await store.oldestPending())?.id, 'cs-good', 'a damaged older set does not block the review of the next');
    assert.deepEqual(
      errors.map((e) => `${e.id}:${e.field}`),
      ['cs-old:files.0.added', 'cs-torn:', 'cs-old:files.0.added'],
    );
    await assert.rejects(store.load('cs-old'), /Change set cs-old in the approvals table is damaged \(files\.0\.added: .*expected number/);
  });

  it('command approvals: a damaged row is left out of the list with its id and field', async () => {
    const { errors, report } = reports();
    const store = new DbCommandApprovalStore(db, clock, report);
    await store.insert(approval('ca-good'));
    await store.insert(approval('ca-bad'));
    db.mutate('UPDATE command_approvals SET data = ? WHERE id = ?', [JSON.stringify({ ...approval('ca-bad'), timeoutMs: 'soon' }), 'ca-bad']);
    await store.insert(approval('ca-torn'));
    db.mutate("UPDATE command_approvals SET data = 'nope' WHERE id = 'ca-torn'");
    assert.deepEqual(
      (await store.list('pending')).map((a) => a.id),
      ['ca-good'],
    );
    assert.deepEqual(
      errors.map((e) => `${e.id}:${e.field}`),
      ['ca-bad:timeoutMs', 'ca-torn:'],
    );
    await assert.rejects(store.load('ca-bad'), /command approval ca-bad .*timeoutMs/);
  });

  it('chore schedules: a record with a wrong type or bad JSON is reported and restarts alone', () => {
    const { errors, report } = reports();
    const persistence = new DbSchedulePersistence(db, () => clock.now(), report);
    persistence.save({ choreId: 'good', cronKey: '0 2 * * *|UTC', cursor: 5, outstanding: [6], nextFireAt: 7 });
    persistence.save({ choreId: 'bad-cursor', cronKey: 'k', cursor: 1, outstanding: [], nextFireAt: null });
    db.mutate('UPDATE chores SET data = ? WHERE id = ?', [JSON.stringify({ cronKey: 'k', cursor: 'yesterday' }), 'bad-cursor']);
    persistence.save({ choreId: 'torn', cronKey: 'k', cursor: 1, outstanding: [], nextFireAt: null });
    db.mutate("UPDATE chores SET data = '{' WHERE id = 'torn'");
    persistence.save({ choreId: 'bad-next', cronKey: 'k', cursor: 1, outstanding: [], nextFireAt: null });
    db.mutate("UPDATE chores SET next_fire_at = 'soon' WHERE id = 'bad-next'");
    assert.deepEqual(persistence.loadAll(), [{ choreId: 'good', cronKey: '0 2 * * *|UTC', cursor: 5, outstanding: [6], nextFireAt: 7 }]);
    assert.deepEqual(errors.map((e) => `${e.kind}:${e.id}:${e.field}`).sort(), [
      'chore schedule:bad-cursor:data.cursor',
      'chore schedule:bad-next:next_fire_at',
      'chore schedule:torn:data',
    ]);
  });

  it('spend ledger: a damaged row is reported with its field and the ledger starts over instead of using half of it', () => {
    const { errors, report } = reports();
    setMeta(db, 'chore_spend', JSON.stringify({ days: { '2026-01-05': { a: 2 } }, months: { '2026-01': { a: 'lots' } }, paused: {} }));
    const ledger = new ChoreSpendLedger(new DbSpendPersistence(db, report), () => clock.now());
    assert.deepEqual(ledger.spent('a'), { day: 0, month: 0 }, 'the day total of the damaged row is not used');
    assert.deepEqual(
      errors.map((e) => `${e.id}:${e.field}`),
      ['chore_spend:value.months.2026-01.a'],
    );
    setMeta(db, 'chore_spend', '{"days":');
    new DbSpendPersistence(db, report).load();
    assert.match(errors[1]!.message, /chore spend ledger chore_spend .*value.*not JSON/);
  });

  it('planner state and the memory cursor: a wrong type is named; the planner starts over, the cursor read fails with it', () => {
    const { errors, report } = reports();
    setMeta(db, 'planner', JSON.stringify({ lastRunAt: 'noon', suggestions: [] }));
    assert.equal(new DbPlannerPersistence(db, report).load(), undefined);
    assert.deepEqual(
      errors.map((e) => `${e.kind}:${e.field}`),
      ['planner state:value.lastRunAt'],
    );
    setMeta(db, 'memory:cursor', JSON.stringify({ offset: 'far', lastRunAt: 1 }));
    assert.throws(
      () => readCursor(db),
      (error: unknown) => error instanceof DurableRowError && error.field === 'value.offset',
    );
    setMeta(db, 'memory:cursor', JSON.stringify({ offset: 12 }));
    assert.deepEqual(readCursor(db), { offset: 12, lastRunAt: 0 }, 'an older cursor gets its default');
  });
});
