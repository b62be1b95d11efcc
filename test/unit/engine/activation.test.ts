import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineState } from '../../../src/core/engine/engineState';
import { AppendFile, EventStreams } from '../../../src/core/engine/eventLog';
import { openDurableDb } from '../../../src/core/store/durableDb';
import { silentLogger } from '../../../src/core/ports';
import { FakeClock } from '../../fakes/fakeClock';
import { sqlJs } from '../store/helpers';

const SESSIONS = 300;

/** Builds a storage folder with `SESSIONS` sessions, each with a transcript and some events. */
async function prepare(dir: string): Promise<void> {
  const clock = new FakeClock();
  const db = await openDurableDb({ dir: path.join(dir, 'store'), sqlJs: await sqlJs(), clock });
  const streams = new EventStreams(path.join(dir, 'agent', 'events'));
  const state = new EngineState(db, streams, new AppendFile(path.join(dir, 'agent', 'EVENT.md')), clock, silentLogger);
  await state.load();
  for (let i = 0; i < SESSIONS; i++) {
    const session = state.createSession({ id: `s-${i}`, name: `session ${i}` });
    await streams.appendMany(
      session.id,
      Array.from({ length: 40 }, (_, k) =>
        k % 4 === 0
          ? { kind: 'message' as const, data: { role: 'user', text: `m${i}.${k}`, at: k }, at: k }
          : { kind: 'warning' as const, data: { text: 'x'.repeat(200) }, at: k },
      ),
    );
    await state.commit();
  }
  await streams.close();
  await db.close();
}

describe('engine: activation cost follows live work, not history', function () {
  this.timeout(60_000);
  let dir: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-activation-'));
    await prepare(dir);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(`starts with ${SESSIONS} sessions under ulimit -n 64 and holds no descriptor per session`, () => {
    const worker = path.join(__dirname, 'fixtures', 'activationWorker.ts');
    const run = spawnSync('bash', ['-c', `ulimit -n 64 && exec "${process.execPath}" --require tsx/cjs "${worker}" "${dir}"`], {
      encoding: 'utf8',
      timeout: 50_000,
    });
    assert.equal(run.status, 0, `the worker failed under ulimit -n 64:\n${run.stderr}`);
    const result = JSON.parse(run.stdout.trim().split('\n').pop()!) as {
      sessions: number;
      withMessages: number;
      opened: string[];
      found: string[];
      page: number[];
      fdsReady: number;
      streamFdsReady: number;
      streamFdsAfterRead: number;
      fdsAfterSearch: number;
    };
    assert.equal(result.sessions, SESSIONS);
    assert.equal(result.withMessages, 0, 'activation reads no transcript: each is read when first needed');
    assert.deepEqual(result.opened, ['m0.32', 'm0.36'], 'opening a session reads its tail');
    assert.deepEqual(result.found, ['s-299'], 'a search reads every hot tail, under the same descriptor limit');
    assert.ok(result.fdsAfterSearch < 40, `open descriptors after reading all ${SESSIONS} tails: ${result.fdsAfterSearch}`);
    assert.deepEqual(result.page, [36, 37, 38, 39, 40]);
    assert.ok(result.fdsReady < 40, `open descriptors after ready: ${result.fdsReady}`);
    assert.equal(result.streamFdsReady, 0, 'no session stream is held open at ready');
    assert.equal(result.streamFdsAfterRead, 0, 'reading a page leaves no stream file open');
  });
});
