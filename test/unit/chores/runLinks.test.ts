import * as assert from 'node:assert/strict';
import { emailText, slackMessage } from '../../../src/core/chores/escalationPayload';
import type { EscalationPayload } from '../../../src/core/chores/escalationPayload';
import { withRunLink } from '../../../src/core/chores/runEscalation';
import type { ChoreRunRecord } from '../../../src/core/chores/runRows';
import { runTraceMarkdown } from '../../../src/core/chores/runTrace';
import { actionsRunUrl } from '../../../src/cli/cliEngine';
import { silentLogger } from '../../../src/core/ports';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { escalationChannelsFrom } from '../../../src/core/chores/choreSchema';
import { applyFailurePolicy } from '../../../src/core/chores/failurePolicy';
import type { ChoreDefinition } from '../../../src/core/chores/types';
import { startHttpReceiver } from '../../fixtures/escalationServers';
import type { HttpReceiver } from '../../fixtures/escalationServers';

const run: ChoreRunRecord = {
  runId: 'run-7',
  choreId: 'nightly',
  fireKey: 'chore:nightly:1',
  attempt: 1,
  cause: 'cron',
  startedAt: Date.parse('2026-12-01T02:00:00Z'),
  endedAt: Date.parse('2026-12-01T02:01:00Z'),
  status: 'failed',
  reason: 'successWhen was false',
  usage: { iterations: 2, elapsedMs: 60_000, inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.01 },
  steps: [
    {
      id: 1,
      name: 'read_file',
      status: 'ok',
      args: '{"path":"README.md"}',
      result: 'a ``` fence and ```` a longer one\n# not a heading',
      startedAt: 0,
      durationMs: 3,
    },
    { id: 2, name: 'run_command', status: 'error', args: '{"command":"npm test"}', result: 'exit 1', startedAt: 0, durationMs: 1500 },
  ],
};

describe('chores: run links and the run trace', () => {
  it('the trace names the run, its outcome and usage, and keeps every step text inside a fence it cannot close', () => {
    const md = runTraceMarkdown(run, 'Nightly [check](http://evil)');
    assert.match(md, /^# Run run-7 of Nightly \\\[check\\\]\(http:\/\/evil\) \(`nightly`\)\n/);
    assert.match(md, /- \*\*Status:\*\* failed — successWhen was false/);
    assert.match(md, /- \*\*Why it ran:\*\* cron, retry 1/);
    assert.match(md, /## Steps \(2\)/);
    assert.match(md, /### 2\. `run_command` — error \(1500 ms\)/);
    // The result holds a run of four backticks: its fence is five, so the text stays text.
    assert.match(md, /`````text\na ``` fence and ```` a longer one\n# not a heading\n`````/);
    assert.match(runTraceMarkdown({ ...run, steps: [] }), /No step was recorded\./);
  });

  it('the Actions run page comes from the variables every job has, and nothing odd becomes a link', () => {
    const env = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'octo-org/octo-repo', GITHUB_RUN_ID: '123456' };
    assert.equal(actionsRunUrl(env), 'https://github.com/octo-org/octo-repo/actions/runs/123456');
    assert.equal(actionsRunUrl({}), undefined, 'outside Actions: no link');
    assert.equal(actionsRunUrl({ ...env, GITHUB_RUN_ID: '1; rm -rf /' }), undefined);
    assert.equal(actionsRunUrl({ ...env, GITHUB_SERVER_URL: 'javascript:alert(1)' }), undefined);
    assert.equal(actionsRunUrl({ ...env, GITHUB_REPOSITORY: 'a/b/c' }), undefined);
  });

  it('an escalation carries the run link to every channel; a host without one sends none, and a failing one loses only the link', async () => {
    const payload = {
      type: 'tasklane.chore_escalation',
      version: 1,
      chore: { id: 'nightly', name: 'Nightly' },
      runId: 'run-7',
      status: 'failed',
      reason: 'r',
      usage: run.usage,
      lastSteps: [],
      startedAt: '',
      endedAt: null,
    } as EscalationPayload;
    const deps = { secrets: { getSecret: async () => undefined }, logger: silentLogger };
    const linked = await withRunLink({ ...deps, runLink: async (id) => `vscode://tasklane.tasklane/run?id=${id}` }, payload);
    assert.equal(linked.runLink, 'vscode://tasklane.tasklane/run?id=run-7');
    assert.match(JSON.stringify(slackMessage(linked)), /<vscode:\/\/tasklane\.tasklane\/run\?id=run-7\|run-7>/);
    assert.match(emailText(linked), /The run's full trace: vscode:\/\/tasklane\.tasklane\/run\?id=run-7/);
    assert.equal((await withRunLink(deps, payload)).runLink, undefined);
    const broken = await withRunLink({ ...deps, runLink: async () => Promise.reject(new Error('no URI handler')) }, payload);
    assert.deepEqual(broken, payload);
  });
});

describe("chores: the person's default escalation channel", function () {
  this.timeout(20_000);
  let receiver: HttpReceiver;
  before(async () => (receiver = await startHttpReceiver()));
  after(() => receiver.close());
  beforeEach(() => receiver.requests.splice(0));

  const chore = (escalate?: ChoreDefinition['escalate']): ChoreDefinition =>
    parseChoresFile(
      `chores:\n  - id: nightly\n    name: Nightly\n    trigger: { cron: "0 2 * * *" }\n    prompt: p\n    onFailure: escalate\n${escalate ? `    escalate:\n      webhook: { url: "${escalate.webhook!.url}" }\n` : ''}`,
    ).chores[0]!;
  const deps = (defaultUrl?: string) => ({
    secrets: { getSecret: async () => undefined },
    logger: silentLogger,
    triggers: { emit: async () => ({}) as never },
    clock: { now: () => 0 },
    ...(defaultUrl ? { defaultEscalation: () => ({ webhook: { url: defaultUrl } }) } : {}),
  });

  it('a chore that escalates but names no channel is valid, and goes to the default; its own channel wins; with neither, nothing is sent', async () => {
    const bare = chore();
    assert.equal(bare.onFailure, 'escalate');
    assert.equal(bare.escalate, undefined);
    await applyFailurePolicy(deps(`${receiver.baseUrl}/default`), bare, run);
    assert.deepEqual(
      receiver.requests.map((r) => r.path),
      ['/default'],
    );
    await applyFailurePolicy(deps(`${receiver.baseUrl}/default`), chore({ webhook: { url: `${receiver.baseUrl}/own` } }), run);
    assert.equal(receiver.requests.at(-1)?.path, '/own');
    await applyFailurePolicy(deps(), bare, run);
    assert.equal(receiver.requests.length, 2, 'no channel, no default: nothing sent');
  });

  it('the setting is checked by the rules of a chore’s escalate:', () => {
    assert.deepEqual(escalationChannelsFrom({ email: { to: 'ops@example.com', smtpSecret: 'smtp' } }), {
      channels: { email: { to: ['ops@example.com'], smtpSecret: 'smtp' } },
    });
    const slackUrl = escalationChannelsFrom({ slack: { url: 'https://hooks.slack.com/services/T/B/X' } });
    assert.match('problem' in slackUrl ? slackUrl.problem : '', /a Slack webhook URL carries a token/);
    assert.ok('problem' in escalationChannelsFrom({ pager: {} }));
  });
});
