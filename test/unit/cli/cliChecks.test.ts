/**
 * Done means checked (issue 43), headless: a chore's `verify:` checks run when its task calls
 * task_end after changing files, through the sealed runner, on the run's edits; a failure goes back
 * to the model with the check's output, a run that never fixes it ends `checks_failed` after its
 * rounds, and a run that changes nothing ends `nothing_to_change` without running a check. A check
 * runs in the sandbox of declared commands (cli/commandSandbox.ts), and so does what it starts.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { choreLines, runChoreJson } from '../../support/cliRun';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';

/** The project's own check: fails with a test runner's kind of verdict until src/app.js says 42. */
const CHECK = `const fs = require('node:fs');
const text = fs.readFileSync('src/app.js', 'utf8');
console.log('running 1 test');
if (!/answer = 42/.test(text)) { console.error('FAIL answer: expected 42, got ' + text.trim()); process.exit(1); }
console.log('ok 1 answer');
`;

const fix = (from: string, to: string) => ({
  toolCalls: [{ name: 'replace_in_file', arguments: { path: 'src/app.js', edits: [{ oldText: from, newText: to }] } }],
});
const end = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output: { status: 'done' } } }] };

interface RunJson {
  status: string;
  reason: string | null;
  changedFiles: string[];
  verify?: Array<{ command: string; exitCode: number | null; durationMs: number; ok: boolean }>;
  checkRounds?: number;
  steps: Array<{ name: string; status: string }>;
}

describe('cli: a chore ends verified by its verify: checks', function () {
  this.timeout(60_000);
  let server: ModelServer;
  const dirs: string[] = [];

  before(async () => {
    server = await startModelServer();
  });
  after(async () => {
    await server.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => server.reset());

  async function run(
    policy = '',
    check = CHECK,
    files: Record<string, string> = {},
  ): Promise<{ code: number; last: RunJson; err: string; ms: number; dir: string }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cli-checks-'));
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, '.tasklane'));
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'check.js'), check);
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    fs.writeFileSync(path.join(dir, 'src/app.js'), 'exports.answer = 41;\n');
    fs.writeFileSync(
      path.join(dir, '.tasklane/chores.yaml'),
      `chores:
  - id: fix
    name: Fix the answer
    trigger: { cron: "0 2 * * *", timezone: UTC }
    prompt: Make the tests pass.
    actionSets: [files]
    successWhen: "status = 'done'"
    verify: ["node check.js"]
    budget: { maxSeconds: 40 }
${choreLines(policy)}
`,
    );
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
    // PATH, so the sealed runner finds `node` (it passes on only what it is given, scrubbed).
    return { ...(await runChoreJson<RunJson>(server, dir, 'fix', { PATH: process.env.PATH ?? '' })), dir };
  }

  it('a first end without the fix gets the failing output in its next request, fixes it, and ends succeeded with the check recorded', async () => {
    server.script([fix('answer = 41', 'answer = 40'), end, fix('answer = 40', 'answer = 42'), end]);
    const { code, last, err, dir } = await run();
    assert.equal(code, 0, `${last.reason ?? ''}\n${err}`);
    assert.equal(last.status, 'succeeded');
    assert.match(last.reason ?? '', /^verified by `node check\.js` \(\d+\.\d s\)$/);
    // The model was told which check judges its work before it started.
    assert.match(JSON.stringify(server.requests[0]?.body), /these checks run .*node check\.js/);
    // The request after the first task_end carries the check's verdict from its output.
    const afterFirstEnd = JSON.stringify(server.requests[2]?.body);
    assert.match(afterFirstEnd, /node check\.js. exited 1/);
    assert.match(afterFirstEnd, /FAIL answer: expected 42, got exports\.answer = 40;/);
    assert.equal(server.requests.length, 4);
    assert.equal(last.checkRounds, 2);
    assert.equal(last.verify?.length, 1);
    const [check] = last.verify ?? [];
    assert.equal(check?.command, 'node check.js');
    assert.equal(check?.exitCode, 0);
    assert.equal(check?.ok, true);
    assert.ok(typeof check?.durationMs === 'number' && check.durationMs > 0, `duration ${check?.durationMs}`);
    // Each check is a step of the run's trace: one failed round, one passed.
    assert.deepEqual(
      last.steps.filter((s) => s.name === 'check').map((s) => s.status),
      ['error', 'ok'],
    );
    assert.deepEqual(last.changedFiles, ['src/app.js']);
    // The checks ran on the run's edits, and the folder ends as the run found it.
    assert.equal(fs.readFileSync(path.join(dir, 'src/app.js'), 'utf8'), 'exports.answer = 41;\n');
  });

  it('a model that never fixes it ends checks_failed after the declared rounds, within budget, saying what failed', async () => {
    server.script([fix('answer = 41', 'answer = 40'), end, end, end, end]);
    const { code, last } = await run('verifyRounds: 2');
    assert.equal(code, 1);
    assert.equal(last.status, 'checks_failed');
    assert.match(last.reason ?? '', /`node check\.js` exited 1 after 2 rounds of checks: FAIL answer: expected 42/);
    assert.equal(last.checkRounds, 2);
    assert.equal(last.verify?.[0]?.exitCode, 1);
    // Two rounds: the edit, two ends; nothing after the last round.
    assert.equal(server.requests.length, 3);
  });

  it('a chore that changes nothing ends nothing_to_change without running its checks', async () => {
    server.script([end]);
    const { code, last } = await run();
    assert.equal(code, 0, last.reason ?? '');
    assert.equal(last.status, 'nothing_to_change');
    assert.deepEqual(last.verify, []);
    assert.equal(last.checkRounds, 0);
    assert.equal(
      last.steps.some((s) => s.name === 'check'),
      false,
    );
    assert.equal(server.requests.length, 1);
  });

  it('a check, and a process it starts, run sealed: no network, no process outside its own tree', async () => {
    let heard = 0;
    const listener = net.createServer((socket) => {
      heard++;
      socket.end('pong');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as net.AddressInfo).port;
    const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cli-checks-report-')), 'report.txt');
    dirs.push(path.dirname(report));
    // The check starts a process the chore never declared; that process looks around and tries the network.
    const check = `require('node:child_process').execFileSync(process.execPath, ['probe.js'], { stdio: 'inherit' });\n${CHECK}`;
    const probe = `const fs = require('fs');
const read = (f) => { try { return fs.readFileSync(f, 'latin1'); } catch { return ''; } };
const parentOf = (pid) => { const s = read('/proc/' + pid + '/stat'); return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1] || 0); };
const reaches = (pid, target) => { for (let p = Number(pid); p > 0; p = parentOf(p)) if (p === target) return true; return false; };
const foreign = fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n) && !reaches(n, process.ppid)).length;
const socket = require('net').connect(${port}, '127.0.0.1');
const done = (what) => { fs.writeFileSync(${JSON.stringify(report)}, 'FOREIGN ' + foreign + '\\n' + what); process.exit(0); };
socket.on('data', () => done('NET connected'));
socket.on('error', (e) => done('NET refused ' + e.code));
`;
    try {
      server.script([fix('answer = 41', 'answer = 42'), end]);
      const { code, last } = await run('', check, { 'probe.js': probe });
      assert.equal(code, 0, last.reason ?? '');
      assert.equal(last.verify?.[0]?.exitCode, 0, 'the check ran, its child too');
      const said = fs.readFileSync(report, 'utf8');
      assert.match(said, /^FOREIGN 0$/m, "the check's child sees only the check's processes");
      assert.match(said, /^NET refused \w+$/m);
      assert.equal(heard, 0, 'the server on this machine heard nothing');
    } finally {
      listener.close();
    }
  });
});
