import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineState, TRANSCRIPT_LINES } from '../../../src/core/engine/engineState';
import { AppendFile, EventStreams } from '../../../src/core/engine/eventLog';
import { openDurableDb } from '../../../src/core/store/durableDb';
import { silentLogger } from '../../../src/core/ports';
import { FakeClock } from '../../fakes/fakeClock';
import { sqlJs } from '../store/helpers';

/** A transcript tail is read on first need; lines appended while it is read are neither lost nor doubled. */
describe('engine: transcript tails read on demand', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-transcripts-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const open = async (clock: FakeClock) => {
    const db = await openDurableDb({ dir: path.join(dir, 'store'), sqlJs: await sqlJs(), clock });
    const streams = new EventStreams(path.join(dir, 'events'));
    const state = new EngineState(db, streams, new AppendFile(path.join(dir, 'EVENT.md')), clock, silentLogger);
    await state.load();
    return { db, streams, state };
  };

  it('loads nothing at start, then the tail once; appends racing the read land exactly once (seeded)', async () => {
    const seed = Number(process.env.SEED ?? Date.now() % 100_000);
    let x = seed || 1;
    const random = () => (x = (x * 48271) % 2147483647) / 2147483647;
    const clock = new FakeClock();
    const first = await open(clock);
    const sessions = ['s-a', 's-b', 's-c'];
    for (const id of sessions) {
      first.state.createSession({ id, name: id });
      for (let i = 0; i < 20 + Math.floor(random() * 150); i++) await first.state.appendMessage(id, 'user', `${id} old ${i}`);
    }
    await first.state.commit();
    await first.streams.close();
    await first.db.close();

    for (let round = 0; round < 8; round++) {
      const { db, streams, state } = await open(clock);
      for (const id of sessions) assert.equal(state.hasTranscript(id), false, `seed ${seed}: no tail is read at load`);
      // Reads and appends started in a random order, without waiting for each other.
      const work: Array<Promise<unknown>> = [];
      for (let op = 0; op < 30; op++) {
        const id = sessions[Math.floor(random() * sessions.length)];
        if (random() < 0.3) work.push(state.loadTranscript(id));
        else work.push(state.appendMessage(id, 'assistant', `${id} r${round} ${op}`));
        if (random() < 0.3) await new Promise((resolve) => setImmediate(resolve));
      }
      await Promise.all(work);
      for (const id of sessions) {
        const stored = (await streams.tail(id, 'message', TRANSCRIPT_LINES, 10_000)).map((e) => String(e.data.text));
        const shown = (await state.loadTranscript(id)).map((m) => m.text);
        assert.deepEqual(shown, stored, `seed ${seed}, round ${round}, ${id}: the tail in memory is the stream's`);
      }
      await state.commit();
      await streams.close();
      await db.close();
    }
  });
});
