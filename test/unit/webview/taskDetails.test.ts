import * as assert from 'node:assert/strict';
import type { DetailsState } from '../../../src/webview/taskDetails';
import { TaskDetails } from '../../../src/webview/taskDetails';
import { useDom } from './support/dom';
import { fakeHost } from './support/requests';

const event = (seq: number, type: string) => ({ seq, type, at: seq, summary: `${type} ${seq}` });

// A task's details (the raw trace) open from its block, close with × and Escape, and belong to the
// session they were opened from: they do not follow into another session or a new chat.
describe('webview: task details', function () {
  useDom();
  let loads: Array<[string, number | undefined]>;
  let host = fakeHost();
  let state: DetailsState;
  let area: HTMLElement;
  const make = () => {
    area = document.createElement('section');
    document.body.appendChild(area);
    return new TaskDetails(area, {
      loadTrace: (taskId, beforeSeq) => {
        loads.push([taskId, beforeSeq]);
        return host.request('trace.load', { taskId, ...(beforeSeq === undefined ? {} : { beforeSeq }) });
      },
      name: (taskId) => (taskId === 't-1' ? 'Add greetAll' : ''),
      state,
      save: () => undefined,
    });
  };
  beforeEach(() => {
    loads = [];
    host = fakeHost();
    state = {};
  });

  it('opens with the task’s name and its trace, and × closes it, giving the focus back', function () {
    const details = make();
    assert.equal(area.hidden, true);
    const opener = document.createElement('button');
    document.body.appendChild(opener);
    opener.focus();
    details.open('t-1', 's-chat');
    assert.equal(area.hidden, false);
    assert.equal(area.querySelector('.trace-title')?.textContent, 'Details: Add greetAll');
    assert.deepEqual(loads, [['t-1', undefined]]);
    assert.deepEqual(state, { traceTaskId: 't-1', traceSessionId: 's-chat' });
    const close = area.querySelector('.trace-close') as HTMLElement;
    assert.equal(close.getAttribute('aria-label'), 'Close details');
    close.click();
    assert.equal(area.hidden, true);
    assert.deepEqual(state, { traceTaskId: undefined, traceSessionId: undefined });
    assert.equal(document.activeElement, opener);
  });

  it('Escape closes it', function () {
    const details = make();
    details.open('t-1', 's-chat');
    area.querySelector('.trace-viewport')?.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    assert.equal(area.hidden, true);
    assert.equal(details.taskId, undefined);
  });

  it('closes when another session or a new chat is shown, and stays with its own', function () {
    const details = make();
    details.open('t-1', 's-chat');
    details.sessionShown('s-chat');
    assert.equal(area.hidden, false);
    details.sessionShown('s-other');
    assert.equal(area.hidden, true);
    details.open('t-1', 's-chat');
    details.sessionShown(undefined);
    assert.equal(area.hidden, true, 'the details followed into a new chat');
  });

  it('after a reload reopens only in the session it was opened from', function () {
    state = { traceTaskId: 't-1', traceSessionId: 's-chat' };
    make().restore('s-chat', () => true);
    assert.equal(area.hidden, false);
    state = { traceTaskId: 't-1', traceSessionId: 's-chat' };
    make().restore('s-other', () => true);
    assert.equal(area.hidden, true);
    assert.equal(state.traceTaskId, undefined);
  });

  it('takes only the open task’s trace', async function () {
    const details = make();
    details.open('t-1', 's-chat');
    host.answer('trace.load', { events: [event(1, 'task_start'), event(2, 'action_start')], hasMore: false }, { taskId: 't-1' });
    await host.settled();
    assert.equal(details.onMessage({ type: 'traceAppended', taskId: 't-2', event: event(3, 'turn') }), true);
    details.onMessage({ type: 'traceAppended', taskId: 't-1', event: event(3, 'action_end') });
    assert.deepEqual(
      [...area.querySelectorAll('.trace-type')].map((e) => e.textContent),
      ['task_start', 'action_start', 'action_end'],
    );
    assert.equal(details.onMessage({ type: 'model', model: { provider: 'x', model: 'y' } }), false);
  });
});
