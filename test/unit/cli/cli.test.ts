import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { modelFromEnv } from '../../../src/cli/environment';
import { runCli } from '../../../src/cli/main';
import { runChoreOnce } from '../../../src/cli/runChore';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { silentLogger } from '../../../src/core/ports';
import { Redactor } from '../../../src/core/security/redact';
import { openDurableDb } from '../../../src/core/store/durableDb';
import { loadSqlJs } from '../../../src/core/store/sqlJs';
import { startHttpReceiver } from '../../fixtures/escalationServers';
import type { HttpReceiver } from '../../fixtures/escalationServers';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';

const root = path.resolve(__dirname, '../../..');

/** A small git repository with a chores file, committed, so "the tree stays untouched" is checkable. */
function makeRepo(chores: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cli-repo-'));
  fs.mkdirSync(path.join(dir, '.tasklane'));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, '.tasklane/chores.yaml'), chores);
  fs.writeFileSync(path.join(dir, 'CHANGELOG.md'), '# Changelog\n\n## 0.1.0\n- first release\n');
  fs.writeFileSync(path.join(dir, 'src/app.ts'), 'export const answer = 41;\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=Test', '-c', 'user.email=test@tasklane.invalid', 'commit', '-q', '-m', 'init');
  return dir;
}

function choresYaml(extra = '', id = 'fix-answer'): string {
  return `chores:
  - id: ${id}
    name: Fix the answer
    trigger: { cron: "0 2 * * *", timezone: UTC }
    prompt: Make src/app.ts export 42 and note it in CHANGELOG.md.
    actionSets: [files]
${extra
  .split('\n')
  .filter(Boolean)
  .map((l) => `    ${l}`)
  .join('\n')}
`;
}

interface CliRun {
  code: number;
  out: string;
  err: string;
}

async function cli(args: string[], env: Record<string, string> = {}, cwd = root): Promise<CliRun> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => (out += t), err: (t) => (err += t), env, cwd }, { skillsDir: path.join(root, 'skills') });
  return { code, out, err };
}

const edit = { toolCalls: [{ name: 'replace_in_file', arguments: { path: 'src/app.ts', edits: [{ oldText: 'answer = 41', newText: 'answer = 42' }] } }] };
const changelog = {
  toolCalls: [
    {
      name: 'replace_in_file',
      arguments: { path: 'CHANGELOG.md', edits: [{ oldText: '## 0.1.0', newText: '## Unreleased\n- the answer is 42\n\n## 0.1.0' }] },
    },
  ],
};
const end = (output: Record<string, unknown>) => ({ toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output } }] });

describe('cli: tasklane chores run / validate', function () {
  this.timeout(60_000);
  let server: ModelServer;
  let receiver: HttpReceiver;
  const repos: string[] = [];
  const env = (): Record<string, string> => ({
    TASKLANE_MODEL_PROVIDER: 'openai-compatible',
    TASKLANE_MODEL_BASE_URL: server.openaiBaseUrl,
    TASKLANE_MODEL_ID: 'gpt-5-mini',
    OPENAI_API_KEY: 'test-key',
  });
  const repo = (chores: string) => {
    const dir = makeRepo(chores);
    repos.push(dir);
    return dir;
  };

  before(async () => {
    server = await startModelServer();
    receiver = await startHttpReceiver();
  });
  after(async () => {
    await server.close();
    await receiver.close();
    for (const dir of repos) fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    server.reset();
    receiver.requests.length = 0;
  });

  it('run: a succeeding chore exits 0, its last line is the JSON result, and the patch applies to a clean clone while the tree stays untouched', async () => {
    const dir = repo(choresYaml(`successWhen: "status = 'done'"`));
    server.script([edit, changelog, end({ status: 'done' })]);
    const patchFile = path.join(dir, '..', `${path.basename(dir)}.patch`);
    repos.push(patchFile);
    const result = await cli(['chores', 'run', 'fix-answer', '--workspace', dir, '--json', '--patch-out', patchFile], env());
    assert.equal(result.code, 0, result.err);
    const last = JSON.parse(result.out.trim().split('\n').pop() ?? '') as Record<string, unknown>;
    assert.deepEqual(Object.keys(last).slice(0, 6), ['runId', 'choreId', 'status', 'reason', 'usage', 'steps']);
    assert.equal(last.choreId, 'fix-answer');
    assert.equal(last.status, 'succeeded');
    assert.deepEqual(
      (last.steps as Array<{ name: string }>).map((s) => s.name),
      ['replace_in_file', 'replace_in_file', 'task_end'],
    );
    assert.equal((last.usage as { iterations: number }).iterations, 3);
    // The model saw its own first edit when it made the second: the overlay is the workspace.
    assert.match(JSON.stringify(server.requests[1]?.body), /applied/i);

    assert.equal(execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' }), '', 'the working tree is untouched');
    assert.equal(fs.readFileSync(path.join(dir, 'src/app.ts'), 'utf8'), 'export const answer = 41;\n');
    const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cli-clone-'));
    repos.push(clone);
    execFileSync('git', ['clone', '-q', dir, clone]);
    execFileSync('git', ['apply', '--check', patchFile], { cwd: clone });
    execFileSync('git', ['apply', patchFile], { cwd: clone });
    assert.equal(fs.readFileSync(path.join(clone, 'src/app.ts'), 'utf8'), 'export const answer = 42;\n');
    assert.match(fs.readFileSync(path.join(clone, 'CHANGELOG.md'), 'utf8'), /## Unreleased\n- the answer is 42\n\n## 0\.1\.0/);
  });

  it('run: a failing successWhen exits 1 and escalates to the webhook with the run', async () => {
    const dir = repo(
      choresYaml(`successWhen: "status = 'done'"\nbudget: { maxIterations: 1 }\nonFailure: escalate\nescalate:\n  webhook: { urlSecret: ops-hook }`),
    );
    server.script([end({ status: 'gave up' })]);
    // As on GitHub Actions: the escalation links the run's page.
    const actions = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'octo-org/octo-repo', GITHUB_RUN_ID: '4242' };
    const result = await cli(['chores', 'run', 'fix-answer', '--workspace', dir, '--json'], {
      ...env(),
      ...actions,
      TASKLANE_SECRET_OPS_HOOK: `${receiver.baseUrl}/hook`,
    });
    assert.equal(result.code, 1, result.err);
    const last = JSON.parse(result.out.trim().split('\n').pop() ?? '') as { status: string; reason: string; runId: string };
    assert.equal(last.status, 'failed');
    assert.match(last.reason, /successWhen/);
    assert.equal(receiver.requests.length, 1, 'one escalation');
    const body = receiver.requests[0]?.body as { runId?: string; status?: string; choreId?: string; runLink?: string };
    assert.equal(body.runId, last.runId);
    assert.equal(body.status, 'failed');
    assert.equal(body.runLink, 'https://github.com/octo-org/octo-repo/actions/runs/4242');
  });

  it('run: a store another process holds is refused in one line, with the advice a command line needs', async () => {
    const dir = repo(choresYaml());
    const store = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cli-store-'));
    repos.push(store);
    const holder = await openDurableDb({ dir: path.join(store, 'store'), sqlJs: await loadSqlJs(), lease: { recheckMs: 5 } });
    try {
      const result = await cli(['chores', 'run', 'fix-answer', '--workspace', dir, '--store', store], env());
      assert.equal(result.code, 1);
      assert.equal(result.err.trim().split('\n').length, 1, result.err);
      assert.match(result.err, /^tasklane: the store in .* is in use by another Tasklane process \(pid \d+.*give this run its own --store folder/);
      assert.doesNotMatch(result.err, /VS Code window|\n {4}at /);
      assert.equal(server.requests.length, 0, 'no model call');
    } finally {
      await holder.close();
    }
  });

  it('run: a secret of the environment that the chore reads leaves in none of the JSON line, log, trace, escalation or patch', async () => {
    const secret = 'tl-deploy-7f3a9c2e5b1d';
    const dir = repo(
      choresYaml(`successWhen: "status = 'done'"\nbudget: { maxIterations: 3 }\nonFailure: escalate\nescalate:\n  webhook: { urlSecret: ops-hook }`),
    );
    fs.writeFileSync(path.join(dir, 'src/deploy.txt'), `token = ${secret}\nregion = eu\n`);
    const store = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cli-store-'));
    const patchFile = `${store}.patch`;
    repos.push(store, patchFile);
    server.script([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'src/deploy.txt' } }] },
      { toolCalls: [{ name: 'replace_in_file', arguments: { path: 'src/deploy.txt', edits: [{ oldText: 'region = eu', newText: 'region = us' }] } }] },
      end({ status: `gave up on ${secret}`, token: secret }),
    ]);
    const result = await cli(['chores', 'run', 'fix-answer', '--workspace', dir, '--json', '--verbose', '--store', store, '--patch-out', patchFile], {
      ...env(),
      TASKLANE_SECRET_OPS_HOOK: `${receiver.baseUrl}/hook`,
      TASKLANE_SECRET_DEPLOY_TOKEN: secret,
    });
    assert.equal(result.code, 1, result.err);
    // The model did read the file (the test is not vacuous), the value itself already redacted:
    // the secret is known before the run, so not even the model request carries it.
    const requests = JSON.stringify(server.requests.map((r) => r.body));
    assert.match(requests, /token = \[REDACTED[^\]]*\]\\nregion = eu/);
    assert.ok(!requests.includes(secret), 'the model request carries no secret');
    assert.equal(receiver.requests.length, 1, 'one escalation');
    const patch = fs.readFileSync(patchFile, 'utf8');
    assert.match(patch, /region = us/);
    // The trace is the run's event streams and EVENT.md (the store's database keeps change sets'
    // file contents to check and apply them, as the file on disk does).
    const written = [
      result.out,
      result.err,
      JSON.stringify(receiver.requests[0]?.body),
      patch,
      ...filesUnder(path.join(store, 'agent')).map((f) => fs.readFileSync(f, 'latin1')),
    ];
    assert.ok(
      written.some((text) => text.includes('[REDACTED')),
      'something was redacted',
    );
    for (const text of written)
      assert.ok(!text.includes(secret), `the secret leaked: ${text.slice(Math.max(0, text.indexOf(secret) - 80), text.indexOf(secret) + 40)}`);
  });

  it('run: a declared command runs without a shell on the edited tree with no keys in its environment; anything else is refused and recorded', async () => {
    const dir = repo(choresYaml(`commands: ["node scripts/check.js"]\nsuccessWhen: "status = 'done'"`));
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.writeFileSync(
      path.join(dir, 'scripts/check.js'),
      [
        "const text = require('fs').readFileSync('src/app.ts', 'utf8').trim();",
        "const keys = ['OPENAI_API_KEY', 'TASKLANE_SECRET_OPS_HOOK', 'GITHUB_TOKEN'].filter((k) => process.env[k]);",
        "console.log(`checked: ${text}; keys: ${keys.join(',') || 'none'}`);",
        "process.exit(text.includes('42') ? 0 : 1);",
        '',
      ].join('\n'),
    );
    execFileSync('git', ['add', '-A'], { cwd: dir });
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@tasklane.invalid', 'commit', '-q', '-m', 'check'], { cwd: dir });
    const patchFile = path.join(dir, '..', `${path.basename(dir)}.patch`);
    repos.push(patchFile);
    const runCommand = (command: string) => ({ toolCalls: [{ name: 'run_command', arguments: { command } }] });
    server.script([edit, runCommand('node scripts/check.js'), runCommand('npm publish'), end({ status: 'done' })]);
    const result = await cli(['chores', 'run', 'fix-answer', '--workspace', dir, '--json', '--patch-out', patchFile], {
      ...env(),
      PATH: process.env.PATH ?? '',
      GITHUB_TOKEN: 'ghs_cli_test_token',
      TASKLANE_SECRET_OPS_HOOK: 'https://hooks.invalid/x',
    });
    assert.equal(result.code, 0, result.err);
    const last = JSON.parse(result.out.trim().split('\n').pop() ?? '') as { steps: Array<{ name: string; status: string }> };
    assert.deepEqual(
      last.steps.map((s) => `${s.name}:${s.status}`),
      ['replace_in_file:ok', 'run_command:ok', 'run_command:error', 'task_end:ok'],
    );
    // The task was told what it may run, the command saw the edit and no key, and the refusal says why.
    assert.match(JSON.stringify(server.requests[0]?.body), /You may run exactly these commands.*node scripts\/check\.js/);
    const afterCheck = JSON.stringify(server.requests[2]?.body);
    assert.match(afterCheck, /exited with code 0/);
    assert.match(afterCheck, /checked: export const answer = 42;; keys: none/);
    assert.match(
      JSON.stringify(server.requests[3]?.body),
      /`npm publish` was refused: nobody is here to approve it.*It may run exactly: `node scripts\/check\.js`/,
    );
    assert.equal(execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' }), '', 'the folder ends as the run found it');
    assert.match(fs.readFileSync(patchFile, 'utf8'), /\+export const answer = 42;/);
  });

  it('run: the CLI starts the declared MCP servers; a declared tool runs, another is refused, and a secret reaches only the server naming it', async () => {
    const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
    const declare = (name: string, tools: string, secrets = '') =>
      `  ${name}: { tools: [${tools}], command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(everything)}, stdio]${secrets} }`;
    const dir = repo(
      choresYaml(
        [
          'mcp:',
          declare('everything', 'echo', ', secrets: [ops-token]'),
          declare('witness', 'get-env', ', secrets: [ops-token]'),
          declare('plain', 'get-env'),
        ].join('\n'),
      ),
    );
    const call = (name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ name, arguments: args }] });
    server.script([
      call('mcp_everything_echo', { message: 'hello from the chore' }),
      call('mcp_everything_get_env'),
      call('mcp_witness_get_env'),
      call('mcp_plain_get_env'),
      end({}),
    ]);
    const result = await cli(['chores', 'run', 'fix-answer', '--workspace', dir, '--json'], {
      ...env(),
      PATH: process.env.PATH ?? '',
      TASKLANE_SECRET_OPS_TOKEN: 'ops-secret-value-123',
    });
    assert.equal(result.code, 0, result.err);
    const last = JSON.parse(result.out.trim().split('\n').pop() ?? '') as { status: string; steps: Array<{ name: string; status: string }> };
    assert.equal(last.status, 'succeeded');
    assert.deepEqual(
      last.steps.map((s) => `${s.name}:${s.status}`),
      ['mcp_everything_echo:ok', 'mcp_everything_get_env:error', 'mcp_witness_get_env:ok', 'mcp_plain_get_env:ok', 'task_end:ok'],
    );
    assert.match(JSON.stringify(server.requests[0]?.body), /You may call exactly these MCP tools.*echo of the server everything/);
    assert.match(JSON.stringify(server.requests[1]?.body), /MCP tool everything\/echo returned:.*Echo: hello from the chore/);
    assert.match(
      JSON.stringify(server.requests[2]?.body),
      /MCP tool everything\/get-env was refused: this task's chore declares only everything\/echo of the MCP server everything/,
    );
    // What each get-env returned: the last message of the request that followed it.
    const lastResult = (i: number) => JSON.stringify((server.requests[i]?.body as { messages: unknown[] }).messages.at(-1));
    assert.match(lastResult(3), /MCP tool witness\/get-env returned:.*TASKLANE_SECRET_OPS_TOKEN/, 'the server that names the secret gets it');
    assert.doesNotMatch(lastResult(3), /OPENAI_API_KEY|test-key/, 'no model key reaches a server');
    assert.match(lastResult(4), /MCP tool plain\/get-env returned:.*PATH/);
    assert.doesNotMatch(lastResult(4), /TASKLANE_SECRET_OPS_TOKEN|ops-secret-value/, 'a server that names no secret gets none');
  });

  it("run: a secret given to a chore's MCP server is learnt by the redactor at the start: it leaves in none of the JSON line, trace, escalation or patch", async () => {
    // The redactor starts empty and the secret is in no environment variable: the only way it can
    // know the value is the MCP servers' secretEnv hook telling it, as in VS Code.
    const secret = 'mcp-only-secret-4e8b1c9d';
    const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
    const dir = repo(
      choresYaml(
        [
          `successWhen: "status = 'done'"`,
          'budget: { maxIterations: 3 }',
          'onFailure: escalate',
          'escalate:',
          '  webhook: { urlSecret: ops-hook }',
          'mcp:',
          `  witness: { tools: [get-env], command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(everything)}, stdio], secrets: [ops-token] }`,
        ].join('\n'),
      ),
    );
    const store = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cli-store-'));
    repos.push(store);
    server.script([
      { toolCalls: [{ name: 'mcp_witness_get_env', arguments: {} }] },
      { toolCalls: [{ name: 'replace_in_file', arguments: { path: 'src/app.ts', edits: [{ oldText: 'answer = 41', newText: `answer = '${secret}'` }] } }] },
      end({ status: `gave up on ${secret}`, token: secret }),
    ]);
    const secrets: Record<string, string> = { 'ops-token': secret, 'ops-hook': `${receiver.baseUrl}/hook` };
    const redactor = new Redactor();
    const { chores } = parseChoresFile(fs.readFileSync(path.join(dir, '.tasklane/chores.yaml'), 'utf8'));
    const chore = chores.find((c) => c.id === 'fix-answer')!;
    const { result, patch, trace } = await runChoreOnce({
      workspace: dir,
      chore,
      chores,
      model: modelFromEnv(env(), silentLogger),
      secrets: (name) => secrets[name],
      redactor,
      logger: silentLogger,
      storeDir: store,
      skillDirs: [path.join(root, 'skills')],
      env: { PATH: process.env.PATH ?? '' },
    });
    assert.equal(result.status, 'failed', JSON.stringify(result));
    assert.deepEqual(
      trace.map((s) => `${s.name}:${s.status}`),
      ['mcp_witness_get_env:ok', 'replace_in_file:ok', 'task_end:ok'],
    );
    // The server did get the value (the test is not vacuous); the model saw only its redaction.
    const afterGetEnv = JSON.stringify((server.requests[1]?.body as { messages: unknown[] }).messages.at(-1));
    assert.match(afterGetEnv, /TASKLANE_SECRET_OPS_TOKEN[^,]*\[REDACTED/);
    assert.equal(receiver.requests.length, 1, 'one escalation');
    assert.match(patch, /answer = '\[REDACTED/);
    const written = [
      // The JSON line as `chores run --json` prints it.
      redactor.redact(JSON.stringify(result)),
      JSON.stringify(trace),
      JSON.stringify(receiver.requests[0]?.body),
      patch,
      JSON.stringify(server.requests.slice(0, 2).map((r) => r.body)),
      ...filesUnder(path.join(store, 'agent')).map((f) => fs.readFileSync(f, 'latin1')),
    ];
    for (const text of written)
      assert.ok(!text.includes(secret), `the secret leaked: ${text.slice(Math.max(0, text.indexOf(secret) - 80), text.indexOf(secret) + 40)}`);
  });

  it('run: a declared MCP server that cannot start fails the run with its error before any model call', async () => {
    const dir = repo(choresYaml('mcp:\n  broken: { tools: [echo], command: tasklane-no-such-server-program }'));
    const result = await cli(['chores', 'run', 'fix-answer', '--workspace', dir, '--json'], { ...env(), PATH: process.env.PATH ?? '' });
    assert.equal(result.code, 1, result.err);
    const last = JSON.parse(result.out.trim().split('\n').pop() ?? '') as { status: string; reason: string };
    assert.equal(last.status, 'failed');
    assert.match(last.reason, /the MCP server broken could not start: .*ENOENT/);
    assert.equal(server.requests.length, 0, 'the model is never called without the server');
  });

  it('validate: a chore whose MCP server npx would download without an exact version is refused on its line', async () => {
    const dir = repo(choresYaml('mcp:\n  memory:\n    tools: [read_graph]\n    command: npx\n    args: [-y, "@modelcontextprotocol/server-memory"]'));
    const text = fs.readFileSync(path.join(dir, '.tasklane/chores.yaml'), 'utf8');
    const line = text.split('\n').findIndex((l) => l.includes('args:')) + 1;
    const failed = await cli(['chores', 'validate', '--workspace', dir]);
    assert.equal(failed.code, 2);
    assert.match(failed.err, new RegExp(`\\.tasklane/chores\\.yaml:${line}:\\d+: error: mcp\\.memory: .*without an exact version; pin it`));
  });

  it('run: exit 2 for an unknown chore, a missing model, or bad arguments; nothing reaches the model', async () => {
    const dir = repo(choresYaml());
    const unknown = await cli(['chores', 'run', 'nope', '--workspace', dir], env());
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /no valid chore "nope".*fix-answer/);
    const noModel = await cli(['chores', 'run', 'fix-answer', '--workspace', dir], {});
    assert.equal(noModel.code, 2);
    assert.match(noModel.err, /TASKLANE_MODEL_PROVIDER/);
    const badFlag = await cli(['chores', 'run', 'fix-answer', '--wrokspace', dir], env());
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.err, /wrokspace/);
    assert.equal((await cli(['tasks'], env())).code, 2);
    assert.equal(server.requests.length, 0);
  });

  it('validate: exit 0 for a valid file, exit 2 naming the line of an invalid one', async () => {
    const good = repo(choresYaml());
    const ok = await cli(['chores', 'validate', '--workspace', good]);
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /1 chore\(s\), no problems/);
    const bad = repo(choresYaml('concurrency: sometimes'));
    const text = fs.readFileSync(path.join(bad, '.tasklane/chores.yaml'), 'utf8');
    const line = text.split('\n').findIndex((l) => l.includes('sometimes')) + 1;
    const failed = await cli(['chores', 'validate', '--workspace', bad]);
    assert.equal(failed.code, 2);
    assert.match(failed.err, new RegExp(`\\.tasklane/chores\\.yaml:${line}:\\d+: error: .*concurrency`));
  });

  it("validate says when the chores' cost will be estimated and how to price the model; TASKLANE_MODEL_PRICES gives the price", async () => {
    const dir = repo(choresYaml());
    const unpriced = { TASKLANE_MODEL_PROVIDER: 'openai-compatible', TASKLANE_MODEL_ID: 'deepseek/deepseek-chat' };
    const estimated = await cli(['chores', 'validate', '--workspace', dir], unpriced);
    assert.equal(estimated.code, 0, estimated.err);
    assert.match(estimated.out, /cost: no price is known for the model "deepseek\/deepseek-chat".*estimated.*TASKLANE_MODEL_PRICES/);
    const priced = await cli(['chores', 'validate', '--workspace', dir], {
      ...unpriced,
      TASKLANE_MODEL_PRICES: '{"deepseek/*": {"input": 0.3, "output": 1.2}}',
    });
    assert.equal(priced.code, 0, priced.err);
    assert.doesNotMatch(priced.out, /cost:/);
    assert.doesNotMatch((await cli(['chores', 'validate', '--workspace', dir], { TASKLANE_MODEL_PROVIDER: 'openai' })).out, /cost:/, 'gpt-5-mini is priced');
    const typo = await cli(['chores', 'validate', '--workspace', dir], { ...unpriced, TASKLANE_MODEL_PRICES: '{"deepseek/*": {"input": "cheap"}}' });
    assert.equal(typo.code, 2);
    assert.match(typo.err, /TASKLANE_MODEL_PRICES: "deepseek\/\*": needs input and output/);
  });

  it('run: an unpriced model stops at maxCostUsd at the conservative rate; with TASKLANE_MODEL_PRICES at its price', async () => {
    const dir = repo(choresYaml('budget: { maxIterations: 40, maxCostUsd: 0.5 }'));
    const read = { toolCalls: [{ name: 'read_file', arguments: { path: 'src/app.ts' } }], usage: { input: 20_000, output: 1_000 } };
    const unpriced = { ...env(), TASKLANE_MODEL_ID: 'mistral-large-latest' };
    server.script(Array.from({ length: 30 }, () => read));
    const estimated = await cli(['chores', 'run', 'fix-answer', '--workspace', dir, '--json'], unpriced);
    assert.equal(estimated.code, 1, estimated.err);
    const first = JSON.parse(estimated.out.trim().split('\n').pop() ?? '') as { status: string; reason: string; usage: { costEstimated?: boolean } };
    assert.equal(first.status, 'budget_exhausted');
    assert.match(first.reason, /estimated/);
    assert.equal(first.usage.costEstimated, true);
    const estimatedCalls = server.requests.length;
    server.reset();
    server.script(Array.from({ length: 30 }, () => read));
    const priced = await cli(['chores', 'run', 'fix-answer', '--workspace', dir, '--json'], {
      ...unpriced,
      TASKLANE_MODEL_PRICES: '{"mistral-large-latest": {"input": 2, "output": 6}}',
    });
    const second = JSON.parse(priced.out.trim().split('\n').pop() ?? '') as { status: string; usage: { costEstimated?: boolean } };
    assert.equal(second.status, 'budget_exhausted');
    assert.equal(second.usage.costEstimated, undefined);
    assert.equal(server.requests.length, Math.ceil(0.5 / ((20_000 * 2 + 1_000 * 6) / 1e6)), '$0.046 a call');
    assert.ok(estimatedCalls < server.requests.length, `the estimate (${estimatedCalls} calls) trips before the real price`);
  });

  it('the installed bin runs: `tasklane chores validate` as a real process', () => {
    const dir = repo(choresYaml());
    const run = spawnSync(process.execPath, [path.join(root, 'bin/tasklane.js'), 'chores', 'validate'], { cwd: dir, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /no problems/);
  });
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}
