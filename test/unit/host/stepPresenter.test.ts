import * as assert from 'node:assert/strict';
import type { TaskEvent, TaskEventKind } from '../../../src/core/engine/types';
import { firstSentence, lastSaid, presentSteps, StepPresenter } from '../../../src/host/stepPresenter';
import type { StepText, StepView } from '../../../src/shared/threadProtocol';
import { toHostMessages } from '../../../src/host/viewMapping';

let seq = 0;
const ev = (kind: TaskEventKind, data: Record<string, unknown>): TaskEvent => ({ seq: ++seq, at: 1000 + seq, kind, data });
const words = (text: StepText) => text.map((part) => (typeof part === 'string' ? part : `\`${part.code}\``)).join('');
const line = (step: StepView | undefined) => (step ? `${words(step.text)}${step.note ? ` — ${step.note}` : ''} [${step.state}]` : undefined);

// The thread's step rows are written on the host from the task's events: text for people, never
// an event kind or a tool call's JSON.
describe('host step presenter: task events → readable step rows', function () {
  beforeEach(() => {
    seq = 0;
  });

  it('writes the demo task as a person would tell it: read, proposed edit, decision, command', function () {
    const events = [
      ev('task_start', { name: 'Add greetAll', instruction: 'x', mode: 'simple' }),
      ev('turn', { text: '', toolCalls: [{ id: 'c1', name: 'read_file', rawArguments: '{"path":"src/greet.js"}' }] }),
      ev('action_start', { callId: 'c1', name: 'read_file', input: { path: 'src/greet.js' } }),
      ev('action_end', { callId: 'c1', name: 'read_file', output: "'use strict';\n", durationMs: 13.2 }),
      ev('action_start', { callId: 'c2', name: 'search_text', input: { query: 'greet(' } }),
      ev('action_end', {
        callId: 'c2',
        name: 'search_text',
        output: 'a.js\n  1: greet(\nb.js\n  2: greet(\n  3- x\nc.js\n  3: greet(\nd.js\n  4: greet(',
        durationMs: 4,
      }),
      ev('action_start', { callId: 'c3', name: 'replace_in_file', input: { path: 'src/greet.js', edits: [{ oldText: 'a', newText: 'b' }] } }),
      ev('action_end', {
        callId: 'c3',
        name: 'replace_in_file',
        output: 'Proposed change set cs-1 (1 file: modify src/greet.js (+6 −1)); nothing is written…',
        durationMs: 9,
      }),
      ev('user_message', { text: 'Approval cs-1: approved (The change was approved and applied: src/greet.js.)' }),
      ev('action_start', { callId: 'c4', name: 'run_command', input: { command: 'npm run build' } }),
      ev('action_end', { callId: 'c4', name: 'run_command', output: '`npm run build` exited with code 0 in 1523 ms.\noutput:\nok', durationMs: 1530 }),
      ev('action_start', { callId: 'c5', name: 'task_end', input: { summary: 'Added greetAll' } }),
      ev('action_end', { callId: 'c5', name: 'task_end', output: 'task ended', durationMs: 1 }),
      ev('task_end', { status: 'completed', summary: 'Added greetAll' }),
    ];
    assert.deepEqual(presentSteps('t-1', events).map(line), [
      'Read src/greet.js [done]',
      'Searched for `greet(` — 4 hits [done]',
      'Proposed an edit to src/greet.js [done]',
      'You approved; applied src/greet.js [done]',
      'Ran `npm run build` — ✓ 1.5 s [done]',
    ]);
  });

  it('what the task said last: the latest turn that spoke, a later tool-only turn leaves it', function () {
    const events = [
      ev('turn', { text: 'Reading the file first.', toolCalls: [] }),
      ev('turn', { text: '  Proposing the edit: review it on the card.\n', toolCalls: [{ id: 'c2', name: 'replace_in_file', rawArguments: '{}' }] }),
      ev('action_end', { callId: 'c2', name: 'replace_in_file', output: 'Proposed change set cs-1', durationMs: 3 }),
      ev('turn', { text: '', toolCalls: [{ id: 'c3', name: 'run_command', rawArguments: '{}' }] }),
    ];
    assert.equal(lastSaid(events), 'Proposing the edit: review it on the card.');
    assert.equal(lastSaid(events.slice(2)), undefined, 'no turn said anything');
  });

  it('a row is patched in place from its start to its end, keeping its place and id', function () {
    const presenter = new StepPresenter();
    const start = presenter.present('t-1', ev('action_start', { callId: 'c1', name: 'run_command', input: { command: 'npm test' } }));
    assert.equal(line(start), 'Running `npm test` [running]');
    const end = presenter.present(
      't-1',
      ev('action_end', { callId: 'c1', name: 'run_command', output: '`npm test` exited with code 2 in 300 ms.\noutput:\nfail', durationMs: 301 }),
    );
    assert.equal(line(end), 'Ran `npm test` — ✗ exit code 2 · 300 ms [failed]');
    assert.equal(end?.id, start?.id);
    assert.equal(end?.seq, start?.seq, 'the row keeps the place its start gave it');
    assert.ok((end?.rev ?? 0) > (start?.rev ?? 0), 'the end is a newer version of the row');
  });

  it('keeps one task’s actions apart from another’s with the same call id', function () {
    const presenter = new StepPresenter();
    presenter.present('t-1', ev('action_start', { callId: 'c1', name: 'read_file', input: { path: 'a.js' } }));
    presenter.present('t-2', ev('action_start', { callId: 'c1', name: 'read_file', input: { path: 'b.js' } }));
    assert.equal(line(presenter.present('t-1', ev('action_end', { callId: 'c1', name: 'read_file', output: 'x' }))), 'Read a.js [done]');
    assert.equal(line(presenter.present('t-2', ev('action_end', { callId: 'c1', name: 'read_file', output: 'y' }))), 'Read b.js [done]');
  });

  it('an end whose start it never saw still makes a row (from the action name alone)', function () {
    const row = new StepPresenter().present('t-1', ev('action_end', { callId: 'c9', name: 'list_files', output: './:\na\nb', durationMs: 2 }));
    assert.equal(line(row), 'Listed the workspace — 2 entries [done]');
  });

  it('says what failed in one sentence, without the advice written for the model', function () {
    const presenter = new StepPresenter();
    presenter.present('t-1', ev('action_start', { callId: 'c1', name: 'replace_in_file', input: { path: 'src/greet.js', edits: [] } }));
    const row = presenter.present(
      't-1',
      ev('action_end', { callId: 'c1', name: 'replace_in_file', error: 'Error: oldText was not found in src/greet.js; read the file again and retry.' }),
    );
    assert.equal(line(row), 'Could not propose an edit to src/greet.js — oldText was not found in src/greet.js. [failed]');
    assert.equal(
      firstSentence('80% of the actions budget is used (40 / 50). Wrap up: finish the current step.'),
      '80% of the actions budget is used (40 / 50).',
    );
  });

  it('an applied change says what the language servers found after it, as the task is told', function () {
    const rows = presentSteps('t-1', [
      ev('user_message', {
        text: "Approval cs-1: approved (The change was approved and applied: src/c.ts.\nNew problems after the change: src/c.ts:1 error TS2322: Type 'string' is not assignable to type 'number'.)",
      }),
    ]);
    assert.deepEqual(rows.map(line), [
      "You approved; applied src/c.ts — New problems after the change: src/c.ts:1 error TS2322: Type 'string' is not assignable to type 'number'. [done]",
    ]);
  });

  it('a command waiting for approval, its approved run, a rejection with a reason, and a pause', function () {
    const rows = presentSteps('t-1', [
      ev('action_start', { callId: 'c1', name: 'run_command', input: { command: 'rm -rf build' } }),
      ev('action_end', { callId: 'c1', name: 'run_command', output: 'Asked the user to approve `rm -rf build` (not allowlisted). Nothing has run yet…' }),
      ev('user_message', { text: 'Approval a-1: approved (`rm -rf build` exited with code 0 in 40 ms.\n(no output))' }),
      ev('user_message', { text: 'Approval cs-2: rejected (The change was rejected: not now. Nothing was written.)' }),
      ev('user_message', { text: 'Approval cs-3: rejected (The change was rejected: the user rejected the change without a reason. Nothing was written.)' }),
      ev('pause', { reason: 'stopped', text: 'You stopped the task. Continue resumes it; Cancel ends it.', forModel: false }),
      ev('turn', { text: 'thinking' }),
      ev('todos', { todos: [] }),
    ]);
    assert.deepEqual(rows.map(line), [
      'Asked to run `rm -rf build` — waiting for your approval [done]',
      'You approved; ran `rm -rf build` — ✓ 40 ms [done]',
      'You rejected the change: “not now” [done]',
      // No reason given: the words meant for the model are not read back to the person.
      'You rejected the change [done]',
      'Paused: you stopped the task [done]',
    ]);
    // A rejection is not drawn with the approval's check mark.
    assert.deepEqual(
      rows.map((r) => r.kind),
      ['command', 'command', 'rejection', 'rejection', 'notice'],
    );
  });

  it('rows worded from the core’s codes, and the same rows stored before the codes, in English', function () {
    const refused = 'Not run: a turn runs at most 20 actions (tasklane.budget.maxActionsPerTurn), and 25 were called at once; the first 20 ran.';
    const stale =
      'The change was not applied: nothing was applied because these files changed on disk since the proposal: a.ts (modified), b.ts (deleted); read them again.';
    const invalid = 'Invalid input for read_file: path is required.';
    const pause = `The model sent invalid tool calls twice (${invalid}). Continue retries; Cancel ends the task.`;
    const coded = [
      ev('warning', { text: `5 tool call(s) of one response were not run: ${refused}`, notRun: { count: 5, code: 'turn_cap', cap: 20 } }),
      ev('action_start', { callId: 'c1', name: 'read_file', input: { path: 'a.ts' } }),
      ev('action_end', { callId: 'c1', name: 'read_file', error: refused, durationMs: 0, notRun: { code: 'turn_cap', cap: 20 } }),
      ev('user_message', {
        text: `Approval cs-1: rejected (${stale})`,
        stale: [
          { path: 'a.ts', change: 'modified' },
          { path: 'b.ts', change: 'deleted' },
        ],
      }),
      ev('error', { text: `Invalid tool calls after a repair turn: ${invalid}`, invalidToolCalls: invalid }),
      ev('pause', { reason: 'model_error', text: pause, invalidToolCalls: invalid }),
    ];
    assert.deepEqual(presentSteps('t-1', coded).map(line), [
      '5 tool call(s) of one response were not run: a turn runs at most 20 actions [done]',
      'Could not read a.ts — Not run: a turn runs at most 20 actions [failed]',
      'Not applied: the files changed since the proposal — a.ts (modified), b.ts (deleted) [failed]',
      'The model sent invalid tool calls again after a repair turn — Invalid input for read_file: path is required. [failed]',
      'Paused: the model sent invalid tool calls twice — Invalid input for read_file: path is required. [done]',
    ]);
    // Stored before the codes: the core's English, as the rows always showed it.
    const before = coded.map(({ data: { notRun: _n, stale: _s, invalidToolCalls: _i, ...data }, ...event }) => ({ ...event, data }));
    assert.deepEqual(presentSteps('t-1', before).map(line), [
      '5 tool call(s) of one response were not run: Not run: a turn runs at most 20 actions (tasklane.budget.maxActionsPerTurn… [done]',
      'Could not read a.ts — Not run: a turn runs at most 20 actions (tasklane.budget.maxActionsPerTurn), and 25 were called at once. [failed]',
      'Not applied: the files changed since the proposal — nothing was applied because these files changed on disk since the proposal: a.ts (modified), b.ts (deleted). [failed]',
      'Invalid tool calls after a repair turn: Invalid input for read_file: path is required. [failed]',
      'Paused: the model failed (The model sent invalid tool calls twice (Invalid input for read_file: path is required.).) [done]',
    ]);
  });

  it('never shows a tool call’s JSON: an unknown or MCP tool is named, its input left out', function () {
    const rows = presentSteps('t-1', [
      ev('action_start', { callId: 'c1', name: 'mcp_github_search_issues', input: { q: '{"secret":1}' } }),
      ev('action_end', { callId: 'c1', name: 'mcp_github_search_issues', output: '{"items":[]}' }),
    ]);
    assert.deepEqual(rows.map(line), ['Used `search_issues` from github [done]']);
    assert.ok(!JSON.stringify(rows).includes('secret'));
  });

  it('the live mapping posts a step with the trace event it came from', function () {
    const presenter = new StepPresenter();
    const messages = toHostMessages(
      { type: 'taskEvent', taskId: 't-1', event: ev('action_start', { callId: 'c1', name: 'read_file', input: { path: 'README.md' } }) },
      () => ({ session: undefined, tasks: [] }),
      presenter,
    );
    assert.deepEqual(
      messages.map((m) => m.type),
      ['traceAppended', 'thread.step'],
    );
    const turn = toHostMessages({ type: 'taskEvent', taskId: 't-1', event: ev('turn', { text: '' }) }, () => ({ session: undefined, tasks: [] }), presenter);
    assert.deepEqual(
      turn.map((m) => m.type),
      ['traceAppended'],
      'a model turn is not a step',
    );
  });
});
