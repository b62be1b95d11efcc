import * as assert from 'node:assert/strict';
import type { SessionSummary } from '../../../src/shared/protocol';
import { conversationItems } from '../../../src/host/conversationPicks';
import type { PickWords } from '../../../src/host/conversationPicks';

const words: PickWords = {
  waitingSection: 'Waiting for you',
  today: 'Today',
  yesterday: 'Yesterday',
  older: 'Older',
  waiting: 'waiting for you',
  archived: 'archived',
  tasks: (n) => `${n} tasks`,
};

const HOUR = 60 * 60 * 1000;
const session = (id: string, name: string, lastActivity: number, over: Partial<SessionSummary> = {}): SessionSummary => ({
  id,
  name,
  status: 'idle',
  lastActivity,
  waitingForUser: false,
  pendingApprovals: 0,
  ...over,
});

/** The History title action lists conversations in a native quick pick, as Copilot's chat history does. */
describe('host: the conversation picker (History title action)', () => {
  // Noon, local time, so "today" and "yesterday" do not depend on when the test runs.
  const now = new Date(2026, 11, 6, 12, 0, 0).getTime();

  it('lists conversations newest first under Today / Yesterday / Older, each with what waits, its tasks and archive', () => {
    const task = session('t-1', 'Add greetAll', now - HOUR, { parentId: 'c-1', pendingApprovals: 1 });
    const items = conversationItems(
      [
        session('c-old', 'rename the exports', now - 5 * 24 * HOUR, { archived: true }),
        session('c-1', 'add greetAll to greet.js', now - HOUR, { tasks: [task, session('t-2', 'Test it', now - 2 * HOUR, { parentId: 'c-1' })] }),
        session('c-2', 'why does the build fail', now - 14 * HOUR),
        session('c-3', 'fix the README', now - 2 * HOUR),
      ],
      now,
      words,
    );
    assert.deepEqual(items, [
      // What waits comes first, once, and opens at the task that waits.
      { label: 'Waiting for you', separator: true },
      { label: 'add greetAll to greet.js', sessionId: 't-1', description: 'waiting for you · 2 tasks' },
      { label: 'Today', separator: true },
      { label: 'fix the README', sessionId: 'c-3' },
      { label: 'Yesterday', separator: true },
      { label: 'why does the build fail', sessionId: 'c-2' },
      { label: 'Older', separator: true },
      { label: 'rename the exports', sessionId: 'c-old', description: 'archived' },
    ]);
  });

  it('lists what waits for an answer or an approval above the days, newest first, whatever its age', () => {
    const items = conversationItems(
      [
        session('c-new', 'newest, nothing waits', now - HOUR),
        session('c-asks', 'which license?', now - 3 * 24 * HOUR, { waitingForUser: true }),
        session('c-approve', 'bump the version', now - 2 * HOUR, {
          tasks: [
            session('t-done', 'Done one', now - 3 * HOUR, { parentId: 'c-approve' }),
            session('t-wait', 'Bump', now - 2 * HOUR, { parentId: 'c-approve', pendingApprovals: 1 }),
          ],
        }),
        session('c-y', 'yesterday', now - 20 * HOUR),
      ],
      now,
      words,
    );
    assert.deepEqual(items, [
      { label: 'Waiting for you', separator: true },
      { label: 'bump the version', sessionId: 't-wait', description: 'waiting for you · 2 tasks' },
      { label: 'which license?', sessionId: 'c-asks', description: 'waiting for you' },
      { label: 'Today', separator: true },
      { label: 'newest, nothing waits', sessionId: 'c-new' },
      { label: 'Yesterday', separator: true },
      { label: 'yesterday', sessionId: 'c-y' },
    ]);
    // Nothing waits: no such section.
    assert.equal(
      conversationItems([session('c-y', 'yesterday', now - 20 * HOUR)], now, words).some((i) => i.label === 'Waiting for you'),
      false,
    );
  });

  it('no conversations: no rows', () => {
    assert.deepEqual(conversationItems([], now, words), []);
  });
});
