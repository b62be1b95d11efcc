import * as assert from 'node:assert/strict';
import type { SessionSummary } from '../../../src/shared/protocol';
import { SessionList } from '../../../src/webview/sessionList';
import { useDom } from './support/dom';

const summary = (id: string, name: string, over: Partial<SessionSummary> = {}): SessionSummary => ({
  id,
  name,
  status: 'idle',
  lastActivity: 1,
  waitingForUser: false,
  pendingApprovals: 0,
  ...over,
});

/** The list shows conversations; the tasks a conversation started are nested in its row. */
describe('webview: session list of conversations with their tasks', () => {
  useDom();

  const make = () => {
    const element = document.createElement('nav');
    document.body.appendChild(element);
    const picked: Array<string | undefined> = [];
    const list = new SessionList(element, {
      select: (id) => picked.push(id),
      loadMore: () => new Promise(() => undefined),
      search: () => new Promise(() => undefined),
      selected: () => 's-1',
    });
    return { element, list, picked };
  };
  const rows = (element: HTMLElement) =>
    [...element.querySelectorAll<HTMLElement>('.session-rows .session')].map((row) => ({
      id: row.dataset.sessionId,
      nested: row.classList.contains('session-task'),
      name: row.querySelector('.session-name')?.textContent,
    }));

  it('draws a conversation with its tasks under it, and follows a patch of the conversation row', () => {
    const { element, list, picked } = make();
    const task = summary('t-1', 'Add greetAll', { parentId: 's-1', status: 'working', lastActivity: 5 });
    list.reset([summary('s-1', 'add greetAll to greet.js', { lastActivity: 5, tasks: [task] }), summary('s-0', 'older chat')], false);
    assert.deepEqual(rows(element), [
      { id: 's-1', nested: false, name: 'add greetAll to greet.js' },
      { id: 't-1', nested: true, name: 'Add greetAll' },
      { id: 's-0', nested: false, name: 'older chat' },
    ]);
    assert.equal(list.parentOf('t-1'), 's-1');
    assert.equal(list.parentOf('s-0'), undefined);
    assert.equal(list.get('t-1')?.name, 'Add greetAll');

    // A second task of the same conversation: still one row for it, now with two tasks.
    const second = summary('t-2', 'Build', { parentId: 's-1', lastActivity: 9, waitingForUser: true });
    list.upsert(summary('s-1', 'add greetAll to greet.js', { lastActivity: 9, waitingForUser: true, tasks: [task, second] }));
    assert.deepEqual(
      rows(element).map((r) => r.id),
      ['s-1', 't-1', 't-2', 's-0'],
    );
    assert.equal(element.querySelectorAll('.session-rows .session:not(.session-task)').length, 2);
    const meta = element.querySelector('[data-session-id="s-1"] .session-meta');
    assert.equal(meta?.getAttribute('data-state'), 'waiting for you', 'the conversation shows its task waits, in the one vocabulary');
    assert.ok(meta?.querySelector('.codicon-bell-dot[aria-hidden="true"]'), 'with its icon');

    // A nested task row is picked by its own id (the page shows its conversation).
    element.querySelector<HTMLElement>('[data-session-id="t-2"]')?.click();
    assert.deepEqual(picked, ['t-2']);

    // A task's lane that goes away leaves its conversation's row.
    list.remove('t-1');
    assert.deepEqual(
      rows(element).map((r) => r.id),
      ['s-1', 't-2', 's-0'],
    );
  });
});
