import * as assert from 'node:assert/strict';
import { compileExpression, evaluateSuccess, evaluateTaskCondition, finalOutput } from '../../../src/core/chores/expressions';
import { FileTriggerDebouncer, OwnEditTracker } from '../../../src/core/chores/fileTriggers';
import type { FileBurst } from '../../../src/core/chores/fileTriggers';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { TaskTriggerMatcher } from '../../../src/core/chores/taskTriggers';
import { ChoreRunBudget } from '../../../src/core/chores/runBudget';
import { decideConcurrency, decideFailureAction, decideRunOutcome, retryKey } from '../../../src/core/chores/runPolicy';
import type { ChoreBudget } from '../../../src/core/chores/types';
import { FakeClock } from '../../fakes/fakeClock';

const limits: ChoreBudget = { maxIterations: 3, maxSeconds: 60, maxInputTokens: 1000, maxCostUsd: 0.5 };
const usage = (input: number, cacheRead = 0) => ({ inputTokens: input, outputTokens: 10, cacheReadTokens: cacheRead, cacheWriteTokens: 0 });

describe('chores: ChoreRunBudget', () => {
  it('trips on iterations', () => {
    const budget = new ChoreRunBudget(limits, new FakeClock(0));
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(budget.check(), { ok: true });
      budget.recordModelCall(usage(1), 0);
    }
    const check = budget.check();
    assert.equal(check.ok, false);
    assert.equal(!check.ok && check.exhausted, 'iterations');
    assert.equal(budget.iterationsLeft(), 0);
  });

  it('trips on seconds, with a fake clock', async () => {
    const clock = new FakeClock(1_000);
    const budget = new ChoreRunBudget(limits, clock);
    await clock.advance(59_999);
    assert.deepEqual(budget.check(), { ok: true });
    await clock.advance(1);
    const check = budget.check();
    assert.equal(!check.ok && check.exhausted, 'seconds');
  });

  it('trips on input tokens, counting cache reads', () => {
    const budget = new ChoreRunBudget(limits, new FakeClock(0));
    budget.recordModelCall(usage(600), 0);
    assert.deepEqual(budget.check(), { ok: true });
    budget.recordModelCall(usage(100, 300), 0);
    const check = budget.check();
    assert.equal(!check.ok && check.exhausted, 'inputTokens');
    assert.match(!check.ok ? check.message : '', /1000 of 1000 input tokens/);
  });

  it('trips on cost', () => {
    const budget = new ChoreRunBudget(limits, new FakeClock(0));
    budget.recordModelCall(usage(1), 0.3);
    assert.deepEqual(budget.check(), { ok: true });
    budget.recordModelCall(usage(1), 0.25);
    const check = budget.check();
    assert.equal(!check.ok && check.exhausted, 'costUsd');
    assert.equal(budget.totals().costUsd, 0.55);
  });

  it('resumes from the original start and totals after a reload', async () => {
    const clock = new FakeClock(100_000);
    const resumed = new ChoreRunBudget(limits, clock, 50_000, { iterations: 2, inputTokens: 10, costUsd: 0.1 });
    assert.equal(resumed.iterationsLeft(), 1);
    assert.equal(resumed.totals().elapsedMs, 50_000);
    await clock.advance(10_000);
    const check = resumed.check();
    assert.equal(!check.ok && check.exhausted, 'seconds');
  });
});

describe('chores: successWhen and run outcome', () => {
  const done = compileExpression("status = 'done'");

  it('evaluates true, false and a runtime error', async () => {
    assert.deepEqual(await evaluateSuccess(done, { status: 'done' }), { result: 'true' });
    const no = await evaluateSuccess(done, { status: 'partial' });
    assert.equal(no.result, 'false');
    const missing = await evaluateSuccess(done, undefined);
    assert.equal(missing.result, 'false');
    assert.match((missing as { reason: string }).reason, /no JSON output/);
    const bad = await evaluateSuccess(compileExpression('status + 1 > 2'), { status: 'x' });
    assert.equal(bad.result, 'error');
    assert.equal((await evaluateSuccess(compileExpression('$count(items) > 1'), { items: [1, 2] })).result, 'true');
    assert.equal((await evaluateSuccess(compileExpression('items'), { items: [] })).result, 'false');
  });

  it('refuses an invalid expression at compile time, saying where', () => {
    assert.throws(() => compileExpression('status = '), /not valid JSONata.*at character/);
  });

  it('reads the final output from task_end, else the last message', () => {
    assert.deepEqual(finalOutput({ status: 'done' }, 'ignored'), { status: 'done' });
    assert.deepEqual(finalOutput('{"status":"done"}', undefined), { status: 'done' });
    assert.deepEqual(finalOutput(undefined, 'Done.\n```json\n{"status": "done"}\n```'), { status: 'done' });
    assert.equal(finalOutput(undefined, 'All good, nothing to report'), undefined);
  });

  it('gives one more turn while iterations remain, then fails', async () => {
    const verdict = await evaluateSuccess(done, { status: 'partial' });
    const again = decideRunOutcome({ kind: 'task_end', verdict }, 2);
    assert.equal(again.kind, 'continue');
    assert.match(again.kind === 'continue' ? again.message : '', /success condition.*"partial"|partial/);
    assert.deepEqual(decideRunOutcome({ kind: 'task_end', verdict }, 0).kind, 'end');
    assert.equal((decideRunOutcome({ kind: 'task_end', verdict }, 0) as { status: string }).status, 'failed');
    assert.deepEqual(decideRunOutcome({ kind: 'task_end', verdict: { result: 'true' } }, 0), { kind: 'end', status: 'succeeded' });
    assert.deepEqual(decideRunOutcome({ kind: 'task_end' }, 0), { kind: 'end', status: 'succeeded' });
    assert.equal((decideRunOutcome({ kind: 'task_end', verdict: { result: 'error', reason: 'x' } }, 5) as { status: string }).status, 'failed');
    assert.equal((decideRunOutcome({ kind: 'budget_exhausted', limit: 'costUsd', message: 'spent' }, 5) as { status: string }).status, 'budget_exhausted');
    assert.equal((decideRunOutcome({ kind: 'approval_timeout', pendingApprovals: 1 }, 5) as { status: string }).status, 'awaiting_review');
  });
});

describe('chores: failure policy', () => {
  const base = { maxRetries: 2, retryDelaySeconds: 60 };
  const channels = { webhook: { url: 'http://127.0.0.1:1/x' } };

  it('retries a failed run a bounded number of times with backoff, then escalates', () => {
    const chore = { ...base, onFailure: 'retry' as const, escalate: channels };
    assert.deepEqual(decideFailureAction(chore, 'failed', 0), { kind: 'retry', attempt: 1, delayMs: 60_000 });
    assert.deepEqual(decideFailureAction(chore, 'failed', 1), { kind: 'retry', attempt: 2, delayMs: 120_000 });
    assert.deepEqual(decideFailureAction(chore, 'failed', 2), { kind: 'escalate' });
    assert.deepEqual(decideFailureAction({ ...chore, escalate: undefined }, 'failed', 2), { kind: 'silent' });
    assert.deepEqual(decideFailureAction(chore, 'budget_exhausted', 0), { kind: 'escalate' }, 'no retry into the same wall');
    assert.equal(retryKey('chore:a:2025-03-05T02:00:00.000Z', 1), 'chore:a:2025-03-05T02:00:00.000Z:retry1');
  });

  it('escalates or stays silent per policy, and does nothing on success', () => {
    assert.deepEqual(decideFailureAction({ ...base, onFailure: 'escalate', escalate: channels }, 'failed', 0), { kind: 'escalate' });
    assert.deepEqual(decideFailureAction({ ...base, onFailure: 'escalate', escalate: channels }, 'awaiting_review', 0), { kind: 'escalate' });
    assert.deepEqual(decideFailureAction({ ...base, onFailure: 'silent', escalate: channels }, 'failed', 0), { kind: 'silent' });
    assert.deepEqual(decideFailureAction({ ...base, onFailure: 'escalate', escalate: channels }, 'succeeded', 0), { kind: 'none' });
  });
});

describe('chores: concurrency with overlapping fires', () => {
  const active = { runId: 'run-1' };
  it('starts when nothing runs', () => {
    assert.deepEqual(decideConcurrency({ concurrency: 'skip', queueMaxWaitSeconds: 600 }, undefined, { firedAt: 0 }, 0), { kind: 'start' });
  });
  it('skip drops the overlapping fire', () => {
    const d = decideConcurrency({ concurrency: 'skip', queueMaxWaitSeconds: 600 }, active, { firedAt: 0 }, 10);
    assert.equal(d.kind, 'skip');
  });
  it('replace cancels the active run', () => {
    assert.deepEqual(decideConcurrency({ concurrency: 'replace', queueMaxWaitSeconds: 600 }, active, { firedAt: 0 }, 10), {
      kind: 'replace',
      cancelRunId: 'run-1',
    });
  });
  it('queue waits until the wait limit, then drops', () => {
    const policy = { concurrency: 'queue' as const, queueMaxWaitSeconds: 60 };
    assert.deepEqual(decideConcurrency(policy, active, { firedAt: 1_000 }, 2_000), { kind: 'wait', recheckAt: 7_000 });
    assert.deepEqual(decideConcurrency(policy, active, { firedAt: 1_000 }, 58_000), { kind: 'wait', recheckAt: 61_000 });
    assert.equal(decideConcurrency(policy, active, { firedAt: 1_000 }, 61_000).kind, 'drop');
    assert.deepEqual(decideConcurrency(policy, undefined, { firedAt: 1_000 }, 30_000), { kind: 'start' });
  });
});

describe('chores: file-trigger debouncing', () => {
  let clock: FakeClock;
  let bursts: FileBurst[];
  let tracker: OwnEditTracker;
  let debouncer: FileTriggerDebouncer;

  beforeEach(() => {
    clock = new FakeClock(0);
    bursts = [];
    tracker = new OwnEditTracker(clock, 5_000);
    debouncer = new FileTriggerDebouncer({ clock, onFire: (b) => bursts.push(b), isOwnEdit: (id, p) => tracker.isOwnEdit(id, p) });
    debouncer.configure([
      { id: 'lint', debounceMs: 1_000 },
      { id: 'docs', debounceMs: 500 },
    ]);
  });

  it('turns a save storm into one run with the distinct paths', async () => {
    for (let i = 0; i < 20; i++) {
      debouncer.push('lint', `src/f${i % 3}.ts`);
      await clock.advance(200);
    }
    assert.equal(bursts.length, 0, 'still saving');
    assert.deepEqual(debouncer.bursts('lint'), { fired: 0, collecting: true });
    await clock.advance(1_000);
    assert.equal(bursts.length, 1);
    assert.deepEqual(bursts[0].paths, ['src/f0.ts', 'src/f1.ts', 'src/f2.ts']);
    assert.equal(bursts[0].events, 20);
    // What getState reports, so a host test can tell no second run is coming.
    assert.deepEqual(debouncer.bursts('lint'), { fired: 1, collecting: false });
    assert.deepEqual(debouncer.bursts('docs'), { fired: 0, collecting: false });
    assert.equal(debouncer.bursts('unknown'), undefined);
  });

  it('coalesces per chore', async () => {
    debouncer.push('lint', 'a.ts');
    debouncer.push('docs', 'README.md');
    await clock.advance(500);
    assert.deepEqual(
      bursts.map((b) => b.choreId),
      ['docs'],
    );
    await clock.advance(500);
    assert.deepEqual(
      bursts.map((b) => b.choreId),
      ['docs', 'lint'],
    );
  });

  it('fires after the max wait during an endless storm', async () => {
    for (let t = 0; t < 12_000; t += 100) {
      debouncer.push('lint', 'a.ts');
      await clock.advance(100);
    }
    assert.equal(bursts.length, 1, 'one run at the 10 s max wait');
    assert.ok(bursts[0].events >= 99 && bursts[0].events <= 101, String(bursts[0].events));
  });

  it("ignores events caused by the chore's own edits, not other chores'", async () => {
    tracker.noteWrite('lint', ['src/a.ts']);
    assert.equal(debouncer.push('lint', 'src/a.ts'), false);
    assert.equal(debouncer.push('docs', 'src/a.ts'), true);
    await clock.advance(6_000);
    assert.deepEqual(
      bursts.map((b) => b.choreId),
      ['docs'],
    );
    assert.equal(debouncer.push('lint', './src/a.ts'), true, 'the window is over');
    assert.equal(debouncer.push('unknown', 'x'), false);
  });
});

describe('chores: task-trigger condition', () => {
  it('evaluates exitCode conditions over { name, exitCode }', async () => {
    const failed = compileExpression('exitCode != 0');
    assert.equal(await evaluateTaskCondition(failed, { name: 'build', exitCode: 2 }), true);
    assert.equal(await evaluateTaskCondition(failed, { name: 'build', exitCode: 0 }), false);
    assert.equal(await evaluateTaskCondition(compileExpression("exitCode > 1 and name = 'build'"), { name: 'build', exitCode: 1 }), false);
    assert.equal(await evaluateTaskCondition(undefined, { name: 'build', exitCode: 0 }), true, 'no condition: every end');
  });

  it('matches a finished task to the chores it fires', async () => {
    const { chores } = parseChoresFile(
      [
        'chores:',
        '  - { id: fix, name: Fix, prompt: p, trigger: { task: { name: build, when: "exitCode != 0" } } }',
        '  - { id: any, name: Any, prompt: p, trigger: { task: { name: build } } }',
        '  - { id: test, name: Test, prompt: p, trigger: { task: { name: test, when: "exitCode != 0" } } }',
        '  - { id: cron, name: Cron, prompt: p, trigger: { cron: "0 2 * * *" } }',
      ].join('\n'),
    );
    const matcher = new TaskTriggerMatcher();
    matcher.configure(chores);
    assert.deepEqual(await matcher.match({ name: 'build', exitCode: 1 }), ['fix', 'any']);
    assert.deepEqual(await matcher.match({ name: 'build', exitCode: 0 }), ['any']);
    assert.deepEqual(await matcher.match({ name: 'test', exitCode: undefined }), [], 'no exit code is not "!= 0"');
    assert.deepEqual(await matcher.match({ name: 'lint', exitCode: 3 }), []);
  });
});
