/**
 * The pause notice (issue 43, src/core/chores/pauseNotice.ts): a chore run that parks at its budget
 * in VS Code tells the chore's escalation channels, once, with the run's link and a link that
 * resumes it after the person's yes. A reload finds the run parked and sends nothing again; a
 * silent chore, or a runner without resume links (the CLI), sends nothing.
 */
import * as assert from 'node:assert/strict';
import { buildPausePayload, emailText, slackMessage } from '../../../src/core/chores/escalationPayload';
import type { EscalationPayload } from '../../../src/core/chores/escalationPayload';
import type { ChoreRunRecord } from '../../../src/core/chores/runLog';
import { startHttpReceiver } from '../../fixtures/escalationServers';
import type { HttpReceiver } from '../../fixtures/escalationServers';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from './runnerHarness';
import type { RunnerHarness } from './runnerHarness';

const resumeLink = async (id: string) => `vscode://tasklane.tasklane/resume?id=${encodeURIComponent(id)}`;
const runLink = async (id: string) => `vscode://tasklane.tasklane/run?id=${encodeURIComponent(id)}`;
const read = (path: string) => ({ toolCalls: [{ name: 'read_file', arguments: { path } }] });
const end = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output: { status: 'done' } } }] };
const HOUR = 3_600_000;

const chore = (extra: string) => `chores:
  - id: demo
    name: Demo chore
    trigger: { files: ["src/**"] }
    prompt: Tidy the repo.
    budget: { maxIterations: 2, maxSeconds: 600, maxCostUsd: 0.5 }
${extra}`;

const grants = { maxIterations: 2, maxSeconds: 600, maxInputTokens: 1_000_000, maxCostUsd: 0.5 };
const parkedRun = {
  runId: 'run-1',
  choreId: 'demo',
  fireKey: 'chore:demo:2026-01-01T00:00:00.000Z',
  attempt: 0,
  cause: 'manual',
  status: 'running',
  startedAt: 0,
  endedAt: null,
  steps: [],
  usage: { iterations: 2, elapsedMs: 4000, inputTokens: 1200, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.01 },
  parked: { message: 'used 2 of 2 iterations (budget.maxIterations)', at: 1 },
} as unknown as ChoreRunRecord;

describe('chore pause notice: a run parked at its budget tells its channels how to continue', function () {
  this.timeout(20_000);

  it('webhook JSON, Slack and email say "paused at budget", what was used and how to continue, with the resume link', () => {
    const link = 'vscode://tasklane.tasklane/resume?id=run-1';
    const payload = buildPausePayload({ id: 'demo', name: 'Demo chore' }, parkedRun, { message: parkedRun.parked!.message, grants, link }, 'repo');
    assert.equal(payload.status, 'paused_at_budget');
    assert.equal(payload.reason, 'paused at budget: used 2 of 2 iterations (budget.maxIterations)');
    assert.deepEqual(payload.pause, { message: 'used 2 of 2 iterations (budget.maxIterations)', grants, link });
    const slack = JSON.stringify(slackMessage(payload));
    assert.ok(slack.includes(`<${link}|Resume it in VS Code>`), slack);
    assert.match(slack, /paused at budget: used 2 of 2 iterations/);
    assert.match(slack, /Usage: 2 iterations/);
    const mail = emailText(payload);
    assert.match(mail, /^Tasklane chore "Demo chore" paused at budget in repo$/m);
    assert.match(mail, /How to continue: .*asks you first.*another budget of the chore's size \(2 iterations, 1000000 input tokens, \$0\.50, 600 s\)/);
    assert.ok(mail.includes(`  ${link}`), mail);
    assert.match(mail, /Usage: {3}2 iterations, 4 s, 1200 input/);
  });

  it('the message is redacted like every other escalation text', () => {
    const payload = buildPausePayload(
      { id: 'demo', name: 'Demo chore' },
      parkedRun,
      { message: 'used SECRET123', grants, link: 'vscode://x' },
      undefined,
      (t) => t.replaceAll('SECRET123', '[redacted]'),
    );
    assert.doesNotMatch(JSON.stringify(payload), /SECRET123/);
    assert.equal(payload.pause?.message, 'used [redacted]');
  });

  describe('through the real engine and the scripted model', () => {
    let server: ModelServer;
    let receiver: HttpReceiver;
    let h: RunnerHarness;
    const open = useRunnerHarness((s) => (server = s));
    before(async () => {
      receiver = await startHttpReceiver();
    });
    after(async () => receiver.close());
    beforeEach(() => {
      receiver.requests.length = 0;
    });
    const escalate = () => `    escalate: { webhook: { url: "${receiver.baseUrl}/hook" } }\n`;

    it('parks, sends exactly one notice with both links; a reload sends none; Continue resumes the same run', async () => {
      h = await open(choresFrom(chore(escalate())), { parkAtBudget: true, resumeLink, runLink });
      server.script([read('src/app.ts'), read('CHANGELOG.md'), end]);
      await h.runner.fire('demo', 'manual');
      // Idle: the task paused, the runner parked the run and the notice it sent was answered.
      await h.idle();
      const run = h.runLog.active()[0];
      assert.ok(run?.parked, 'the run is parked');
      assert.equal(receiver.requests.length, 1, 'one notice');
      assert.equal(receiver.requests[0].path, '/hook');
      const body = receiver.requests[0].body as EscalationPayload;
      assert.equal(body.status, 'paused_at_budget');
      assert.equal(body.runId, run.runId);
      assert.match(body.reason, /^paused at budget: .*iterations/);
      assert.equal(body.usage.iterations, 2, 'what it used');
      assert.equal(body.runLink, `vscode://tasklane.tasklane/run?id=${run.runId}`);
      assert.equal(body.pause?.link, `vscode://tasklane.tasklane/resume?id=${run.runId}`);
      assert.deepEqual(body.pause?.grants, grants);
      const ledger = h.db.query('SELECT action, status FROM ledger WHERE task_id = ?', [run.runId]);
      assert.deepEqual(
        ledger.map((r) => [r.action, r.status]),
        [['chore_budget_notice', 'done']],
      );

      // A reload (a new runner over the same store) finds the run parked: nothing is sent again.
      const reopened = await h.reopen();
      try {
        await reopened.idle();
        await reopened.clock.advance(HOUR);
        await reopened.idle();
        assert.ok(reopened.runLog.get(run.runId)?.parked, 'still parked after the reload');
        assert.equal(receiver.requests.length, 1, 'not announced again after the reload');
        const task = reopened.agent.views.snapshot().tasks.find((t) => t.id === run.taskId)!;
        await reopened.agent.continueTask(task.id);
        const ended = await reopened.ended('demo');
        assert.equal(ended.status, 'succeeded', ended.reason ?? '');
        assert.equal(receiver.requests.length, 1, 'a run that succeeds after a resume is not escalated');
      } finally {
        await reopened.close();
      }
    });

    it('a silent chore, a chore without channels, and a runner without resume links (the CLI) send none', async () => {
      const cases: Array<[string, Record<string, unknown>]> = [
        [`    onFailure: silent\n${escalate()}`, { parkAtBudget: true, resumeLink, runLink }],
        ['', { parkAtBudget: true, resumeLink, runLink }],
        [escalate(), { parkAtBudget: true, runLink }],
      ];
      for (const [extra, options] of cases) {
        h = await open(choresFrom(chore(extra)), options);
        server.script([read('src/app.ts'), read('CHANGELOG.md'), end]);
        await h.runner.fire('demo', 'manual');
        // Idle: the run parked and the runner decided about a notice (and sent none).
        await h.idle();
        assert.ok(h.runLog.active()[0]?.parked, 'the run is parked');
        server.reset();
      }
      assert.equal(receiver.requests.length, 0);
    });
  });
});
