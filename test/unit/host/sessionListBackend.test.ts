import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStore } from '../../../src/core/store/openStore';
import { openSession, sessionPage } from '../../../src/host/sessionListBackend';
import { parseParams } from '../../../src/shared/sidebarSchemas';
import { FakeClock } from '../../fakes/fakeClock';
import { agentWithoutModel, writeSessions } from '../../support/seedSessions';

const DAY = 86_400_000;
const SESSIONS = 130;

/** The conversation pages (the History pick) and a conversation's opening (the Chat view), by a real agent over a real store and archive. */
describe('host: conversation pages for History, and opening one in the Chat view', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-sessionlist-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('validates the requests', () => {
    assert.throws(() => parseParams('sessions.open', { sessionId: '' }));
  });

  it('pages newest first across hot and archived sessions, opens an archived one, and the search finds it', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const storageDir = path.join(dir, 'agent');
    await writeSessions({
      storeDir: path.join(dir, 'store'),
      storageDir,
      clock,
      count: SESSIONS,
      id: (i) => `s-${String(i).padStart(3, '0')}`,
      step: () => clock.advance(DAY / 10),
      special: { 3: 'where does the walrus config live?' },
    });
    const store = await openStore({ dir: path.join(dir, 'store'), clock, triggers: { restartNoticeSession: false } });
    const agent = await agentWithoutModel(store, clock, storageDir);
    try {
      await agent.whenReady();
      // The oldest sessions have been idle for over a week: archive them.
      const removals: Array<{ sessionId: string; archived?: boolean }> = [];
      const sub = agent.views.onDidChange((c) => void (c.type === 'sessionRemoved' && removals.push(c)));
      const moved = await agent.history.moveAll(['session']);
      sub.dispose();
      assert.ok(moved > 50, `archived ${moved}`);
      // The sidebar keeps an archived session's row: the change says it was archived, not deleted.
      assert.ok(removals.length > 0 && removals.every((r) => r.archived === true), JSON.stringify(removals.slice(0, 3)));
      const seen: string[] = [];
      let after: { at: number; id: string } | undefined;
      let archivedSeen = 0;
      for (let page = 0; page < 20; page++) {
        const answer = await sessionPage(agent, after);
        assert.ok(answer.sessions.length <= 50);
        seen.push(...answer.sessions.map((s) => s.id));
        archivedSeen += answer.sessions.filter((s) => s.archived).length;
        if (!answer.hasMore) break;
        const last = answer.sessions[answer.sessions.length - 1];
        after = { at: last.lastActivity, id: last.id };
      }
      const expected = Array.from({ length: SESSIONS }, (_, i) => `s-${String(SESSIONS - 1 - i).padStart(3, '0')}`);
      assert.deepEqual(seen, expected, 'every session once, newest first');
      assert.equal(archivedSeen, moved);

      const opened = await openSession(agent, 's-003');
      assert.equal(opened.session.archived, true);
      assert.deepEqual(
        opened.messages.map((m) => m.text),
        ['where does the walrus config live?', 'answer 3'],
      );
      await assert.rejects(openSession(agent, 's-nope'), /no session s-nope/);
    } finally {
      await agent.shutdown();
      await store.triggers.close();
      await store.db.close();
    }
  });
});
