import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineState } from '../../../src/core/engine/engineState';
import { AppendFile, EventStreams } from '../../../src/core/engine/eventLog';
import { SessionPages } from '../../../src/core/engine/sessionPages';
import type { SessionCursor } from '../../../src/core/engine/sessionPages';
import { Archive } from '../../../src/core/store/archive';
import { openDurableDb } from '../../../src/core/store/durableDb';
import { silentLogger } from '../../../src/core/ports';
import { FakeClock } from '../../fakes/fakeClock';
import { sqlJs } from '../store/helpers';

const DAY = 86_400_000;

/**
 * The sidebar's session list pages over hot sessions and the archive while the person scrolls
 * and the agent keeps working: sessions are created, become active again, and move to the
 * archive between pages. Seeded and replayable (SEED=n).
 */
describe('engine: session list pages', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-pages-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (let run = 0; run < 3; run++) {
    it(`no session is shown twice or skipped across pages while sessions arrive, wake and archive (run ${run})`, async () => {
      const seed = Number(process.env.SEED ?? (Date.now() + run * 7919) % 1_000_000) || 1;
      let x = seed;
      const random = () => (x = (x * 48271) % 2147483647) / 2147483647;
      const clock = new FakeClock(Date.UTC(2026, 0, 1));
      const db = await openDurableDb({ dir: path.join(dir, `store-${run}`), sqlJs: await sqlJs(), clock });
      const state = new EngineState(
        db,
        new EventStreams(path.join(dir, `events-${run}`)),
        new AppendFile(path.join(dir, `EVENT-${run}.md`)),
        clock,
        silentLogger,
      );
      await state.load();
      const archive = new Archive({
        db,
        dir: path.join(dir, `archive-${run}`),
        clock,
        logger: silentLogger,
        onMoved: (kind, ids) => {
          if (kind !== 'session') return;
          for (const id of ids) state.forgetSession(id);
          pages.invalidate();
        },
      });
      const pages = new SessionPages({ state, archive });
      let n = 0;
      const create = () => {
        // Several sessions may share a millisecond: the id breaks the tie.
        if (random() < 0.7) void clock.advance(Math.floor(random() * 3 * DAY));
        return state.createSession({ id: `s-${String(n++).padStart(5, '0')}`, name: `session ${n}` });
      };
      for (let i = 0; i < 150 + Math.floor(random() * 150); i++) create();
      // Part of the history is in the archive already.
      while (archive.moveBatch('session', 1 + Math.floor(random() * 40)) > 0 && random() < 0.8);
      await db.commit();
      const initial = new Set([...state.sessions.keys(), ...archive.records('session').map((r) => r.id)]);
      assert.ok(initial.size >= 150);

      const shown: string[] = [];
      const woke = new Set<string>();
      let cursor: SessionCursor | undefined;
      let previous: { lastActivity: number; id: string } | undefined;
      for (let page = 0; page < 10_000; page++) {
        const { sessions, hasMore } = pages.page(cursor, 1 + Math.floor(random() * 12));
        for (const s of sessions) {
          if (previous)
            assert.ok(
              s.lastActivity < previous.lastActivity || (s.lastActivity === previous.lastActivity && s.id < previous.id),
              `seed ${seed}: ${s.id} is out of order`,
            );
          previous = s;
          shown.push(s.id);
        }
        if (!hasMore) break;
        cursor = { at: sessions[sessions.length - 1].lastActivity, id: sessions[sessions.length - 1].id };
        // Meanwhile: new sessions, a session becoming active again, an archive pass.
        const roll = random();
        if (roll < 0.3) for (let k = 0; k < 1 + Math.floor(random() * 4); k++) create();
        else if (roll < 0.5) {
          const hot = [...state.sessions.values()];
          const session = hot[Math.floor(random() * hot.length)];
          if (session) {
            await clock.advance(1000);
            woke.add(session.id);
            state.saveSession({ ...session, lastActivity: clock.now() });
          }
        } else if (roll < 0.7) {
          await clock.advance(8 * DAY);
          archive.moveBatch('session', 1 + Math.floor(random() * 30));
          await db.commit();
        }
      }
      const counts = new Map<string, number>();
      for (const id of shown) counts.set(id, (counts.get(id) ?? 0) + 1);
      const twice = [...counts].filter(([, c]) => c > 1).map(([id]) => id);
      assert.deepEqual(twice, [], `seed ${seed}: shown twice`);
      const skipped = [...initial].filter((id) => !counts.has(id) && !woke.has(id));
      assert.deepEqual(skipped, [], `seed ${seed}: skipped (neither shown nor active again, which shows it on top)`);
      await db.close();
    });
  }
});
