/**
 * The whole sidebar page (src/webview/sidebarApp.ts) in plain Node: the host's HTML skeleton in
 * happy-dom, a fake host that records requests and answers them. What a person does on a task's
 * block shows in the same event and reaches the host once; the host's word settles it.
 */
import * as assert from 'node:assert/strict';
import type { HostMessage, TaskView, WebviewMessage } from '../../../src/shared/protocol';
import type { SidebarMethod } from '../../../src/shared/sidebarApi';
import { THREAD_FIRST_PAINT_MARK } from '../../../src/shared/viewConstants';
import { startSidebar } from '../../../src/webview/sidebarApp';
import type { Persisted, SidebarPage } from '../../../src/webview/sidebarApp';
import { useDom } from './support/dom';
import { approvalView, taskView } from './support/views';

/** The page's elements as the host's HTML has them (src/host/sidebarProvider.ts). */
const SKELETON = `
<div id="banner"></div><h2 id="current-session"></h2><div id="dead-letters"></div>
<section id="tasks"></section><section id="trace-area" hidden></section><section id="transcript"></section>
<footer id="composer"><div id="reply-target"></div><div id="attachments"></div><textarea id="chat-input"></textarea><button id="send">Send</button></footer>`;

type Request = Extract<WebviewMessage, { type: 'request' }>;

/** happy-dom has no IntersectionObserver: one that never reports (rows stay held, code uncoloured, which these tests do not look at). */
class QuietObserver {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
  takeRecords(): [] {
    return [];
  }
}

describe('webview: the sidebar page', function () {
  useDom();
  const had = Object.getOwnPropertyDescriptor(globalThis, 'IntersectionObserver');
  before(() => Object.defineProperty(globalThis, 'IntersectionObserver', { value: QuietObserver, configurable: true, writable: true }));
  after(() => {
    if (had) Object.defineProperty(globalThis, 'IntersectionObserver', had);
    else delete (globalThis as Record<string, unknown>).IntersectionObserver;
  });
  let page: SidebarPage;
  let sent: WebviewMessage[];
  const requests = (method: SidebarMethod) => sent.filter((m): m is Request => m.type === 'request' && m.method === method);
  const reply = (request: Request, outcome: { result: unknown } | { error: string }) =>
    page.onMessage(
      ('error' in outcome
        ? { type: 'reply', id: request.id, method: request.method, ok: false, error: outcome.error }
        : { type: 'reply', id: request.id, method: request.method, ok: true, result: outcome.result }) as HostMessage,
    );
  const settled = () => new Promise<void>((resolve) => setImmediate(resolve));
  const block = () => document.querySelector<HTMLElement>('#transcript [data-task-id="t-1"]');
  const buttons = () => [...(block()?.querySelectorAll('.block-buttons > *') ?? [])].map((b) => b.textContent?.trim());

  async function open(task: TaskView): Promise<void> {
    document.body.innerHTML = SKELETON;
    sent = [];
    const persisted: Persisted = { selectedSessionId: 'c-1' };
    page = startSidebar({ root: document, post: (m) => sent.push(m), persisted, save: () => undefined });
    assert.deepEqual(
      sent.map((m) => m.type),
      ['ready'],
    );
    const summary = { id: 'c-1', name: 'Greet', status: 'idle', lastActivity: 1, waitingForUser: false, pendingApprovals: 0 };
    page.onMessage({
      type: 'init',
      state: {
        sessions: [{ ...summary, messages: [{ role: 'user', text: 'add greetAll', at: 1, taskId: 't-1' }] }],
        tasks: [task],
        approvals: [],
        deadLetters: [],
        model: { provider: 'demo', model: 'demo' },
        restricted: false,
      },
    });
    const [steps] = requests('thread.loadSteps');
    if (steps) reply(steps, { result: { steps: [] } });
    await settled();
  }

  it('draws a working task as its block, with Stop; Stop shows at once, asks once, and the host settles it', async function () {
    await open(taskView());
    assert.ok(block(), 'the task is drawn in the conversation that started it');
    assert.deepEqual(buttons(), ['Stop', 'Reply', 'Cancel', 'Details']);
    block()!.querySelector<HTMLElement>('.stop-task')!.click();
    assert.equal(block()!.querySelector('.block-gesture')?.textContent, 'Stops after its current step.', 'in the event of the click');
    assert.deepEqual(buttons(), ['Continue', 'Reply', 'Cancel', 'Details']);
    assert.deepEqual(
      requests('task.stop').map((r) => r.params),
      [{ taskId: 't-1' }],
    );
    reply(requests('task.stop')[0]!, { result: null });
    page.onMessage({
      type: 'taskPatch',
      task: taskView({ status: 'paused', paused: true, pauseReason: 'stopped' }),
    });
    await settled();
    assert.equal(block()!.getAttribute('data-state'), 'paused');
    assert.deepEqual(buttons(), ['Continue', 'Cancel', 'Details'], 'nothing of it was applied: no Revert edits');
    assert.equal(block()!.querySelector<HTMLElement>('.block-gesture')!.hidden, true);
  });

  it('an approval that arrives after its task’s patch makes the block wait for you; Approve moves it on at once', async function () {
    await open(taskView());
    // The host sends the task's state and its approval in separate messages, the task first.
    page.onMessage({ type: 'taskPatch', task: taskView({ waitingForApproval: true }) });
    page.onMessage({ type: 'approvalPatch', approval: approvalView() });
    await settled();
    assert.equal(block()!.getAttribute('data-state'), 'waiting for you');
    block()!.querySelector<HTMLElement>('.approve')!.click();
    assert.equal(block()!.getAttribute('data-state'), 'working', 'in the event of the click');
    assert.deepEqual(
      requests('approval.approve').map((r) => r.params),
      [{ id: 'cs-1' }],
    );
    reply(requests('approval.approve')[0]!, { error: 'The change was already decided.' });
    await settled();
    assert.equal(block()!.getAttribute('data-state'), 'waiting for you', 'a refused decision puts the wait back');
  });

  it('a refused Cancel rolls back, and the block says why', async function () {
    await open(taskView());
    block()!.querySelector<HTMLElement>('.cancel-task')!.click();
    assert.equal(block()!.getAttribute('data-state'), 'cancelled', 'shown at once');
    reply(requests('task.cancel')[0]!, { error: 'Task t-1 is completed; only a running or paused task can be changed.' });
    await settled();
    assert.equal(block()!.getAttribute('data-state'), 'working');
    assert.equal(block()!.querySelector('.block-gesture')?.textContent, 'Not done: Task t-1 is completed; only a running or paused task can be changed.');
  });

  it('a task’s words while it works stream into its block', async function () {
    await open(taskView());
    page.onMessage({ type: 'turnState', sessionId: 't-1', turnId: 'turn-1', running: true });
    page.onMessage({ type: 'streamDelta', sessionId: 't-1', turnId: 'turn-1', delta: { kind: 'text', text: 'Reading **greet.js** first.\n\nThen' } });
    assert.equal(block()!.querySelector('.block-said-area strong')?.textContent, 'greet.js');
    assert.equal(document.querySelectorAll('#transcript > .msg-streaming').length, 0);
    page.onMessage({ type: 'turnState', sessionId: 't-1', turnId: 'turn-1', running: false });
    assert.match(block()!.querySelector('.block-said-area')?.textContent ?? '', /Then/, 'a turn’s end keeps its words');
    page.onMessage({ type: 'taskPatch', task: taskView({ status: 'completed', finalSummary: 'Added greetAll.' }) });
    assert.equal(block()!.querySelector('.block-said-area')?.textContent, '', 'the task’s end takes them: its summary says where it got');
  });

  it('after Stop the focus goes where it goes after Approve: the next that waits, else the composer', async function () {
    await open(taskView());
    const stop = block()!.querySelector<HTMLElement>('.stop-task')!;
    stop.setAttribute('tabindex', '0');
    stop.focus();
    assert.equal(document.activeElement, stop);
    stop.click();
    assert.equal(document.activeElement, document.querySelector('#chat-input'), 'not lost to the page’s body with the button');
  });

  it('the view’s focus keybinding lands in the composer, and a focus already inside stays', async function () {
    await open(taskView());
    (document.activeElement as HTMLElement | null)?.blur();
    page.focused();
    assert.equal(document.activeElement, document.querySelector('#chat-input'));
    const details = block()!.querySelector<HTMLElement>('.open-details')!;
    details.setAttribute('tabindex', '0');
    details.focus();
    page.focused();
    assert.equal(document.activeElement, details);
  });

  it('Tab in an empty composer goes to the Approve that waits; with text typed, Tab is left alone', async function () {
    await open(taskView({ waitingForApproval: true }));
    page.onMessage({ type: 'approvalPatch', approval: approvalView() });
    const input = document.querySelector<HTMLElement & { value: string }>('#chat-input')!;
    const tab = () => input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab', bubbles: true, cancelable: true }));
    input.focus();
    input.value = 'not yet';
    assert.equal(tab(), true, 'a Tab with text typed is the browser’s');
    assert.equal(document.activeElement, input);
    input.value = '';
    assert.equal(tab(), false, 'taken: what waits is the next thing to do');
    assert.equal(document.activeElement, block()!.querySelector('.block-approval .approve'));
    (document.activeElement as HTMLElement).click();
    assert.equal(document.activeElement, input, 'nothing else waits: back to the composer');
    assert.equal(tab(), true, 'nothing waits: Tab goes on as usual');
  });

  /** The page as it starts: `persisted` from the webview's state, then the host's `init` (no sessions: none has live work). */
  function start(persisted: Persisted): void {
    document.body.innerHTML = SKELETON;
    sent = [];
    performance.clearMarks(THREAD_FIRST_PAINT_MARK);
    page = startSidebar({ root: document, post: (m) => sent.push(m), persisted, save: () => undefined });
    page.onMessage({
      type: 'init',
      state: { sessions: [], tasks: [], approvals: [], deadLetters: [], model: { provider: 'demo', model: 'demo' }, restricted: false },
    });
  }
  const painted = async () => {
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    return performance.getEntriesByName(THREAD_FIRST_PAINT_MARK).length;
  };
  const methods = () => sent.flatMap((m) => (m.type === 'request' ? [m.method] : [m.type]));

  it('is the thread and the composer: it opens the conversation the person was in, names it, and marks its first paint then', async function () {
    start({ selectedSessionId: 'c-9' });
    // No list to fill: the one request is the transcript of the conversation shown.
    assert.deepEqual(methods(), ['ready', 'sessions.open']);
    assert.deepEqual(
      requests('sessions.open').map((r) => r.params),
      [{ sessionId: 'c-9' }],
    );
    assert.equal(await painted(), 0, 'not painted before its transcript is there');
    const session = { id: 'c-9', name: 'why does the build fail', status: 'idle', lastActivity: 1, waitingForUser: false, pendingApprovals: 0 };
    reply(requests('sessions.open')[0]!, { result: { session, messages: [{ role: 'user', text: 'why does the build fail?', at: 1 }] } });
    await settled();
    assert.equal(document.querySelector('#transcript .msg-user')?.textContent, 'why does the build fail?');
    const title = document.querySelector<HTMLElement>('#current-session')!;
    assert.equal(title.textContent, 'why does the build fail');
    assert.equal(title.dataset.sessionId, 'c-9');
    assert.equal(await painted(), 1);
    assert.equal(document.querySelectorAll('.session, #sessions, #session-search, #new-chat').length, 0, 'no conversation list in the view');
  });

  it('opens on a new chat when the person was in none, and New chat (the view title’s) empties a thread', async function () {
    start({});
    assert.deepEqual(methods(), ['ready']);
    assert.equal(document.querySelector('#current-session')?.textContent, 'New chat');
    assert.ok(document.querySelector('#transcript .empty'));
    assert.equal(await painted(), 1);
    page.onMessage({ type: 'showSession', sessionId: 'c-2' });
    reply(requests('sessions.open')[0]!, {
      result: { session: { id: 'c-2', name: 'Two', status: 'idle', lastActivity: 2, waitingForUser: false, pendingApprovals: 0 }, messages: [] },
    });
    await settled();
    assert.equal(document.querySelector('#current-session')?.textContent, 'Two');
    page.onMessage({ type: 'view.newChat' });
    assert.equal(document.querySelector('#current-session')?.textContent, 'New chat');
    assert.equal(document.querySelector<HTMLElement>('#current-session')!.dataset.sessionId, undefined);
  });

  it('opens on a new chat when the conversation the person was in is gone', async function () {
    start({ selectedSessionId: 'c-gone' });
    reply(requests('sessions.open')[0]!, { error: 'There is no session c-gone, in the hot store or the archive.' });
    await settled();
    assert.equal(document.querySelector('#current-session')?.textContent, 'New chat');
    assert.ok(document.querySelector('#transcript .empty'));
    assert.equal(await painted(), 1);
  });
});
