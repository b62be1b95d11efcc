/**
 * MCP on CI, end to end (issue 24): a chore that declares an MCP server runs inside the generated
 * GitHub workflow. The workflow's jobs run step by step (the workflow runner in test/support) with
 * this checkout's CLI as `tasklane`, the scripted model server as the model, `$GITHUB_EVENT_PATH`
 * set and a local fake of GitHub's REST API.
 *
 * What is substituted, because it cannot run offline: the `uses:` steps (checkout copies the
 * fixture repository, setup-node does nothing, the artifact actions copy folders) and the package
 * download of `npx`: the runner's `npx` stand-in runs the exact pinned server-everything from this
 * checkout's node_modules and refuses anything else. Every `run:` script runs as written.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startFakeGithub } from '../../fakes/githubApi';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresYaml, cli, makeRepo, root } from '../../support/ciRepo';
import { WorkflowRunner } from '../../support/workflowRunner';

const EVERYTHING = '@modelcontextprotocol/server-everything';
const everythingDir = path.join(root, 'node_modules', EVERYTHING);
const everythingVersion = (JSON.parse(fs.readFileSync(path.join(everythingDir, 'package.json'), 'utf8')) as { version: string }).version;
const PINNED = `${EVERYTHING}@${everythingVersion}`;
const SECRET = 'ops-value-from-actions-secrets';

const call = (name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ name, arguments: args }] });
const end = call('task_end', { status: 'completed', summary: 'done', output: {} });

describe('cli: a chore with MCP servers in the generated workflow, run step by step', function () {
  this.timeout(120_000);
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

  async function generate(repo: string): Promise<string> {
    const generated = await cli(['chores', 'ci', 'github', '--workspace', repo], {
      TASKLANE_MODEL_PROVIDER: 'openai-compatible',
      TASKLANE_MODEL_BASE_URL: server.openaiBaseUrl,
      TASKLANE_MODEL_ID: 'gpt-5-mini',
    });
    assert.equal(generated.code, 0, generated.err);
    return generated.out;
  }

  it('the agent job starts the declared server-everything (pinned npx package), the declared tool is called, and the job gains no permission', async () => {
    const declared = `mcp:\n  everything: { tools: [echo, get-env], secrets: [ops-token], command: npx, args: [-y, "${PINNED}", stdio] }`;
    const repo = makeRepo(choresYaml(declared));
    const plainRepo = makeRepo(choresYaml());
    dirs.push(repo, plainRepo);
    const workflow = await generate(repo);

    // Least privilege: the same chore without MCP servers gets the very same permissions.
    const plainWorkDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-wf-plain-'));
    dirs.push(plainWorkDir);
    const plain = new WorkflowRunner({
      workflow: await generate(plainRepo),
      eventName: 'schedule',
      event: {},
      repo: plainRepo,
      workDir: plainWorkDir,
      cli: [process.execPath, path.join(root, 'bin/tasklane.js')],
    });

    const github = await startFakeGithub({ repo: 'octo-org/octo-repo' });
    after(() => github.close());
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-wf-mcp-'));
    dirs.push(workDir);
    const runner = new WorkflowRunner({
      workflow,
      eventName: 'schedule',
      event: { schedule: '0 2 * * *' },
      repo,
      workDir,
      secrets: { OPENAI_API_KEY: 'test-key', ANTHROPIC_API_KEY: '', TASKLANE_SECRET_OPS_TOKEN: SECRET },
      cli: [process.execPath, path.join(root, 'bin/tasklane.js')],
      env: { GITHUB_API_URL: github.baseUrl, GITHUB_SHA: 'a'.repeat(40), GITHUB_RUN_ID: '4242' },
      npxPackages: { [PINNED]: [process.execPath, path.join(everythingDir, 'dist/index.js')] },
    });
    for (const [name, job] of Object.entries(runner.workflow.jobs)) {
      const same = plain.workflow.jobs[name];
      assert.ok(same, `${name} exists for the plain chore too`);
      assert.deepEqual(job.permissions, same.permissions, `${name}: no permission for MCP`);
    }
    assert.deepEqual(runner.workflow.permissions, {});
    // checks: read is the fire ledger of the cron chore (fireBudget.ts) and actions: read the
    // download of a paused run's artifact on a continue (workflowContinue.ts), not anything MCP needs.
    assert.deepEqual(runner.workflow.jobs['chore-fix-answer']?.permissions, { actions: 'read', checks: 'read', contents: 'read' });

    assert.deepEqual(runner.selectedJobs(), ['chore-fix-answer']);
    server.script([call('mcp_everything_echo', { message: 'hello from CI' }), call('mcp_everything_get_env'), end]);
    const agent = await runner.runJob('chore-fix-answer');
    const runStep = agent.steps.find((s) => s.label === 'Run chore fix-answer');
    assert.equal(agent.conclusion, 'success', agent.steps.map((s) => `${s.label}: ${s.exitCode}\n${s.output}`).join('\n'));

    // The declared tool was called inside the run, by the server the CLI started in this step.
    assert.equal(server.requests.length, 3);
    assert.match(JSON.stringify(server.requests[0]?.body), /You may call exactly these MCP tools/);
    assert.match(JSON.stringify(server.requests[1]?.body), /MCP tool everything\/echo returned:.*Echo: hello from CI/);
    const result = JSON.parse(fs.readFileSync(path.join(agent.dir, 'tasklane-out/tasklane-result.json'), 'utf8')) as { status: string };
    assert.equal(result.status, 'succeeded', JSON.stringify(result));
    // The secret the server names went to that server, from the Actions secret, in the run step only.
    const getEnv = JSON.stringify((server.requests[2]?.body as { messages: unknown[] }).messages.at(-1));
    assert.match(getEnv, /MCP tool everything\/get-env returned:.*TASKLANE_SECRET_OPS_TOKEN/);
    assert.doesNotMatch(getEnv, /OPENAI_API_KEY|test-key/, 'no model key reaches the server');
    const handOver = agent.steps.find((s) => s.label === 'Hand the keys to Tasklane');
    assert.equal(handOver?.env?.TASKLANE_SECRET_OPS_TOKEN, SECRET);
    for (const step of agent.steps.filter((s) => s.env && s !== handOver)) assert.equal(step.env?.TASKLANE_SECRET_OPS_TOKEN, undefined, step.label);
    assert.ok(runStep, 'the run step ran');
    assert.match(workflow, /^ {10}TASKLANE_SECRET_OPS_TOKEN: \$\{\{ secrets\.TASKLANE_SECRET_OPS_TOKEN \}\}$/m);

    // The apply job reports the fire as for any chore.
    const apply = await runner.runJob('apply-fix-answer');
    assert.equal(apply.conclusion, 'success', apply.steps.map((s) => `${s.label}: ${s.output}`).join('\n'));
    assert.match(runner.stepSummary(), /^## Tasklane · fix-answer\n/);
  });
});
