/**
 * `tasklane chores run` when the model behaves as real ones do (issue 39), headless and on the
 * real clock: a final JSON in prose, prose without JSON, needs_human, malformed tool arguments, a
 * context-length error and a `wait` past maxSeconds.
 * Each run ends within its deadline with the right status and exit code, successWhen evaluated,
 * the escalation received exactly once, and the store never closed under a listener.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { choreLines, runChoreJson } from '../../support/cliRun';
import { startHttpReceiver } from '../../fixtures/escalationServers';
import type { HttpReceiver } from '../../fixtures/escalationServers';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';

const end = (output: Record<string, unknown>) => ({ toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output } }] });

describe('cli: chore runs end honestly whatever way the model ends its turn', function () {
  this.timeout(60_000);
  let server: ModelServer;
  let receiver: HttpReceiver;
  const dirs: string[] = [];

  before(async () => {
    server = await startModelServer();
    receiver = await startHttpReceiver();
  });
  after(async () => {
    await server.close();
    await receiver.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    server.reset();
    receiver.requests.length = 0;
  });

  /** Runs `chores run triage --json` on a fresh repository with this chore policy; returns the exit code, the JSON line and the log. */
  async function run(policy: string): Promise<{ code: number; last: { status: string; reason: string | null; runId: string }; err: string; ms: number }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cli-endings-'));
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, '.tasklane'));
    fs.writeFileSync(
      path.join(dir, '.tasklane/chores.yaml'),
      `chores:
  - id: triage
    name: Triage
    trigger: { cron: "0 2 * * *", timezone: UTC }
    prompt: Look for new issues.
    onFailure: escalate
    escalate: { webhook: { urlSecret: ops-hook } }
${choreLines(policy)}
`,
    );
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
    const { code, last, err, ms } = await runChoreJson<{ status: string; reason: string | null; runId: string }>(server, dir, 'triage', {
      TASKLANE_SECRET_OPS_HOOK: `${receiver.baseUrl}/hook`,
    });
    assert.doesNotMatch(err, /store is closed|listener failed/i, 'nothing ran after the store closed');
    return { code, last, err, ms };
  }

  it('a final JSON in prose: nudged once, then judged by successWhen and succeeds at once', async () => {
    server.script([{ text: '{"no_new_issues": true}' }, { text: 'Done: {"no_new_issues": true}' }]);
    const { code, last, ms } = await run(`successWhen: "no_new_issues"\nbudget: { maxSeconds: 30 }`);
    assert.equal(code, 0);
    assert.equal(last.status, 'succeeded', last.reason ?? '');
    assert.equal(server.requests.length, 2);
    assert.ok(ms < 15_000, `took ${ms} ms, not the 30 s budget`);
    assert.equal(receiver.requests.length, 0);
  });

  it('prose without JSON: failed "ended without task_end" at once, escalated once', async () => {
    server.script([{ text: 'Looks fine.' }, { text: 'Still fine.' }]);
    const { code, last, ms } = await run(`successWhen: "no_new_issues"\nbudget: { maxSeconds: 30 }`);
    assert.equal(code, 1);
    assert.equal(last.status, 'failed');
    assert.match(last.reason ?? '', /ended without task_end/);
    assert.ok(ms < 15_000, `took ${ms} ms, not the 30 s budget`);
    assert.equal(receiver.requests.length, 1);
    assert.equal((receiver.requests[0].body as { runId: string }).runId, last.runId);
  });

  it('needs_human ends the run failed after one model call and escalates once', async () => {
    server.script([end({ status: 'needs_human', cause: 'a person must rotate the token' }), end({ status: 'fix_proposed' })]);
    const { code, last } = await run(`successWhen: "status = 'fix_proposed'"`);
    assert.equal(code, 1);
    assert.equal(last.status, 'failed');
    assert.match(last.reason ?? '', /needs_human: a person must rotate the token/);
    assert.equal(server.requests.length, 1);
    assert.equal(receiver.requests.length, 1);
  });

  it('malformed tool arguments twice: failed after one repair turn, escalated once', async () => {
    const broken = { toolCalls: [{ name: 'task_end', arguments: '{"status": "completed", "output": {"no_new' }] };
    server.script([broken, broken]);
    const { code, last, ms } = await run(`successWhen: "no_new_issues"\nbudget: { maxSeconds: 30 }`);
    assert.equal(code, 1);
    assert.equal(last.status, 'failed');
    assert.match(last.reason ?? '', /the model failed repeatedly/);
    assert.equal(server.requests.length, 2);
    assert.ok(ms < 15_000, `took ${ms} ms`);
    assert.equal(receiver.requests.length, 1);
  });

  it('a context-length error: the history is cut, the request retried once, and the run succeeds', async () => {
    const tooLong = { status: 400, code: 'context_length_exceeded', message: "This model's maximum context length is 8192 tokens." };
    server.script([{ toolCalls: [{ name: 'list_files', arguments: {} }] }, { error: tooLong }, end({ no_new_issues: true })]);
    const { code, last } = await run(`successWhen: "no_new_issues"\nbudget: { maxSeconds: 30 }`);
    assert.equal(code, 0, last.reason ?? '');
    assert.equal(last.status, 'succeeded');
    assert.equal(server.requests.length, 3);
    assert.equal(receiver.requests.length, 0);
  });

  it('a wait past maxSeconds ends at the deadline, not after the wait, and its escalation is sent once', async () => {
    server.script([{ toolCalls: [{ name: 'wait', arguments: { seconds: 40 } }] }]);
    const { code, last, ms } = await run(`budget: { maxSeconds: 2 }`);
    assert.equal(code, 1);
    assert.equal(last.status, 'budget_exhausted');
    assert.match(last.reason ?? '', /ran for 2 s \(budget\.maxSeconds\)/);
    assert.ok(ms < 20_000, `took ${ms} ms: the 40 s wait held the run`);
    assert.equal(receiver.requests.length, 1);
    assert.equal((receiver.requests[0].body as { status: string }).status, 'budget_exhausted');
  });
});
