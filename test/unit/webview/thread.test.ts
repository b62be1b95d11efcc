import * as assert from 'node:assert/strict';
import type { TaskView } from '../../../src/shared/protocol';
import type { StepView } from '../../../src/shared/threadProtocol';
import { LATEST_ROWS, StepList, renderStep } from '../../../src/webview/stepRows';
import { approvalSubject } from '../../../src/webview/approvalSubject';
import { TaskBlock } from '../../../src/webview/taskBlock';
import { taskState as taskStateWord } from '../../../src/shared/taskState';
import { Thread } from '../../../src/webview/thread';
import { blockView, emptyState } from '../../../src/webview/viewStore';
import { useDom } from './support/dom';
import { fakeHost } from './support/requests';
import { storeThread } from './support/storeThread';
import type { Request } from '../../../src/webview/requests';
import { approvalView, taskView } from './support/views';

const task = taskView;
const step = (id: string, seq: number, rev: number, text: string, over: Partial<StepView> = {}): StepView => ({
  id,
  seq,
  rev,
  kind: 'read',
  text: [text],
  state: 'done',
  ...over,
});
const approval = approvalView;
const texts = (root: Element, selector: string) => [...root.querySelectorAll(selector)].map((e) => e.textContent?.trim());

describe('webview: step rows', function () {
  useDom();

  it('a row shows its words, its literal as code, its outcome, and its state in words for a screen reader', function () {
    const row = renderStep({ id: 'c1', seq: 1, rev: 2, kind: 'command', text: ['Ran ', { code: 'npm run build' }], state: 'running', note: '✓ 1.5 s' });
    assert.equal(row.querySelector('code')?.textContent, 'npm run build');
    assert.equal(row.querySelector('.step-note')?.textContent, '✓ 1.5 s');
    assert.equal(row.getAttribute('data-state'), 'running');
    assert.match(row.textContent ?? '', /Ran npm run build✓ 1\.5 s \(in progress\)$/);
    assert.equal(row.querySelector('.step-icon')?.getAttribute('aria-hidden'), 'true');
    assert.ok(row.querySelector('.step-icon')?.classList.contains('codicon-terminal'), 'a command’s row has the terminal codicon');
  });

  it('never parses a row as HTML', function () {
    const row = renderStep(step('c1', 1, 1, '<img src=x onerror=alert(1)>'));
    assert.equal(row.querySelector('img'), null);
  });

  it('patches a row in place by id, only with a newer version, and keeps rows in the order they began', function () {
    const list = new StepList();
    assert.equal(list.upsert(step('c1', 1, 1, 'Reading a.js', { state: 'running' })), true);
    list.upsert(step('c2', 5, 5, 'Read b.js'));
    list.upsert(step('c1', 1, 4, 'Read a.js'));
    // The page asked for when the block appeared is older than what arrived live: it changes nothing.
    assert.equal(list.upsert(step('c1', 1, 1, 'Reading a.js', { state: 'running' })), false);
    // A row that began earlier (an older page) goes before later ones.
    list.upsert(step('e3', 3, 3, 'You approved'));
    assert.deepEqual(texts(list.element, '.step-text'), ['Read a.js', 'You approved', 'Read b.js']);
    assert.equal(list.size, 3);
  });

  it('a held list keeps its steps at about their height and draws them, newest versions in order, when asked', function () {
    const list = new StepList(undefined, { held: true });
    list.upsert(step('c2', 5, 5, 'Read b.js'));
    list.upsert(step('c1', 1, 1, 'Reading a.js', { state: 'running' }));
    list.upsert(step('c1', 1, 4, 'Read a.js'));
    assert.equal(list.element.children.length, 0, 'nothing drawn while held');
    assert.equal(list.element.style.minHeight, '40px', 'two rows’ height kept');
    list.draw();
    assert.deepEqual(texts(list.element, '.step-text'), ['Read a.js', 'Read b.js']);
    assert.equal(list.element.style.minHeight, '');
    list.upsert(step('c3', 7, 7, 'Ran npm test'));
    assert.deepEqual(texts(list.element, '.step-text'), ['Read a.js', 'Read b.js', 'Ran npm test'], 'drawn at once after');
  });
});

describe('webview: a block builds only the rows it shows', function () {
  useDom();
  const actions = { request: fakeHost().request, openDetails: () => undefined };
  const steps = (count: number, from = 1) => Array.from({ length: count }, (_, i) => step(`c${from + i}`, from + i, from + i, `Read f${from + i}.js`));
  const rowTexts = (block: TaskBlock) => texts(block.element, ':scope > .steps > .step > .step-text');
  const control = (block: TaskBlock, cls: string) => block.element.querySelector(`:scope > .${cls}`) as HTMLButtonElement;

  it('a task that had ended is drawn folded: no row until it is opened, then its rows in order', function () {
    const block = new TaskBlock(task({ status: 'completed', finalSummary: 'Done.' }), actions);
    document.body.appendChild(block.element);
    block.page([step('c2', 4, 4, 'Read b.js'), step('c1', 2, 2, 'Read a.js'), step('c3', 6, 6, 'Ran npm test')]);
    assert.equal(block.element.querySelectorAll('.step').length, 0, 'a folded block has rows');
    assert.equal(block.element.querySelector('.block-summary')?.textContent?.trim(), 'Done.');
    const toggle = control(block, 'steps-toggle');
    assert.equal(toggle.tagName, 'BUTTON', 'the fold is a keyboard-reachable button');
    assert.equal(toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(toggle.getAttribute('aria-label'), 'Show 3 steps of task Add greetAll');
    toggle.click();
    assert.deepEqual(rowTexts(block), ['Read a.js', 'Read b.js', 'Ran npm test']);
    assert.equal(toggle.getAttribute('aria-expanded'), 'true');
    assert.equal(control(block, 'steps-earlier').hidden, true, 'nothing waits');
    // Folded again by the person, a task update does not open it.
    toggle.click();
    block.update(task({ status: 'completed', finalSummary: 'Done.' }), []);
    assert.equal((block.element.querySelector('.steps') as HTMLElement).hidden, true);
  });

  it('a block with many rows shows its latest, and "Show N earlier steps" brings the rest, in order', function () {
    const block = new TaskBlock(task(), actions);
    document.body.appendChild(block.element);
    block.page(steps(40));
    assert.deepEqual(
      rowTexts(block),
      steps(LATEST_ROWS, 41 - LATEST_ROWS).map((s) => s.text[0]),
    );
    const earlier = control(block, 'steps-earlier');
    assert.equal(earlier.hidden, false);
    assert.equal(earlier.textContent, `Show ${40 - LATEST_ROWS} earlier steps`);
    assert.equal(earlier.getAttribute('aria-label'), `Show ${40 - LATEST_ROWS} earlier steps of task Add greetAll`);
    earlier.focus();
    earlier.click();
    assert.deepEqual(
      rowTexts(block),
      steps(40).map((s) => s.text[0]),
    );
    assert.equal(earlier.hidden, true);
    assert.equal(document.activeElement?.textContent, 'Read f1.js', 'the keyboard goes on from the first row brought');
  });

  it('a live step lands at the end of rows built lazily, touching nothing else', function () {
    const block = new TaskBlock(task({ status: 'completed' }), actions);
    document.body.appendChild(block.element);
    block.page(steps(12));
    control(block, 'steps-toggle').click();
    block.update(task(), []);
    const list = block.element.querySelector('.steps') as HTMLElement;
    const before = [...list.children];
    const changes: MutationRecord[] = [];
    const observer = new MutationObserver((records) => changes.push(...records));
    observer.observe(block.element, { subtree: true, childList: true, attributes: true, characterData: true });
    block.step(step('c13', 13, 13, 'Ran npm test'));
    // happy-dom delivers records at a microtask; take them now.
    changes.push(...observer.takeRecords());
    observer.disconnect();
    assert.deepEqual(rowTexts(block).slice(-2), ['Read f12.js', 'Ran npm test']);
    assert.deepEqual([...list.children].slice(0, -1), before, 'the rows before were rebuilt');
    assert.equal(changes.length, 1, `one change: ${changes.map((c) => c.type).join(', ')}`);
    assert.equal(changes[0]?.target, list);
    assert.equal(changes[0]?.addedNodes.length, 1);
    // The earlier rows are still all there, in order.
    control(block, 'steps-earlier').click();
    assert.deepEqual(rowTexts(block), [...steps(12).map((s) => s.text[0]), 'Ran npm test']);
  });

  it('nothing is lost when steps arrive while folded, or older ones after the latest were built', function () {
    const block = new TaskBlock(task({ status: 'cancelled' }), actions);
    document.body.appendChild(block.element);
    block.step(step('c3', 3, 3, 'Read c.js'));
    block.step(step('c1', 1, 1, 'Reading a.js', { state: 'running' }));
    block.step(step('c1', 1, 2, 'Read a.js'));
    assert.equal(block.element.querySelectorAll('.step').length, 0);
    assert.equal(control(block, 'steps-toggle').textContent, 'Show 2 steps');
    control(block, 'steps-toggle').click();
    assert.deepEqual(rowTexts(block), ['Read a.js', 'Read c.js'], 'the newest version of each, in order');
    // A page of the task's steps so far (older than the rows built, and a newer version of one).
    block.page([...steps(LATEST_ROWS + 2, 10), step('c3', 3, 9, 'Read c.js again')]);
    control(block, 'steps-earlier').click();
    assert.deepEqual(rowTexts(block), ['Read a.js', 'Read c.js again', ...steps(LATEST_ROWS + 2, 10).map((s) => s.text[0])]);
  });

  it('a task at work again, or waiting for an approval, opens its folded block', function () {
    const block = new TaskBlock(task({ status: 'completed' }), actions);
    block.page(steps(3));
    assert.equal(block.element.querySelectorAll('.step').length, 0);
    block.update(task({ status: 'completed' }), [approval()]);
    assert.deepEqual(rowTexts(block), ['Read f1.js', 'Read f2.js', 'Read f3.js']);
  });
});

describe('webview: a task block in the thread', function () {
  useDom();
  let host = fakeHost();
  const opened: string[] = [];
  // The block keeps the request it was made with; each test's host is behind it.
  const request: Request = (method, params) => host.request(method, params);
  const actions = { request, openDetails: (id: string) => opened.push(id) };
  beforeEach(() => {
    host = fakeHost();
    opened.length = 0;
  });

  it('says the task’s state in one vocabulary', function () {
    assert.equal(taskStateWord(task()), 'working');
    assert.equal(taskStateWord(task({ waitingForApproval: true })), 'waiting for you');
    assert.equal(taskStateWord(task({ waitingForUser: true })), 'waiting for you');
    assert.equal(taskStateWord(task({ status: 'paused', paused: true })), 'paused');
    assert.equal(taskStateWord(task({ status: 'completed' })), 'done');
    assert.equal(taskStateWord(task({ status: 'error' })), 'failed');
    assert.equal(taskStateWord(task({ status: 'cancelled' })), 'cancelled');
  });

  it('shows name, state, counters and todos, and updates in place around its steps and Details button', function () {
    const block = new TaskBlock(task({ todos: [{ text: 'Read greet.js', status: 'done' }] }), actions);
    block.step(step('c1', 1, 2, 'Read src/greet.js'));
    const rows = block.element.querySelector('.steps');
    const details = block.element.querySelector('.open-details');
    assert.equal(block.element.getAttribute('aria-label'), 'Task Add greetAll: working');
    assert.match(block.element.querySelector('.counters')?.textContent ?? '', /actions 2 \/ 50/);
    assert.deepEqual(texts(block.element, '.todo'), ['● Read greet.js']);

    block.update(task({ status: 'completed', finalSummary: 'Added greetAll; the build passed.', counters: { actions: 4, tokens: 9000, cost: 0 } }), []);
    assert.equal(block.element.querySelector('.steps'), rows, 'the step rows were redrawn');
    assert.equal(block.element.querySelector('.open-details'), details, 'the Details button was redrawn');
    assert.equal(block.element.querySelector('.block-state')?.textContent, 'done');
    assert.equal(block.element.querySelector('.block-summary')?.textContent?.trim(), 'Added greetAll; the build passed.');
    // Written for the person, often with code in it: rendered, never as raw backticks.
    block.update(task({ status: 'completed', finalSummary: 'Ran `npm run build`: it passed.' }), []);
    assert.equal(block.element.querySelector('.block-summary code')?.textContent, 'npm run build');
    assert.deepEqual(texts(block.element, '.step-text'), ['Read src/greet.js']);
    (details as HTMLElement).click();
    assert.deepEqual(opened, ['t-1']);
  });

  it("an ended task's block says what judged it, word and icon, as its summary does (issue 43)", function () {
    const block = new TaskBlock(task(), actions);
    const shown = () => [
      block.element.querySelector('.block-state')?.textContent,
      block.element.getAttribute('data-state'),
      block.element.querySelector('.block-head .state-icon')?.className.match(/codicon-([\w-]+)$/)?.[1],
      block.element.getAttribute('aria-label'),
    ];
    block.update(task({ status: 'completed', checks: 'not_checked', finalSummary: 'Added greetAll.\n\nNot checked: no checks are declared' }), []);
    assert.deepEqual(shown(), ['done, not checked', 'done, not checked', 'check', 'Task Add greetAll: done, not checked']);
    block.update(task({ status: 'completed', checks: 'verified', finalSummary: 'Added greetAll.\n\nChecked `npm test` ✓ 1.2 s' }), []);
    assert.deepEqual(shown(), ['verified', 'verified', 'verified-filled', 'Task Add greetAll: verified']);
    block.update(task({ status: 'error', checks: 'failed', finalSummary: 'Checks failed: `npm test` exited 1 after 2 rounds' }), []);
    assert.deepEqual(shown(), ['checks failed', 'checks failed', 'unverified', 'Task Add greetAll: checks failed']);
  });

  it("an ended task whose edits were reverted says so under its summary, from the host's word only", function () {
    const block = new TaskBlock(task(), actions);
    const reverted = () => block.element.querySelector<HTMLElement>('.block-reverted');
    const summary = 'Added `greetAll` to src/greet.js.\n\nChecked `npm test` ✓ passed';
    block.update(task({ status: 'completed', checks: 'verified', finalSummary: summary, revertible: true }), []);
    assert.equal(reverted()?.hidden, true, 'the edits stand: nothing said');
    // The host read every applied set as reverted (RevertibleTasks): the summary stays, the line follows it.
    block.update(task({ status: 'completed', checks: 'verified', finalSummary: summary, editsReverted: true }), []);
    assert.equal(reverted()?.hidden, false);
    assert.equal(reverted()?.textContent, 'Its edits were reverted: the files no longer hold them.');
    assert.equal(reverted()?.previousElementSibling?.className, 'block-summary md', 'said right under the summary it qualifies');
    assert.match(block.element.querySelector('.block-summary')?.textContent ?? '', /Added greetAll/);
    // Without the host's word (Revert edits merely gone, as after a reject) the block guesses nothing.
    block.update(task({ status: 'completed', checks: 'verified', finalSummary: summary }), []);
    assert.equal(reverted()?.hidden, true);
  });

  it('a pending approval waits in the block with Open diff, Approve and Reject named for its file', function () {
    const decided: string[] = [];
    const block = new TaskBlock(task({ waitingForApproval: true }), { ...actions, decide: (a, decision) => decided.push(`${decision} ${a.id}`) });
    block.update(task({ waitingForApproval: true }), [approval()]);
    const waiting = block.element.querySelector('.block-approval') as HTMLElement;
    assert.ok(waiting, 'no approval in the block');
    assert.match(waiting.textContent ?? '', /Waiting for you: Edit 1 file.*src\/greet\.js.*\+6 −1/s);
    const approve = waiting.querySelector('.approve') as HTMLElement;
    const reject = waiting.querySelector('.reject') as HTMLElement;
    assert.equal(approve.getAttribute('aria-label'), 'Approve the edit to src/greet.js');
    assert.equal(reject.getAttribute('aria-label'), 'Reject the edit to src/greet.js');
    approve.click();
    (waiting.querySelector('.open-diff') as HTMLElement).click();
    reject.click();
    // A decision goes to the view store (through the Thread), which asks the host; Open diff asks at once.
    assert.deepEqual(decided, ['approve cs-1', 'reject cs-1']);
    assert.deepEqual(host.calls(), [{ method: 'approval.openDiff', params: { id: 'cs-1', path: 'src/greet.js' } }]);
    // The same approval again leaves its buttons alone (a click under way is not lost).
    block.update(task({ waitingForApproval: true }), [approval()]);
    assert.equal(block.element.querySelector('.approve'), approve);
    block.update(task(), []);
    assert.equal(block.element.querySelector('.block-approval'), null);
  });

  it('an approval of several files names them all, and each file can be left out', function () {
    const host = fakeHost();
    const two = approval({ files: [approval().files[0]!, { path: 'src/math.js', kind: 'modify', added: 1, removed: 1 }] });
    const block = new TaskBlock(task({ waitingForApproval: true }), { ...actions, request: host.request });
    block.update(task({ waitingForApproval: true }), [two]);
    const root = block.element;
    assert.equal(approvalSubject(approval()), 'the edit to src/greet.js');
    assert.equal(root.querySelector('.approve')?.getAttribute('aria-label'), 'Approve the edits to 2 files: src/greet.js, src/math.js');
    assert.equal(root.querySelector('.reject')?.getAttribute('aria-label'), 'Reject the edits to 2 files: src/greet.js, src/math.js');
    root.querySelector<HTMLElement>('.approval-file[data-path="src/math.js"] .toggle-file')!.click();
    assert.deepEqual(host.calls('approval.decideFile'), [{ method: 'approval.decideFile', params: { id: two.id, path: 'src/math.js', decision: 'reject' } }]);
    // Left out: the row says so and offers to include it again.
    block.update(task({ waitingForApproval: true }), [{ ...two, files: [two.files[0]!, { ...two.files[1]!, decision: 'reject' }] }]);
    assert.equal(root.querySelector('.approval-file.rejected[data-path="src/math.js"] .toggle-file')?.textContent, 'include');
  });

  it('ends a task, running or paused, with the one word Cancel; Stop pauses it, and Abort is nowhere', function () {
    const gestures: string[] = [];
    const task_ = {
      gesture: (id: string, gesture: string) => gestures.push(`${gesture} ${id}`),
      replyTo: (id: string) => gestures.push(`reply ${id}`),
    };
    const block = new TaskBlock(task(), { ...actions, task: task_ });
    assert.deepEqual(texts(block.element, '.block-buttons vscode-button'), ['Stop', 'Reply', 'Cancel', 'Details']);
    (block.element.querySelector('.stop-task') as HTMLElement).click();
    // Stop pressed (shown at once by the store): Continue takes it back; the block says what happens.
    block.update(task({ stopping: true }), [], { notice: 'Stops after its current step.' });
    assert.deepEqual(texts(block.element, '.block-buttons vscode-button'), ['Continue', 'Reply', 'Cancel', 'Details']);
    assert.equal(block.element.querySelector('.block-gesture')?.textContent, 'Stops after its current step.');
    (block.element.querySelector('.cancel-task') as HTMLElement).click();
    // An edit of it was applied (the host says `revertible`): Revert edits is offered while it is paused.
    block.update(task({ status: 'paused', paused: true, pauseReason: 'stopped', revertible: true }), []);
    assert.deepEqual(texts(block.element, '.block-buttons vscode-button'), ['Continue', 'Cancel', 'Revert edits', 'Details']);
    (block.element.querySelector('.cancel-task') as HTMLElement).click();
    assert.deepEqual(gestures, ['stop t-1', 'cancel t-1', 'cancel t-1']);
    assert.doesNotMatch(block.element.textContent ?? '', /abort/i);
  });

  it('a command approval names the command', function () {
    const block = new TaskBlock(task(), actions);
    block.update(task(), [approval({ id: 'a-1', kind: 'command', title: 'Run a command', files: [], command: 'rm -rf build' })]);
    assert.equal(block.element.querySelector('.approve')?.getAttribute('aria-label'), 'Approve running rm -rf build');
  });
});

describe('webview: the thread’s blocks', function () {
  useDom();
  let host = fakeHost();
  const tasks = new Map<string, TaskView>();
  /** The host's answer to a block's `thread.loadSteps`: the task's steps so far. */
  const pageOf = async (taskId: string, steps: StepView[]) => {
    host.answer('thread.loadSteps', { steps }, { taskId });
    await host.settled();
  };
  /** The blocks as a store knowing `tasks` (and no approvals) shows them. */
  const view = (id: string) => blockView({ ...emptyState(), tasks: Object.fromEntries(tasks) }, id);
  const make = () =>
    new Thread({
      request: host.request,
      view,
      openDetails: () => undefined,
      follow: (change) => change(),
      decide: () => assert.fail('no decision in these tests'),
    });
  beforeEach(() => {
    host = fakeHost();
    tasks.clear();
    tasks.set('t-1', task());
    tasks.set('t-2', task({ id: 't-2', sessionId: 't-2', name: 'Fix tests' }));
  });

  it('draws one block per task, asks its steps once, and has none for a task it does not know', function () {
    const thread = make();
    const first = thread.block('t-1');
    assert.ok(first);
    assert.equal(thread.block('t-1'), first, 'a redraw of the transcript gets the same element');
    assert.equal(thread.block('t-9'), undefined);
    assert.deepEqual(host.calls(), [{ method: 'thread.loadSteps', params: { taskId: 't-1' } }]);
  });

  it('a block made afresh (a reload) shows what its task said last, once, and newer live words win', async function () {
    const thread = make();
    const one = thread.block('t-1') as HTMLElement;
    host.answer('thread.loadSteps', { steps: [], said: 'Proposing **the edit**: review it on the card.' }, { taskId: 't-1' });
    await host.settled();
    assert.equal(one.querySelectorAll('.block-said').length, 1);
    assert.equal(one.querySelector('.block-said strong')?.textContent, 'the edit', 'rendered as the streamed words are');
    // Words that streamed before the page's answer came are newer: they stay, alone.
    const two = thread.block('t-2') as HTMLElement;
    thread.saidArea('t-2')!.append(Object.assign(document.createElement('div'), { className: 'msg block-said', textContent: 'Now running the build.' }));
    host.answer('thread.loadSteps', { steps: [], said: 'Proposing the edit.' }, { taskId: 't-2' });
    await host.settled();
    assert.deepEqual(texts(two, '.block-said'), ['Now running the build.']);
    // An ended task's summary says where it got: its last words are not brought back beside it.
    tasks.set('t-3', task({ id: 't-3', sessionId: 't-3', status: 'completed', finalSummary: 'Done.' }));
    const three = thread.block('t-3') as HTMLElement;
    host.answer('thread.loadSteps', { steps: [], said: 'Proposing the edit.' }, { taskId: 't-3' });
    await host.settled();
    assert.equal(three.querySelectorAll('.block-said').length, 0);
  });

  it('fills parallel blocks from live steps and pages, each with its own task’s rows', async function () {
    const thread = make();
    const one = thread.block('t-1') as HTMLElement;
    const two = thread.block('t-2') as HTMLElement;
    assert.equal(thread.onMessage({ type: 'thread.step', taskId: 't-1', steps: [step('c2', 7, 9, 'Ran npm run build', { kind: 'command' })] }), true);
    await pageOf('t-1', [step('c1', 3, 4, 'Read src/greet.js'), step('c2', 7, 7, 'Running npm run build', { state: 'running' })]);
    thread.onMessage({ type: 'thread.step', taskId: 't-2', steps: [step('c1', 3, 3, 'Read test/a.test.js')] });
    // A task not drawn: its step is not kept (its page comes when its block is drawn).
    assert.equal(thread.onMessage({ type: 'thread.step', taskId: 't-3', steps: [step('c1', 1, 1, 'x')] }), true);
    assert.deepEqual(texts(one, '.step-text'), ['Read src/greet.js', 'Ran npm run build']);
    assert.deepEqual(texts(two, '.step-text'), ['Read test/a.test.js']);
  });

  it('shows a pending approval the store has in its task’s block, and takes no approval message itself', function () {
    const { thread, push } = storeThread(host.request, [...tasks.values()]);
    const block = thread.block('t-1') as HTMLElement;
    assert.equal(thread.onMessage({ type: 'approvalPatch', approval: approval() }), false, 'approvals are the store’s');
    assert.equal(block.querySelectorAll('.block-approval').length, 0, 'the thread keeps no approvals of its own');
    push({ type: 'approvalPatch', approval: approval() });
    assert.equal(block.querySelectorAll('.block-approval').length, 1);
    assert.equal(thread.block('t-2')?.querySelectorAll('.block-approval').length, 0);
    push({ type: 'approvalPatch', approval: approval({ status: 'applied' }) });
    assert.equal(block.querySelectorAll('.block-approval').length, 0, 'a decided approval left the block');
    push({ type: 'approvalPatch', approval: approval({ id: 'a-2', kind: 'command', files: [], command: 'npm test' }) });
    push({ type: 'approvalRemoved', id: 'a-2' });
    assert.equal(block.querySelectorAll('.block-approval').length, 0);
  });

  it('draws a task a task started inside its starter’s block, in the step that started it, with its own steps', async function () {
    tasks.set('t-2', task({ id: 't-2', sessionId: 't-2', name: 'Fix tests' }));
    const thread = make();
    const parent = thread.block('t-1') as HTMLElement;
    await pageOf('t-1', [
      step('c1', 2, 2, 'Read src/greet.js'),
      step('c2', 4, 5, 'Started task “Fix tests”', { kind: 'task', taskId: 't-2' }),
      step('c3', 6, 6, 'Read test/a.test.js'),
    ]);
    const nested = parent.querySelector('.steps .task-block[data-task-id="t-2"]');
    assert.ok(nested, 'the sub-task has no block in its starter’s');
    assert.equal(thread.block('t-2'), nested, 'one block per task, wherever it is drawn');
    // In the order the steps began: the sub-task between the two reads.
    assert.deepEqual(
      [...(parent.querySelector('.steps') as HTMLElement).children].map(
        (row) => row.querySelector('.block-name')?.textContent ?? row.querySelector('.step-text')?.textContent,
      ),
      ['Read src/greet.js', 'Fix tests', 'Read test/a.test.js'],
    );
    assert.deepEqual(host.calls(), [
      { method: 'thread.loadSteps', params: { taskId: 't-1' } },
      { method: 'thread.loadSteps', params: { taskId: 't-2' } },
    ]);
    // The sub-task's own steps and state go to its nested block.
    thread.onMessage({ type: 'thread.step', taskId: 't-2', steps: [step('d1', 1, 1, 'Ran npm test', { kind: 'command' })] });
    tasks.set('t-2', task({ id: 't-2', sessionId: 't-2', name: 'Fix tests', status: 'completed', finalSummary: 'Tests pass.' }));
    thread.taskChanged('t-2');
    assert.deepEqual(texts(nested as Element, '.step-text'), ['Ran npm test']);
    assert.equal(nested?.querySelector('.block-summary')?.textContent?.trim(), 'Tests pass.');
  });

  it('a sub-task not known when its step arrives is drawn there once it is', function () {
    const thread = make();
    const parent = thread.block('t-1') as HTMLElement;
    thread.onMessage({ type: 'thread.step', taskId: 't-1', steps: [step('c2', 4, 5, 'Started task “Lint”', { kind: 'task', taskId: 't-3' })] });
    assert.deepEqual(texts(parent, '.step-text'), ['Started task “Lint”'], 'the words until the task is known');
    tasks.set('t-3', task({ id: 't-3', sessionId: 't-3', name: 'Lint' }));
    thread.taskChanged('t-3');
    assert.equal(parent.querySelector('.steps .task-block')?.getAttribute('data-task-id'), 't-3');
    // A step naming its own task (or an ancestor) stays words: a block is never drawn inside itself.
    thread.onMessage({ type: 'thread.step', taskId: 't-3', steps: [step('x', 1, 1, 'Started task “Add greetAll”', { kind: 'task', taskId: 't-1' })] });
    assert.equal(parent.querySelector('.task-block[data-task-id="t-3"] .task-block'), null);
  });

  it('draws a block’s rows only once it nears the view, and the rows leading to a sub-task when it is shown', async function () {
    const watched = new Map<Element, () => void>();
    const thread = new Thread({
      request: host.request,
      view,
      openDetails: () => undefined,
      follow: (change) => change(),
      decide: () => assert.fail('no decision in these tests'),
      nearView: { watch: (element, near) => watched.set(element, near), clear: () => watched.clear() },
    });
    const one = thread.block('t-1') as HTMLElement;
    await pageOf('t-1', [step('c1', 2, 2, 'Read src/greet.js'), step('c2', 4, 5, 'Started task “Fix tests”', { kind: 'task', taskId: 't-2' })]);
    assert.equal(one.querySelectorAll('.step').length, 0, 'a block out of view has no rows yet');
    watched.get(one)?.();
    assert.deepEqual(texts(one, ':scope > .steps > .step > .step-text'), ['Read src/greet.js']);
    assert.ok(one.querySelector('.task-block[data-task-id="t-2"]'), 'the sub-task’s block is in the drawn rows');

    // A thread drawn afresh: showing the sub-task draws its starter’s rows without waiting for the view.
    thread.reset();
    const again = thread.block('t-1') as HTMLElement;
    await pageOf('t-1', [step('c2', 4, 5, 'Started task “Fix tests”', { kind: 'task', taskId: 't-2' })]);
    assert.equal(again.querySelector('.task-block'), null);
    assert.equal(thread.drawTowards('t-2'), true);
    assert.ok(again.querySelector('.task-block[data-task-id="t-2"]'));
  });

  it('showing a sub-task opens the folded block, and the earlier rows, that lead to it', async function () {
    tasks.set('t-1', task({ status: 'completed' }));
    const thread = make();
    const parent = thread.block('t-1') as HTMLElement;
    await pageOf('t-1', [
      step('c0', 1, 1, 'Started task “Fix tests”', { kind: 'task', taskId: 't-2' }),
      ...Array.from({ length: LATEST_ROWS }, (_, i) => step(`c${i + 1}`, i + 2, i + 2, `Read f${i}.js`)),
    ]);
    assert.equal(parent.querySelector('.task-block'), null, 'a folded block drew its rows');
    assert.equal(thread.drawTowards('t-2'), true);
    assert.equal(parent.querySelector(':scope > .steps > .step:first-child > .task-block')?.getAttribute('data-task-id'), 't-2');
  });

  it('a task patch redraws its block; an init starts afresh with the approvals it carries', function () {
    const thread = make();
    const block = thread.block('t-1') as HTMLElement;
    tasks.set('t-1', task({ status: 'completed', finalSummary: 'done it' }));
    thread.taskChanged('t-1');
    assert.equal(block.querySelector('.block-summary')?.textContent?.trim(), 'done it');
    thread.reset();
    assert.notEqual(thread.block('t-1'), block, 'blocks are made afresh after init');
    // An init's approvals are the store's: the block made afresh shows them.
    const page = storeThread(host.request, [...tasks.values()]);
    page.push({
      type: 'init',
      state: {
        sessions: [],
        tasks: [...tasks.values()],
        approvals: [approval({ taskId: 't-2' })],
        deadLetters: [],
        model: { provider: 'demo', model: 'demo' },
        restricted: false,
      },
    });
    assert.equal(page.thread.block('t-2')?.querySelectorAll('.block-approval').length, 1);
  });
});
