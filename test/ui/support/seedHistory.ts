// Seeds a Tasklane storage folder with a history of idle sessions through the store's own APIs
// (the extension must not be running on it): the newest are hot, the older ones are moved to the
// archive by the agent's own mover, so the sidebar has hot and archived sessions to page through.
import type { Clock } from '../../../src/core/ports';
import { openStore } from '../../../src/core/store/openStore';
import { agentWithoutModel, writeSessions } from '../../support/seedSessions';

const HOUR = 3_600_000;

class SetClock implements Clock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  setTimeout(): { cancel(): void } {
    return { cancel() {} };
  }
}

/**
 * `count` sessions named `session <i>` (0 is the oldest), one every two hours back from now, each
 * with a question and an answer; `special` gives some their own question. Returns how many
 * sessions went to the archive.
 */
export async function seedHistory(storageDir: string, count: number, special: Record<number, string> = {}): Promise<number> {
  const clock = new SetClock(Date.now() - count * 2 * HOUR);
  await writeSessions({
    storeDir: storageDir,
    storageDir,
    clock,
    count,
    id: (i) => `s-seed-${String(i).padStart(5, '0')}`,
    step: () => void (clock.t += 2 * HOUR),
    special,
  });
  clock.t = Date.now();
  const store = await openStore({ dir: storageDir, clock, triggers: { restartNoticeSession: false } });
  const agent = await agentWithoutModel(store, clock, storageDir);
  await agent.whenReady();
  const moved = await agent.history.moveAll(['session']);
  await agent.shutdown();
  await store.triggers.close();
  await store.db.close();
  return moved;
}
