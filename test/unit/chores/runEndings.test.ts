/**
 * How a chore run ends when the model behaves as real ones do (issue 39): a final answer in prose
 * with or without JSON, a question nobody will answer, an honest needs_human, a false successWhen
 * again and again, and a `wait` past maxSeconds. Each run ends within its deadline with the right
 * status, successWhen is evaluated on the output, and an escalation is sent exactly once.
 */
import * as assert from 'node:assert/strict';
import { startHttpReceiver } from '../../fixtures/escalationServers';
import type { HttpReceiver } from '../../fixtures/escalationServers';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from './runnerHarness';
import type { RunnerHarness } from './runnerHarness';

const end = (output: Record<string, unknown>) => ({ toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output } }] });

describe('chore runs end honestly whatever way the model ends its turn', function () {
  this.timeout(20_000);
  let server: ModelServer;
  let h: RunnerHarness;
  let receiver: HttpReceiver;
  const open = useRunnerHarness((s) => (server = s));
  before(async () => (receiver = await startHttpReceiver()));
  after(async () => receiver.close());
  beforeEach(() => receiver.requests.splice(0));

  const chore = (extra: string) =>
    choresFrom(`chores:
  - id: demo
    name: Demo chore
    trigger: { files: ["src/**"] }
    prompt: Check the repo.
    escalate: { webhook: { url: "${receiver.baseUrl}/hook" } }
${extra
  .split('\n')
  .filter(Boolean)
  .map((l) => `    ${l}`)
  .join('\n')}
`);

  /** Fires the chore and waits until the engine and the runner are idle; returns the newest run. */
  const fireAndSettle = async () => {
    await h.runner.fire('demo', 'manual');
    await h.idle();
    return h.runLog.history('demo')[0];
  };
  const sentTo = (status: string) => receiver.requests.filter((r) => (r.body as { status?: string }).status === status).length;

  it('a final JSON in prose: nudged once, then accepted as the output and judged by successWhen', async () => {
    h = await open(chore(`successWhen: "no_new_issues = true"\nonFailure: escalate`));
    server.script([{ text: 'Nothing new today. {"no_new_issues": true}' }, { text: 'As I said:\n```json\n{"no_new_issues": true}\n```' }]);
    const run = await fireAndSettle();
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    assert.equal(server.requests.length, 2, 'one nudge, no more turns');
    assert.match(JSON.stringify(server.requests[1].body), /call task_end now/);
    const task = h.agent.views.snapshot().tasks.find((t) => t.id === run.taskId)!;
    assert.deepEqual(task.output, { no_new_issues: true }, 'the prose JSON is the run output');
    assert.equal(receiver.requests.length, 0);
  });

  it('a prose JSON the chore judges false fails the run on its verdict and escalates once', async () => {
    h = await open(chore(`successWhen: "no_new_issues = true"\nonFailure: escalate`));
    // The JSON came before the nudge; the answers after it have none: the earlier one is the
    // output, judged false, re-prompted once (as after task_end), then failed on its verdict.
    server.script([{ text: '{"no_new_issues": false}' }, { text: 'I already answered above.' }, { text: 'Still no.' }]);
    const run = await fireAndSettle();
    assert.equal(run.status, 'failed');
    assert.match(run.reason ?? '', /successWhen \(no_new_issues = true\) was false/);
    assert.equal(server.requests.length, 3, 'a nudge and one re-prompt');
    assert.match(JSON.stringify(server.requests[2].body), /does not meet this chore's success condition/);
    assert.equal(sentTo('failed'), 1);
  });

  it('prose without JSON: one nudge, then failed "ended without task_end", escalated once', async () => {
    h = await open(chore(`successWhen: "status = 'done'"\nonFailure: escalate`));
    server.script([{ text: 'Everything looks fine to me.' }, { text: 'Yes, all fine.' }, end({ status: 'done' })]);
    const run = await fireAndSettle();
    assert.equal(run.status, 'failed');
    assert.match(run.reason ?? '', /ended without task_end/);
    assert.equal(server.requests.length, 2, 'no third turn');
    assert.equal(receiver.requests.length, 1);
    assert.equal((receiver.requests[0].body as { runId: string }).runId, run.runId);
  });

  it('a question to nobody (ask_user) is a turn without task_end too: nudged, not waited on', async () => {
    h = await open(chore(`successWhen: "status = 'done'"`));
    server.script([{ toolCalls: [{ name: 'ask_user', arguments: { question: 'Shall I go on?' } }] }, end({ status: 'done' })]);
    const run = await fireAndSettle();
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    assert.equal(server.requests.length, 2);
  });

  it('needs_human ends the run at once: failed with its cause, no re-prompt, no retry, escalated once', async () => {
    h = await open(chore(`successWhen: "status = 'fix_proposed'"\nonFailure: retry\nmaxRetries: 2\nretryDelaySeconds: 1`));
    server.script([end({ status: 'needs_human', cause: 'the build needs a secret I do not have' }), end({ status: 'fix_proposed' })]);
    const run = await fireAndSettle();
    assert.equal(run.status, 'failed');
    assert.match(run.reason ?? '', /needs_human: the build needs a secret I do not have/);
    assert.equal(server.requests.length, 1, 'not re-prompted');
    await h.clock.advance(60_000);
    await h.idle();
    assert.equal(h.runLog.history('demo').length, 1, 'not retried');
    assert.equal(receiver.requests.length, 1, 'escalated once instead');
  });

  it('a terminal status the chore declares ends the run like needs_human, and the task is told about it', async () => {
    h = await open(chore(`successWhen: "status = 'done'"\nterminalStatuses: [blocked]\nonFailure: escalate`));
    server.script([end({ status: 'blocked', reason: 'the staging server is down' }), end({ status: 'done' })]);
    const run = await fireAndSettle();
    assert.equal(run.status, 'failed');
    assert.match(run.reason ?? '', /answered blocked: the staging server is down/);
    assert.equal(server.requests.length, 1);
    assert.match(JSON.stringify(server.requests[0].body), /status is one of needs_human, blocked/);
    assert.equal(sentTo('failed'), 1);
  });

  it('a false successWhen is re-prompted at most once, however many iterations are left', async () => {
    h = await open(chore(`successWhen: "status = 'done'"\nbudget: { maxIterations: 10 }\nonFailure: escalate`));
    server.script([end({ status: 'almost' }), end({ status: 'nearly' }), end({ status: 'done' })]);
    const run = await fireAndSettle();
    assert.equal(run.status, 'failed');
    assert.match(run.reason ?? '', /"nearly"/, 'judged on the last output');
    assert.equal(server.requests.length, 2);
    assert.equal(sentTo('failed'), 1);
  });

  it('malformed tool arguments: one repair turn; malformed again, the run fails and escalates once', async () => {
    h = await open(chore(`successWhen: "status = 'done'"\nonFailure: escalate`));
    const broken = { toolCalls: [{ name: 'task_end', arguments: '{"status": "completed", "summary": "done", "output": {"status": "do' }] };
    server.script([broken, end({ status: 'done' })]);
    const repaired = await fireAndSettle();
    assert.equal(repaired.status, 'succeeded', repaired.reason ?? '');
    assert.equal(server.requests.length, 2);
    server.reset();
    await h.clock.advance(1000);
    server.script([broken, broken]);
    const run = await fireAndSettle();
    assert.equal(run.status, 'failed');
    assert.match(run.reason ?? '', /the model failed repeatedly/);
    assert.equal(server.requests.length, 2, 'one repair turn, no more');
    assert.equal(sentTo('failed'), 1);
  });

  it('a stream cut before its finish reason is not an answer: the turn is retried and the run judged on the real one', async () => {
    h = await open(chore(`successWhen: "status = 'done'"\nonFailure: escalate`));
    server.script([{ ...end({ status: 'done' }), truncateAfterChunks: 1 }, end({ status: 'done' })]);
    const first = await fireAndSettle();
    assert.equal(first.status, 'running', 'the half answer ended nothing');
    await h.clock.advance(15_000);
    await h.idle();
    const run = h.runLog.get(first.runId)!;
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    assert.equal(server.requests.length, 2);
    assert.equal(receiver.requests.length, 0);
  });

  it('a context-length error is retried once with the history cut; refused again, the run fails and escalates once', async () => {
    h = await open(chore(`successWhen: "status = 'done'"\nonFailure: escalate`));
    const tooLong = {
      status: 400,
      code: 'context_length_exceeded',
      message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.",
    };
    const read = { toolCalls: [{ name: 'read_file', arguments: { path: 'src/app.ts' } }] };
    server.script([read, { error: tooLong }, end({ status: 'done' })]);
    const retried = await fireAndSettle();
    assert.equal(retried.status, 'succeeded', retried.reason ?? '');
    assert.deepEqual(
      server.requests.map((r) => r.status ?? 200),
      [200, 400, 200],
    );
    server.reset();
    await h.clock.advance(1000);
    server.script([read, { error: tooLong }, { error: tooLong }]);
    const run = await fireAndSettle();
    assert.equal(run.status, 'failed');
    assert.match(run.reason ?? '', /the model failed repeatedly/);
    assert.equal(server.requests.length, 3, 'retried once, not more');
    assert.equal(sentTo('failed'), 1);
  });

  it('maxSeconds is a wall clock: a wait past it ends the run at its deadline, escalates once and frees the slot', async () => {
    h = await open(chore(`budget: { maxSeconds: 60 }\nonFailure: escalate\nconcurrency: skip`));
    server.script([{ toolCalls: [{ name: 'wait', arguments: { seconds: 3600 } }] }]);
    const first = await fireAndSettle();
    assert.equal(first.status, 'running');
    await h.clock.advance(61_000);
    await h.idle();
    const run = h.runLog.get(first.runId)!;
    assert.equal(run.status, 'budget_exhausted');
    assert.match(run.reason ?? '', /ran for 60 s \(budget\.maxSeconds\)/);
    assert.ok(run.endedAt! - run.startedAt <= 61_000, `ended ${run.endedAt! - run.startedAt} ms after it started`);
    assert.equal(sentTo('budget_exhausted'), 1);
    assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === run.taskId)?.status, 'cancelled', 'its task no longer sleeps');
    // The slot is free: the next fire runs instead of being skipped as overlapping.
    server.script([end({})]);
    const next = await fireAndSettle();
    assert.notEqual(next.runId, run.runId);
    assert.equal(next.status, 'succeeded', next.reason ?? '');
    await h.clock.advance(3_600_000);
    await h.idle();
    assert.equal(receiver.requests.length, 1, 'the old wait woke nothing and sent nothing');
    assert.equal(server.requests.length, 2);
  });
});
