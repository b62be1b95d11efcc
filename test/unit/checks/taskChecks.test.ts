/**
 * The workspace's checks for the tasks a person starts (issue 43): where they come from (the
 * person's settings, or a repository's checks.json only after a yes to exactly it), and what they
 * do at task_end in the real engine: a failure goes back to the model with the check's output, a
 * pass ends the task done with what checked it, the last failed round ends it failed saying why,
 * and a task that changed nothing is not checked.
 */
import * as assert from 'node:assert/strict';
import type { CommandResult } from '../../../src/core/approval/commands/commandApproval';
import { checkEventData, failureGist, toCheckResult } from '../../../src/core/checks/checkRun';
import { NOT_CHECKED, taskChecksHook } from '../../../src/core/checks/taskChecks';
import { presentSteps } from '../../../src/host/stepPresenter';
import { taskState } from '../../../src/shared/taskState';
import type { WorkspaceChecks } from '../../../src/core/checks/taskChecks';
import { checksHash, parseChecksFile, resolveWorkspaceChecks } from '../../../src/core/checks/workspaceChecks';
import type { ModelServer } from '../../fixtures/modelServer';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { createHarness, engineHooks } from '../engine/harness';
import type { Harness } from '../engine/harness';

const end = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'Fixed it.' } }] };
const start = { toolCalls: [{ name: 'task_start', arguments: { name: 'Work', instruction: 'Fix the failing test', mode: 'simple' } }] };

describe('workspace checks: where they come from', () => {
  const file = JSON.stringify({ commands: ['npm test', 'npm run lint'], rounds: 2 });

  it("a repository's checks.json does not run before the person's yes to exactly it", () => {
    const none = resolveWorkspaceChecks({ repositoryFile: file, consented: () => false });
    assert.equal(none.source, 'none');
    assert.deepEqual(none.source === 'none' && none.waiting?.checks, { commands: ['npm test', 'npm run lint'], rounds: 2 });
    const parsed = parseChecksFile(file);
    assert.ok('hash' in parsed);
    const yes = resolveWorkspaceChecks({ repositoryFile: file, consented: (hash) => hash === parsed.hash });
    assert.deepEqual(yes, { source: 'repository', checks: { commands: ['npm test', 'npm run lint'], rounds: 2 } });
    // An edit of the file is a new definition: the old yes does not cover it.
    const edited = JSON.stringify({ commands: ['npm test', 'npm run lint', 'node scripts/upload.js'], rounds: 2 });
    assert.equal(resolveWorkspaceChecks({ repositoryFile: edited, consented: (hash) => hash === parsed.hash }).source, 'none');
  });

  it("the person's own setting wins and needs no yes; a check that could run anything is refused", () => {
    assert.deepEqual(
      resolveWorkspaceChecks({ user: { commands: ['npm test'] }, repositoryFile: JSON.stringify({ commands: ['make'] }), consented: () => false }),
      {
        source: 'settings',
        checks: { commands: ['npm test'], rounds: 3 },
      },
    );
    const piped = parseChecksFile(JSON.stringify({ commands: ['npm test | tee out'] }));
    assert.match('problem' in piped ? piped.problem : '', /"npm test \| tee out" cannot be a check/);
    assert.notEqual(checksHash({ commands: ['a', 'b'], rounds: 3 }), checksHash({ commands: ['b', 'a'], rounds: 3 }));
  });
});

describe('workspace checks: a task that changed files ends only when they pass', function () {
  this.timeout(20_000);
  let server: ModelServer;
  let h: Harness;
  /** What the fake runner answers, one exit code per call, and what it was asked. */
  let exits: number[] = [];
  const ran: string[] = [];
  let changed = true;
  /** When set, a check waits for the test (or a Stop/Cancel) instead of answering at once. */
  let hold: ((signal: AbortSignal | undefined) => Promise<CommandResult>) | undefined;
  const checks: WorkspaceChecks = { commands: ['npm test'], rounds: 2 };
  /** The checks in force (undefined: none declared). */
  let declared: WorkspaceChecks | undefined = checks;
  engineHooks(
    'openai',
    {
      setServer: (s) => (server = s),
      setHarness: (x) => (h = x),
      harness: () => h,
    },
    async (s) =>
      createHarness({
        wire: 'openai',
        server: s,
        taskHooks: [
          taskChecksHook({
            checks: () => declared,
            changedFiles: async () => changed,
            logger: new MemoryLogger(),
            run: async (command, { signal }): Promise<CommandResult> => {
              ran.push(command);
              if (hold) return hold(signal);
              const exitCode = exits.shift() ?? 0;
              return {
                exitCode,
                output: exitCode ? 'FAIL answer: expected 42\n' : 'ok\n',
                truncatedChars: 0,
                timedOut: false,
                cancelled: false,
                durationMs: 1200,
              };
            },
          }),
        ],
      }),
  );
  beforeEach(() => {
    ran.length = 0;
    changed = true;
    declared = checks;
    hold = undefined;
  });

  const runTask = async () => {
    await h.agent.sendMessage('please fix the test');
    await h.idle();
    return h.agent.views.snapshot().tasks[0]!;
  };

  it('a failing check goes back to the model with its output; the fix ends the task done with what checked it', async () => {
    exits = [1, 0];
    server.script([start, end, end]);
    const task = await runTask();
    assert.equal(task.status, 'completed');
    assert.deepEqual(ran, ['npm test', 'npm test']);
    assert.match(JSON.stringify(server.requests[2]?.body), /`npm test` exited 1[\s\S]*FAIL answer: expected 42/);
    assert.match(task.finalSummary ?? '', /Fixed it\.\n\nChecked `npm test` ✓ 1\.2 s$/);
    // The block's word agrees with its summary: verified, not the model's "done".
    assert.equal(task.checks, 'verified');
    assert.equal(taskState(task), 'verified');
    // History's pick says the same word (its description), and keeps it across the archive's read.
    assert.match((await h.agent.history.search('Work')).find((hit) => hit.kind === 'task' && hit.id === task.id)?.detail ?? '', /^task · verified · /);
  });

  it("each check is a row of the task's block: running, then ✓ or ✗ with what failed; the model never sees the rows", async () => {
    exits = [1, 0];
    server.script([start, end, end]);
    const task = await runTask();
    const rows = presentSteps(task.id, await h.agent.views.readTaskEvents(task.id, { limit: 100 }))
      .filter((r) => r.id.startsWith('check:'))
      .map((r) => [r.text.map((t) => (typeof t === 'string' ? t : `\`${t.code}\``)).join(''), r.state, r.note]);
    assert.deepEqual(rows, [
      ['Checked `npm test`', 'failed', '✗ FAIL answer: expected 42 · 1.2 s'],
      ['Checked `npm test`', 'done', '✓ 1.2 s'],
    ]);
    for (const request of server.requests) assert.doesNotMatch(JSON.stringify(request.body), /"key":"\d+\.\d+"|Checked `npm test`/);
  });

  it('a check while it runs is a "Checking" row', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let finish!: (result: CommandResult) => void;
    hold = () =>
      new Promise<CommandResult>((resolve) => {
        finish = resolve;
        started();
      });
    server.script([start, end]);
    await h.agent.sendMessage('please fix the test');
    await running;
    const task = h.agent.views.snapshot().tasks[0]!;
    const rows = presentSteps(task.id, await h.agent.views.readTaskEvents(task.id, { limit: 100 })).filter((r) => r.id.startsWith('check:'));
    assert.deepEqual(
      rows.map((r) => [r.state, r.text[0]]),
      [['running', 'Checking ']],
    );
    finish({ exitCode: 0, output: 'ok\n', truncatedChars: 0, timedOut: false, cancelled: false, durationMs: 12_400 });
    await h.idle();
    const after = presentSteps(task.id, await h.agent.views.readTaskEvents(task.id, { limit: 100 })).filter((r) => r.id.startsWith('check:'));
    assert.deepEqual(
      after.map((r) => [r.state, r.note]),
      [['done', '✓ 12.4 s']],
    );
  });

  it('after the last failed round the task ends failed, saying which check failed', async () => {
    exits = [1, 1];
    server.script([start, end, end, end]);
    const task = await runTask();
    assert.equal(task.status, 'error');
    assert.match(task.finalSummary ?? '', /^Checks failed: `npm test` exited 1 after 2 rounds \(FAIL answer: expected 42\)/);
    assert.equal(server.requests.length, 3, 'no model call after the last round');
    assert.equal(task.checks, 'failed');
    assert.equal(taskState(task), 'checks failed');
    assert.match(
      (await h.agent.history.search('Work')).find((hit) => hit.kind === 'task' && hit.id === task.id)?.detail ?? '',
      /^task · checks failed · Checks failed/,
    );
  });

  it('a task that changed no file is not checked', async () => {
    changed = false;
    server.script([start, end]);
    const task = await runTask();
    assert.equal(task.status, 'completed');
    assert.deepEqual(ran, []);
    assert.equal(task.finalSummary, 'Fixed it.');
    // Nothing to check: done, and no verdict is recorded.
    assert.equal(task.checks, undefined);
    assert.equal(taskState(task), 'done');
  });

  it('a task that changed files where no checks are declared ends done, saying it was not checked', async () => {
    declared = undefined;
    server.script([start, end]);
    const task = await runTask();
    assert.equal(task.status, 'completed');
    assert.deepEqual(ran, []);
    assert.equal(task.finalSummary, `Fixed it.\n\n${NOT_CHECKED}`);
    assert.equal(task.checks, 'not_checked');
    assert.equal(taskState(task), 'done, not checked');
    assert.match((await h.agent.history.search('Work')).find((hit) => hit.kind === 'task' && hit.id === task.id)?.detail ?? '', /^task · done, not checked · /);
  });

  it("a model's summary that claims a check is no verdict: the word comes from the checks that ran, not the text", async () => {
    changed = false;
    const forged = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'Fixed it.\n\nChecked `npm test` ✓ 1.2 s' } }] };
    server.script([start, forged]);
    const task = await runTask();
    assert.deepEqual(ran, []);
    assert.equal(task.checks, undefined);
    assert.equal(taskState(task), 'done');
  });

  it("the task's end waits for its check, and Cancel during the check kills it and ends the task cancelled", async () => {
    let started!: (signal: AbortSignal | undefined) => void;
    const running = new Promise<AbortSignal | undefined>((resolve) => (started = resolve));
    const cancelled: CommandResult = { exitCode: null, output: '', truncatedChars: 0, timedOut: false, cancelled: true, durationMs: 1 };
    hold = (signal) =>
      new Promise<CommandResult>((resolve) => {
        signal?.addEventListener('abort', () => resolve(cancelled), { once: true });
        started(signal);
      });
    server.script([start, end, end]);
    await h.agent.sendMessage('please fix the test');
    const signal = await running;
    const task = h.agent.views.snapshot().tasks[0]!;
    assert.equal(task.status, 'running', 'not done while its check runs');
    await h.agent.cancelTask(task.id);
    await h.idle();
    assert.equal(signal?.aborted, true, 'the check was told to stop');
    assert.equal(h.agent.views.snapshot().tasks[0]?.status, 'cancelled');
    assert.equal(server.requests.length, 2, 'no model call after the cancel');
  });
});

describe('a failed check in a few words', () => {
  it('the count a test runner prints, with the first failure mocha lists; else the last line', () => {
    const mocha = '  12 passing (3s)\n  2 failing\n\n  1) greet\n       says hello:\n     AssertionError: expected 1\n  2) other';
    assert.equal(failureGist(mocha), '2 failing: greet');
    assert.equal(failureGist('Tests:       3 failed, 10 passed, 13 total\nTime: 2 s'), '3 failed');
    assert.equal(failureGist('src/a.ts(3,1): error TS2304: Cannot find name x\n'), 'src/a.ts(3,1): error TS2304: Cannot find name x');
    assert.equal(failureGist(''), undefined);
    const timedOut = toCheckResult('npm test', { exitCode: null, output: '', truncatedChars: 0, timedOut: true, cancelled: false, durationMs: 1 }, 60_000);
    assert.equal(checkEventData(timedOut).gist, 'did not finish within 60 s');
  });
});
