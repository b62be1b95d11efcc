/**
 * A cap pauses, never kills, on the command line (issue 43): `chores run --store DIR` parks at
 * the chore's budget and keeps its store; `--resume DIR --resume-hash H` continues the same task
 * from the step it reached (the model's next request carries the earlier steps, none is re-done)
 * with another budget of the chore's size, and a store whose contents do not match is refused.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { OVERLAY_FILE } from '../../../src/cli/parkedStore';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer, ScriptStep } from '../../fixtures/modelServer';

const root = path.resolve(__dirname, '../../..');
const edit: ScriptStep = {
  toolCalls: [{ name: 'replace_in_file', arguments: { path: 'app.js', edits: [{ oldText: 'answer = 41', newText: 'answer = 42' }] } }],
};
const read: ScriptStep = { toolCalls: [{ name: 'read_file', arguments: { path: 'check.js' } }] };
const end: ScriptStep = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'fixed the answer' } }] };

interface Result {
  runId: string;
  status: string;
  reason: string | null;
  usage: { iterations: number };
  changedFiles: string[];
  parked?: { storeHash: string };
}

describe('cli: a run at its budget parks in its kept store and --resume continues it', function () {
  this.timeout(60_000);
  let server: ModelServer;
  let dir: string;
  before(async () => {
    server = await startModelServer();
  });
  after(async () => server.close());
  beforeEach(() => {
    server.reset();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cli-resume-'));
    fs.mkdirSync(path.join(dir, 'repo/.tasklane'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'repo/.tasklane/chores.yaml'),
      `chores:
  - id: fix
    name: Fix within two model calls
    trigger: { cron: "0 2 * * *", timezone: UTC }
    prompt: Make the answer 42.
    actionSets: [files]
    budget: { maxIterations: 2 }
`,
    );
    fs.writeFileSync(path.join(dir, 'repo/app.js'), 'exports.answer = 41;\n');
    fs.writeFileSync(path.join(dir, 'repo/check.js'), 'process.exit(require("./app").answer === 42 ? 0 : 1);\n');
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: path.join(dir, 'repo') });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function run(args: string[]): Promise<{ code: number; last?: Result; err: string }> {
    let out = '';
    let err = '';
    const code = await runCli(
      ['chores', 'run', 'fix', '--workspace', path.join(dir, 'repo'), '--json', ...args],
      {
        out: (t) => (out += t),
        err: (t) => (err += t),
        env: {
          TASKLANE_MODEL_PROVIDER: 'openai-compatible',
          TASKLANE_MODEL_BASE_URL: server.openaiBaseUrl,
          TASKLANE_MODEL_ID: 'gpt-5-mini',
          OPENAI_API_KEY: 'k',
        },
        cwd: root,
      },
      { skillsDir: path.join(root, 'skills') },
    );
    const line = out.trim().split('\n').pop();
    return { code, ...(line ? { last: JSON.parse(line) as Result } : {}), err };
  }

  async function parkedRun(): Promise<{ store: string; first: Result }> {
    const store = path.join(dir, 'store');
    server.script([edit, read, read]);
    const { last, err } = await run(['--store', store]);
    assert.ok(last, err);
    return { store, first: last };
  }

  it('parks at the budget, then --resume continues the same task from the step it reached and ends truthfully', async () => {
    const { store, first } = await parkedRun();
    assert.equal(server.requests.length, 2, 'the third call is never made');
    assert.equal(first.status, 'budget_exhausted');
    assert.match(first.reason ?? '', /used all 2 iterations \(budget\.maxIterations\)/);
    assert.match(first.parked?.storeHash ?? '', /^[0-9a-f]{64}$/);
    assert.deepEqual(first.changedFiles, ['app.js']);
    assert.equal(fs.readFileSync(path.join(dir, 'repo/app.js'), 'utf8'), 'exports.answer = 41;\n', 'the folder ends as the run found it');

    server.reset();
    server.script([end]);
    const resumed = await run(['--resume', store, '--resume-hash', first.parked?.storeHash ?? '']);
    assert.equal(resumed.code, 0, resumed.err);
    assert.equal(resumed.last?.runId, first.runId, 'the same run continues');
    assert.equal(resumed.last?.status, 'succeeded', resumed.last?.reason ?? '');
    assert.equal(resumed.last?.parked, undefined);
    assert.deepEqual(resumed.last?.changedFiles, ['app.js'], 'the parked edits were put back');
    assert.equal(resumed.last?.usage.iterations, 3, 'one more step on top of the two it had: none re-done');
    assert.equal(server.requests.length, 1, 'one model call: task_end');
    // The model's next request carries the earlier steps: the edit and the read it made before the pause.
    const wire = JSON.stringify(server.requests[0]?.body.messages);
    assert.match(wire, /replace_in_file/);
    assert.match(wire, /read_file/);
    assert.match(wire, /answer = 42/);
  });

  it("a new fire on a store holding a parked run meets the chore's concurrency policy: skipped, and says why", async () => {
    const { store, first } = await parkedRun();
    server.reset();
    server.script([end]);
    const again = await run(['--store', store]);
    assert.equal(again.code, 1);
    assert.equal(again.last?.status, 'skipped');
    assert.equal(again.last?.reason, `run ${first.runId} was still active (concurrency: skip)`);
    assert.equal(server.requests.length, 0, 'the parked run is not replaced behind its back');
  });

  it('an edited store is refused before any model call, and a resume without the hash is refused', async () => {
    const { store, first } = await parkedRun();
    const hash = first.parked?.storeHash ?? '';
    server.reset();
    server.script([end]);
    const missing = await run(['--resume', store]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /--resume needs --resume-hash H/);

    fs.writeFileSync(path.join(store, OVERLAY_FILE), JSON.stringify({ 'app.js': 'exports.answer = 42; require("child_process").exec("curl evil")\n' }));
    const tampered = await run(['--resume', store, '--resume-hash', hash]);
    assert.equal(tampered.code, 2);
    assert.match(tampered.err, /its contents do not match the paused run's store hash .* Refusing to continue from it/);
    assert.equal(server.requests.length, 0, 'nothing ran');
  });
});
