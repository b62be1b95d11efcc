import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { defineAction } from '../../../src/core/actions/types';
import { buildReviewPayload, emailText, slackMessage } from '../../../src/core/chores/escalationPayload';
import type { ChoreRunRecord } from '../../../src/core/chores/runLog';
import { startHttpReceiver } from '../../fixtures/escalationServers';
import type { HttpReceiver } from '../../fixtures/escalationServers';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from './runnerHarness';
import type { RunnerHarness } from './runnerHarness';

// A chore run that parks on a review tells its escalation channels what waits, with the link that
// opens it in VS Code; the decision resumes the same run with no model call while it waited.

const link = (id: string) => `vscode://tasklane.tasklane/approval?id=${encodeURIComponent(id)}`;

const run: ChoreRunRecord = {
  runId: 'run-1',
  choreId: 'fixer',
  fireKey: 'chore:fixer:2026-01-01T00:00:00.000Z',
  attempt: 0,
  cause: 'manual',
  status: 'running',
  startedAt: 0,
  endedAt: null,
  steps: [],
  usage: { iterations: 1, elapsedMs: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
} as unknown as ChoreRunRecord;

describe('chore review notice: the escalation carries a summary and the approval link', function () {
  this.timeout(20_000);

  it('webhook JSON, Slack and email bodies all carry the link and the summary', () => {
    const payload = buildReviewPayload({ id: 'fixer', name: 'Fixer' }, run, { id: 'cs-42', summary: 'Edit README.md', link: link('cs-42') }, 'repo');
    assert.equal(payload.status, 'awaiting_review');
    assert.deepEqual(payload.approval, { id: 'cs-42', summary: 'Edit README.md', link: 'vscode://tasklane.tasklane/approval?id=cs-42' });
    assert.match(payload.reason, /Edit README\.md/);
    const slack = JSON.stringify(slackMessage(payload));
    assert.ok(slack.includes('<vscode://tasklane.tasklane/approval?id=cs-42|Open the proposal in VS Code>'), slack);
    const mail = emailText(payload);
    assert.ok(mail.includes('  vscode://tasklane.tasklane/approval?id=cs-42'), mail);
    assert.match(mail, /awaiting review/);
  });

  it('the summary is redacted like every other escalation text', () => {
    const payload = buildReviewPayload(
      { id: 'fixer', name: 'Fixer' },
      run,
      { id: 'a', summary: 'Run: deploy --token SECRET123', link: link('a') },
      undefined,
      (t) => t.replace('SECRET123', '[redacted]'),
    );
    assert.equal(payload.approval?.summary, 'Run: deploy --token [redacted]');
    assert.doesNotMatch(JSON.stringify(payload), /SECRET123/);
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

    // Stands in for write_file: proposes, and the task waits for the decision.
    const propose = defineAction({
      name: 'propose_fix',
      description: 'Propose a fix for review.',
      input: z.object({}),
      actionSets: ['read'],
      parallelizable: false,
      irreversible: false,
      approval: 'never',
      run: async (_input, ctx) => {
        ctx.turn.needsApproval('cs-7', 'Edit README.md');
        return 'proposed; waiting for review';
      },
    });
    const yaml = (extra: string) =>
      `chores:\n  - id: fixer\n    name: Fixer\n    trigger: { cron: "0 3 * * *" }\n    prompt: Fix the typo.\n    budget: { maxSeconds: 600 }\n${extra}`;

    it('parks, sends one notice with the link, then resumes to success on approval with no model call while waiting', async () => {
      const described: string[] = [];
      h = await open(
        choresFrom(yaml(`    escalate: { webhook: { url: "${receiver.baseUrl}/hook" } }\n`)),
        {
          reviewLinks: { linkFor: async (id) => link(id), describe: async (id) => (described.push(id), 'Edit README.md') },
        },
        { actions: [propose] },
      );
      server.script([
        { toolCalls: [{ name: 'propose_fix', arguments: {} }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'fixed', output: {} } }] },
      ]);
      await h.runner.fire('fixer', 'manual');
      // Idle: the turn that parked has ended and the notice the runner sent for it has been answered.
      await h.idle();
      assert.equal(receiver.requests.length, 1, 'one notice');
      const body = receiver.requests[0].body as { status: string; runId: string; approval?: { id: string; link: string; summary: string } };
      assert.equal(body.status, 'awaiting_review');
      assert.deepEqual(body.approval, { id: 'cs-7', summary: 'Edit README.md', link: 'vscode://tasklane.tasklane/approval?id=cs-7' });
      const active = h.runLog.history('fixer')[0];
      assert.equal(active.status, 'running', 'the run stays open while it waits');
      assert.equal(body.runId, active.runId);
      const modelCalls = server.requests.length;
      assert.equal(modelCalls, 1);
      // Nobody at the machine for most of the run's maxSeconds (600 s): no model call is made.
      await h.clock.advance(590_000);
      await h.idle();
      assert.equal(server.requests.length, modelCalls, 'no model call while it waited');
      assert.equal(receiver.requests.length, 1, 'announced once');
      const task = h.agent.views.snapshot().tasks.find((t) => t.source === 'chore:fixer')!;
      await h.triggers.emit({
        source: 'approval',
        sessionId: task.sessionId,
        payload: { approvalId: 'cs-7', decision: 'approved' },
        dedupKey: 'approval:cs-7',
      });
      const ended = await h.ended('fixer');
      assert.equal(ended.runId, active.runId, 'the same run resumed');
      assert.equal(ended.status, 'succeeded', ended.reason ?? '');
      assert.equal(server.requests.length, modelCalls + 1);
      assert.match(JSON.stringify(server.requests[1].body), /Approval cs-7: approved/);
      const ledger = h.db.query('SELECT action, status FROM ledger WHERE task_id = ?', [active.runId]);
      assert.deepEqual(
        ledger.map((r) => [r.action, r.status]),
        [['chore_review_notice', 'done']],
      );
    });

    it('no channel, or onFailure silent: nothing is sent', async () => {
      for (const extra of ['', `    onFailure: silent\n    escalate: { webhook: { url: "${receiver.baseUrl}/hook" } }\n`]) {
        h = await open(
          choresFrom(yaml(extra)),
          { reviewLinks: { linkFor: async (id) => link(id), describe: async () => 'Edit README.md' } },
          { actions: [propose] },
        );
        server.script([{ toolCalls: [{ name: 'propose_fix', arguments: {} }] }]);
        await h.runner.fire('fixer', 'manual');
        // Idle: the task has parked and the runner has decided about a notice (and sent none).
        await h.idle();
        assert.ok(
          h.agent.views.snapshot().tasks.some((t) => t.waitingForApproval),
          'the task waits',
        );
        server.reset();
      }
      assert.equal(receiver.requests.length, 0);
    });
  });
});
