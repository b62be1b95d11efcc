import * as assert from 'node:assert/strict';
import type { TaskEvent, TaskEventKind } from '../../../src/core/engine/types';
import { presentSteps } from '../../../src/host/stepPresenter';
import { StreamView } from '../../../src/webview/streamView';
import { TaskBlock } from '../../../src/webview/taskBlock';
import { partialField, toolLine } from '../../../src/webview/toolLine';
import { useDom } from './support/dom';
import { fakeHost } from './support/requests';
import { taskView } from './support/views';

const task = taskView({ status: 'completed', counters: { actions: 4, tokens: 5600, cost: 0 }, finalSummary: 'Added greetAll.' });
let seq = 0;
const ev = (kind: TaskEventKind, data: Record<string, unknown>): TaskEvent => ({ seq: ++seq, at: 1000 + seq, kind, data });

/** What the thread shows is written for the person: no tool-call JSON, no sentences steering the model. */
describe('webview: the thread speaks to people', function () {
  useDom();

  it('a streaming turn that writes tool calls shows readable lines, never the call or its JSON', function () {
    const transcript = document.createElement('section');
    const send = document.createElement('button');
    document.body.append(transcript, send);
    const stream = new StreamView(
      transcript,
      send,
      () => 's-1',
      async () => undefined,
    );
    stream.reset([{ sessionId: 's-1', turnId: 'turn-1' }]);
    const delta = (callId: string, name: string, preview: string) =>
      stream.onMessage({ type: 'streamDelta', sessionId: 's-1', turnId: 'turn-1', delta: { kind: 'tool', callId, name, preview } });
    delta('c1', 'run_command', '{"command":"npm run bu');
    assert.equal(transcript.textContent, 'Running npm run bu…');
    delta('c1', 'run_command', '{"command":"npm run build"}');
    delta('c2', 'read_file', '{"path":"src/greet.js"');
    delta('c3', 'replace_in_file', '{"path":"src/greet.js","edits":[{"oldText":"module.exports');
    delta('c4', 'route_message', '{"decision":"new"');
    const lines = [...transcript.querySelectorAll<HTMLElement>('.stream-tool')].filter((l) => !l.hidden).map((l) => l.textContent);
    assert.deepEqual(lines, ['Running npm run build…', 'Reading src/greet.js…', 'Writing an edit to src/greet.js…']);
    assert.equal(transcript.querySelector('.stream-tool code')?.textContent, 'npm run build', 'the command is shown as code');
    const text = transcript.textContent ?? '';
    assert.doesNotMatch(text, /[{}→"]|run_command|read_file|replace_in_file|route_message|oldText/);
  });

  it('reads partial JSON arguments as far as they go, escapes included', function () {
    assert.equal(partialField('{"command":"echo \\"hi\\" \\u0026 ls', 'command'), 'echo "hi" & ls');
    assert.equal(partialField('{"comm', 'command'), undefined);
    assert.deepEqual(toolLine('mcp_github_create_issue', '{}'), ['Using ', { code: 'create_issue' }, ' from github…']);
    assert.deepEqual(toolLine('some_new_tool', '{"x":1}'), ['Working…']);
  });

  it('a task block shows what the person did, not the sentences written to steer the model', function () {
    seq = 0;
    const events = [
      ev('action_start', { callId: 'c1', name: 'replace_in_file', input: { path: 'src/greet.js', edits: [] } }),
      ev('action_end', { callId: 'c1', name: 'replace_in_file', output: 'Proposed change set cs-1; nothing is written until the user decides.' }),
      ev('user_message', { text: 'Approval cs-1: approved (The change was approved and applied: src/greet.js.)' }),
      // Told to the task when the person reverted its edits (Agent.tellTask), and a chore's re-check.
      ev('user_message', {
        text: 'The user reverted your applied edit to src/greet.js: those files are back as they were before. Read them again before editing them.',
        forModel: true,
        shown: "You reverted the task's edits to src/greet.js; they are back as they were.",
      }),
      ev('user_message', { text: 'successWhen was false for the output; continue until status is done.', forModel: true }),
      ev('user_message', {
        text: 'Approval cs-2: approved (The change was not applied: src/greet.js changed on disk since the proposal; read it again and propose anew.)',
      }),
      ev('user_message', { text: 'Approval cs-3: approved (The change is pending; wait for the user\u2019s decision.)' }),
    ];
    const block = new TaskBlock(task, { request: fakeHost().request, openDetails: () => undefined });
    for (const step of presentSteps('t-1', events)) block.step(step);
    document.body.appendChild(block.element);
    // The task has ended: its block is drawn folded; opened, it shows its rows.
    (block.element.querySelector('.steps-toggle') as HTMLElement).click();
    const rows = [...block.element.querySelectorAll('.step .step-text')].map((r) => r.textContent);
    assert.deepEqual(rows, [
      'Proposed an edit to src/greet.js',
      'You approved; applied src/greet.js',
      "You reverted the task's edits to src/greet.js; they are back as they were.",
      'Not applied: the files changed since the proposal',
      'You approved it',
    ]);
    const text = block.element.textContent ?? '';
    assert.doesNotMatch(text, /Read them again|read it again|wait for the user|successWhen|The user /);
  });
});
