import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { TaskRecord } from '../../../src/core/engine/records';
import type { PauseReason, SessionStatus, TaskStatus } from '../../../src/core/engine/types';
import { CHORE_RUN_STATUSES } from '../../../src/core/chores/runPolicy';
import { WEBVIEW_WORDS } from '../../../src/shared/webviewWords';
import { choreRunState, sessionStateWord, stateIconText, TASK_STATE_WORDS, TASK_STATES, taskState } from '../../../src/shared/taskState';
import type { TaskChecksVerdict, TaskStateWord } from '../../../src/shared/taskState';

// Every state the engine records must map onto the one vocabulary (issue #21: "the same state word
// on the row, the block and the status bar"). The Records below are typed by the engine's own
// unions: a status or pause reason added there fails to compile here until it is mapped and tested.
const STATUS: Record<TaskStatus, TaskStateWord> = {
  running: 'working',
  completed: 'done',
  error: 'failed',
  paused: 'paused',
  cancelled: 'cancelled',
};
const PAUSED_BY: Record<PauseReason, true> = { budget: true, model_error: true, stopped: true };
const SESSION: Record<SessionStatus, TaskStateWord | 'idle'> = { idle: 'idle', working: 'working', waiting: 'waiting for you', error: 'failed' };

// What judged an ended task (src/core/checks/taskChecks.ts), typed by the shared union: a verdict
// added there fails to compile here until it has its word.
const ENDED_BY_CHECKS: Record<TaskChecksVerdict, TaskStateWord> = {
  verified: 'verified',
  not_checked: 'done, not checked',
  failed: 'checks failed',
};

type Facts = Pick<TaskRecord, 'status' | 'paused' | 'waitingForUser' | 'waitingForApproval' | 'pauseReason' | 'checks'>;
const facts = (over: Partial<Facts>): Facts => ({ status: 'running', paused: false, waitingForUser: false, ...over });

describe('one vocabulary for a task state (src/shared/taskState.ts)', function () {
  it('maps every engine status to its word', function () {
    for (const [status, word] of Object.entries(STATUS) as Array<[TaskStatus, TaskStateWord]>) assert.equal(taskState(facts({ status })), word, status);
  });

  it('a running task that waits for the person (a question, an approval) is "waiting for you"; any pause is "paused"', function () {
    assert.equal(taskState(facts({ waitingForUser: true })), 'waiting for you');
    assert.equal(taskState(facts({ waitingForApproval: 'cs-1' })), 'waiting for you');
    for (const pauseReason of Object.keys(PAUSED_BY) as PauseReason[]) {
      assert.equal(taskState(facts({ paused: true, pauseReason })), 'paused', pauseReason);
      // A pause outranks a wait: Continue is what the person must press.
      assert.equal(taskState(facts({ paused: true, pauseReason, waitingForApproval: 'cs-1' })), 'paused', pauseReason);
    }
    // An ended task says how it ended, whatever flag was left behind.
    assert.equal(taskState(facts({ status: 'completed', waitingForUser: true })), 'done');
    assert.equal(taskState(facts({ status: 'cancelled', paused: true })), 'cancelled');
  });

  it('reaches every word, and each word has one codicon that exists in @vscode/codicons', function () {
    const reached = new Set<TaskStateWord>([
      ...Object.values(STATUS),
      taskState(facts({ waitingForUser: true })),
      taskState(facts({ paused: true, pauseReason: 'stopped' })),
      ...Object.values(ENDED_BY_CHECKS),
    ]);
    assert.deepEqual([...reached].sort(), [...TASK_STATE_WORDS].sort());
    const css = fs.readFileSync(require.resolve('@vscode/codicons/dist/codicon.css'), 'utf8');
    for (const word of TASK_STATE_WORDS) {
      const look = TASK_STATES[word];
      assert.equal(look.label, word);
      assert.ok(css.includes(`.codicon-${look.codicon}:before`), `no codicon "${look.codicon}" for "${word}"`);
    }
    const icons = TASK_STATE_WORDS.map((w) => TASK_STATES[w].codicon);
    assert.equal(new Set(icons).size, icons.length, 'two states share an icon');
    assert.equal(stateIconText('working'), '$(sync~spin)');
    assert.equal(stateIconText('waiting for you'), '$(bell-dot)');
  });

  it('a conversation row and a chore run speak the same words', function () {
    for (const [status, word] of Object.entries(SESSION) as Array<[SessionStatus, TaskStateWord | 'idle']>)
      assert.equal(sessionStateWord(status, false), word, status);
    assert.equal(sessionStateWord('idle', true), 'waiting for you');
    // A paused task's lane waits for Continue: its row says paused, as its block does.
    assert.equal(sessionStateWord('waiting', false, true), 'paused');
    const runs = Object.fromEntries(CHORE_RUN_STATUSES.map((s) => [s, choreRunState(s) ?? null]));
    assert.deepEqual(runs, {
      running: 'working',
      succeeded: 'done',
      failed: 'failed',
      budget_exhausted: null,
      awaiting_review: 'waiting for you',
      cancelled: 'cancelled',
      skipped: null,
      missed: null,
      // A run whose checks kept failing says so, as a person's task does; one with nothing to change is done (issue 43).
      checks_failed: 'checks failed',
      nothing_to_change: 'done',
    });
  });

  it("an ended task's word says what judged it, as its summary does: verified, done, not checked, checks failed", function () {
    assert.equal(taskState(facts({ status: 'completed', checks: 'verified' })), 'verified');
    assert.equal(taskState(facts({ status: 'completed', checks: 'not_checked' })), 'done, not checked');
    assert.equal(taskState(facts({ status: 'error', checks: 'failed' })), 'checks failed');
    // No verdict: nothing was checked (no file changed), or the model failed on its own.
    assert.equal(taskState(facts({ status: 'completed' })), 'done');
    assert.equal(taskState(facts({ status: 'error' })), 'failed');
    // The icon agrees with the word, on the host as in the webview.
    assert.equal(stateIconText('verified'), '$(verified-filled)');
    assert.equal(stateIconText('done, not checked'), '$(check)');
    assert.equal(stateIconText('checks failed'), '$(unverified)');
    // A verdict left on a task that was later cancelled does not outrank how it ended.
    assert.equal(taskState(facts({ status: 'cancelled', checks: 'verified' })), 'cancelled');
  });

  it('has one word for ending a task, the one its state then shows', function () {
    assert.equal(WEBVIEW_WORDS.gestureCancel, 'Cancel');
    assert.ok(TASK_STATE_WORDS.includes('cancelled'));
    assert.equal(WEBVIEW_WORDS.stateCancelled, 'cancelled');
  });
});
