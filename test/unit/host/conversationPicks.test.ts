import * as assert from 'node:assert/strict';
import type { SessionSummary } from '../../../src/shared/protocol';
import { conversationItems } from '../../../src/host/conversationPicks';
import type { PickWords } from '../../../src/host/conversationPicks';

const words: PickWords = {
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
      { label: 'Today', separator: true },
      { label: 'add greetAll to greet.js', sessionId: 'c-1', description: 'waiting for you · 2 tasks' },
      { label: 'fix the README', sessionId: 'c-3' },
      { label: 'Yesterday', separator: true },
      { label: 'why does the build fail', sessionId: 'c-2' },
      { label: 'Older', separator: true },
      { label: 'rename the exports', sessionId: 'c-old', description: 'archived' },
    ]);
  });

  it('no conversations: no rows', () => {
    assert.deepEqual(conversationItems([], now, words), []);
  });
});
