// Seeds a Tasklane storage folder with a history of idle sessions through the store's own APIs
// (the extension must not be running on it): the newest are hot, the older ones are moved to the
// archive by the agent's own mover, so the sidebar has hot and archived sessions to page through.
import * as path from 'node:path';
import { Agent } from '../../../src/core/engine/agent';
import { EngineState } from '../../../src/core/engine/engineState';
import { AppendFile, EventStreams } from '../../../src/core/engine/eventLog';
import type { Clock } from '../../../src/core/ports';
import { silentLogger } from '../../../src/core/ports';
import { openStore } from '../../../src/core/store/openStore';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';

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
  const { db, triggers } = await openStore({ dir: storageDir, clock, triggers: { restartNoticeSession: false } });
  const streams = new EventStreams(path.join(storageDir, 'events'));
  const state = new EngineState(db, streams, new AppendFile(path.join(storageDir, 'EVENT.md')), clock, silentLogger);
  await state.load();
  for (let i = 0; i < count; i++) {
    clock.t += 2 * HOUR;
    const session = state.createSession({ id: `s-seed-${String(i).padStart(5, '0')}`, name: `session ${i}` });
    await state.appendMessage(session.id, 'user', special[i] ?? `question ${i}`);
    await state.appendMessage(session.id, 'assistant', `answer ${i}`);
  }
  clock.t = Date.now();
  await state.commit();
  await streams.close();
  const agent = new Agent({
    db,
    triggers,
    model: async () => {
      throw new Error('no model while seeding');
    },
    workspace: new MemoryWorkspace({}),
    clock,
    logger: silentLogger,
    storageDir,
    skillDirs: [],
    settings: () => ({ maxActionsPerTask: 10, maxTokensPerTask: 1000 }),
  });
  await agent.whenReady();
  const moved = await agent.history.moveAll(['session']);
  await agent.shutdown();
  await triggers.close();
  await db.close();
  return moved;
}
