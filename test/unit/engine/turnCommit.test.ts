import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openDurableDb } from '../../../src/core/store/durableDb';
import type { JournalIo } from '../../../src/core/store/storeFiles';
import { nodeJournalIo } from '../../../src/core/store/storeFiles';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { FakeClock } from '../../fakes/fakeClock';
import { sqlJs } from '../store/helpers';
import { createHarness } from './harness';
import type { Harness } from './harness';
import { crashCopy } from './interleavingWorld';

/** The trigger rows of a crash copy's store, as a restart finds them before recovery runs. */
async function triggerRows(dir: string): Promise<Array<{ dedup: string; status: string }>> {
  const db = await openDurableDb({ dir: path.join(dir, 'store'), sqlJs: await sqlJs() });
  try {
    return db
      .query(`SELECT dedup_key, status FROM triggers WHERE dedup_key LIKE 'start:%' OR dedup_key LIKE 'cont:%' ORDER BY rowid`)
      .map((row) => ({ dedup: String(row.dedup_key).replace(/:t-[^:]+/, ':T'), status: String(row.status) }));
  } finally {
    await db.close();
  }
}

describe('engine: a task turn is acked exactly when its continuation is durable', function () {
  this.timeout(30_000);
  let server: ModelServer;
  let h: Harness | undefined;
  const made: string[] = [];
  before(async () => (server = await startModelServer()));
  after(async () => server.close());
  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a crash just before or just after the turn’s one durable write keeps neither or both', async () => {
    // The storage as a killed process leaves it, copied on either side of the journal write that
    // queues the first task turn's continuation (its dedup key ends in `:1:next`).
    const copies: { before?: string; after?: string } = {};
    let dir = '';
    const io: JournalIo = {
      ...nodeJournalIo,
      async write(fd, data, position) {
        const boundary = !copies.after && /"cont:t-[^"]*:1:next"/.test(data.toString('utf8'));
        if (boundary) copies.before = crashCopy(dir);
        await nodeJournalIo.write(fd, data, position);
        if (boundary) copies.after = crashCopy(dir);
      },
      fdatasync: nodeJournalIo.fdatasync,
    };
    const clock = new FakeClock();
    h = await createHarness({ wire: 'openai', server, clock, journalIo: io });
    dir = h.dir;
    server.script([
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Read', instruction: 'Read the repo', mode: 'simple' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'src/app.ts' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'read both' } }] },
    ]);
    await h.agent.sendMessage('read the repo');
    await h.idle();
    await h.close();
    h = undefined;
    assert.ok(copies.before && copies.after, 'the write that queues turn 1’s continuation was seen');
    made.push(copies.before, copies.after);

    // Before the write: the turn's trigger is still claimed and no continuation exists.
    assert.deepEqual(await triggerRows(copies.before), [{ dedup: 'start:T', status: 'claimed' }]);
    // After it: the turn's trigger is acked and its continuation pending, in the same record.
    assert.deepEqual(await triggerRows(copies.after), [
      { dedup: 'start:T', status: 'done' },
      { dedup: 'cont:T:1:next', status: 'pending' },
    ]);

    // Restarted from "before", the turn is re-delivered and the task goes on from it, once.
    server.reset();
    server.script([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'src/app.ts' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'read both' } }] },
    ]);
    h = await createHarness({ wire: 'openai', server, clock, dir: copies.before });
    await h.idle();
    assert.equal(server.requests.length, 3);
    assert.equal(h.agent.views.snapshot().tasks[0]?.status, 'completed');
    await h.close();

    // Restarted from "after", turn 1 is not run again: the continuation runs turn 2.
    server.reset();
    server.script([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'src/app.ts' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'read both' } }] },
    ]);
    h = await createHarness({ wire: 'openai', server, clock, dir: copies.after });
    assert.deepEqual(h.triggers.recovery.redelivered, []);
    await h.idle();
    assert.equal(server.requests.length, 2);
    assert.equal(h.agent.views.snapshot().tasks[0]?.status, 'completed');
  });
});
