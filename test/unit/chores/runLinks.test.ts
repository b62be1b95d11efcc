import * as assert from 'node:assert/strict';
import { emailText, slackMessage } from '../../../src/core/chores/escalationPayload';
import type { EscalationPayload } from '../../../src/core/chores/escalationPayload';
import { withRunLink } from '../../../src/core/chores/runEscalation';
import type { ChoreRunRecord } from '../../../src/core/chores/runRows';
import { runTraceMarkdown } from '../../../src/core/chores/runTrace';
import { actionsRunUrl } from '../../../src/cli/cliEngine';
import { silentLogger } from '../../../src/core/ports';

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
