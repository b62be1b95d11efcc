/**
 * The suite the tests of continuing a paused CI run through the generated workflow share: a
 * scripted model, a local fake of GitHub's REST API per test, and the workflow generated from one
 * chores.yaml, run step by step (workflowRunner.ts) as GitHub would for an event. Each runner is one
 * workflow run with its own id; a later one downloads an earlier one's artifacts through `otherRuns`.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ledgerCheckName } from '../../src/cli/fireLedger';
import { startFakeGithub } from '../fakes/githubApi';
import type { FakeGithub } from '../fakes/githubApi';
import { startModelServer } from '../fixtures/modelServer';
import type { ModelServer, ScriptStep } from '../fixtures/modelServer';
import { repoName } from './ciFireHarness';
import type { Obj } from './ciFireHarness';
import { cli, makeRepo, root } from './ciRepo';
import { WorkflowRunner } from './workflowRunner';
import type { JobRun } from './workflowRunner';

/** One workflow run of an event: `runId` is its GITHUB_RUN_ID, `otherRuns` earlier runs' artifacts by id. */
export type RunnerFor = (eventName: string, event: Obj, runId: string, otherRuns?: Record<string, string>) => WorkflowRunner;

export interface ContinueSuite {
  server(): ModelServer;
  github(): FakeGithub;
  /** A fresh fixture repository with `choresYaml`, its workflow generated for the scripted model. */
  setUp(): Promise<RunnerFor>;
  /** The chore's latest fire record in the fake's ledger (its check run's `external_id`). */
  latestRecord(choreId: string): Obj;
}

/**
 * Registers the suite's hooks in the calling `describe`; the maintainer Codertocat holds `maintain`.
 * `secrets` are the repository's secrets besides the model keys (a chore's escalation URL).
 */
export function continueSuite(choresYaml: string, secrets: () => Record<string, string> = () => ({})): ContinueSuite {
  let server: ModelServer;
  let github: FakeGithub;
  const dirs: string[] = [];
  before(async () => {
    server = await startModelServer();
  });
  after(async () => {
    await server.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    server.reset();
    github = await startFakeGithub({ repo: repoName });
    github.roles.set('Codertocat', 'maintain');
  });
  afterEach(() => github.close());
  return {
    server: () => server,
    github: () => github,
    latestRecord: (choreId) => JSON.parse(String(github.checkRuns.filter((c) => c.name === ledgerCheckName(choreId)).at(-1)?.external_id)) as Obj,
    async setUp() {
      const repo = makeRepo(choresYaml);
      dirs.push(repo);
      const generated = await cli(['chores', 'ci', 'github', '--workspace', repo], {
        TASKLANE_MODEL_PROVIDER: 'openai-compatible',
        TASKLANE_MODEL_BASE_URL: server.openaiBaseUrl,
        TASKLANE_MODEL_ID: 'gpt-5-mini',
      });
      assert.equal(generated.code, 0, generated.err);
      return (eventName, event, runId, otherRuns) => {
        const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-wf-continue-'));
        dirs.push(workDir);
        return new WorkflowRunner({
          workflow: generated.out,
          eventName,
          event,
          repo,
          repository: repoName,
          workDir,
          secrets: { OPENAI_API_KEY: 'test-key', ANTHROPIC_API_KEY: '', ...secrets() },
          cli: [process.execPath, path.join(root, 'bin/tasklane.js')],
          env: { GITHUB_API_URL: github.baseUrl, GITHUB_SHA: 'a'.repeat(40), GITHUB_RUN_ID: runId, GITHUB_SERVER_URL: 'https://github.com' },
          ...(otherRuns ? { otherRuns } : {}),
        });
      };
    },
  };
}

/** A job's steps as one text, for an assertion's message. */
export const jobLog = (job: JobRun): string => job.steps.map((s) => `${s.label}: ${s.kind} ${s.exitCode}\n${s.output}`).join('\n');

/** The result manifest the job's run step wrote. */
export const jobResult = (job: JobRun): Obj => JSON.parse(fs.readFileSync(path.join(job.dir, 'tasklane-out/tasklane-result.json'), 'utf8')) as Obj;

/** The model's steps these tests script: the fix (src/app.ts exports 42), a read that changes nothing, the end. */
export const SCRIPT: Readonly<Record<'edit' | 'read' | 'done', ScriptStep>> = {
  edit: { toolCalls: [{ name: 'replace_in_file', arguments: { path: 'src/app.ts', edits: [{ oldText: 'answer = 41', newText: 'answer = 42' }] } }] },
  read: { toolCalls: [{ name: 'read_file', arguments: { path: 'src/app.ts' } }] },
  done: { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'fixed', output: {} } }] },
};

/** What the tests of a Run workflow continue share, for one chore scheduled at `cron` (a schedule or `cron:` trigger). */
export interface DispatchContinue {
  /** The label of the agent job's step that finds the paused run. */
  find: string;
  /** The agent job's download of the paused run's artifact. */
  download(job: JobRun): JobRun['steps'][number] | undefined;
  /** The scheduled fire (run 4242), paused at its budget by `script` and applied: the ledger binds run 4242 to its store. */
  pausedRun(runner: RunnerFor, script: ScriptStep[]): Promise<WorkflowRunner>;
  /** A Run workflow (run 4343) naming the chore, after the paused run; its agent and apply jobs run. */
  dispatched(
    runner: RunnerFor,
    first: WorkflowRunner,
    inputs: Record<string, string>,
    script: ScriptStep[],
    login?: string,
  ): Promise<{ run: WorkflowRunner; agent: JobRun; manifest: Obj }>;
}

export function dispatchContinue(suite: ContinueSuite, choreId: string, cron: string): DispatchContinue {
  const find = `Find the paused run of chore ${choreId}`;
  const download = (job: JobRun) => job.steps.find((s) => s.label.includes('download-artifact'));
  const repository = { full_name: repoName, default_branch: 'main' };
  return {
    find,
    download,
    async pausedRun(runner, script) {
      const first = runner('schedule', { schedule: cron, repository }, '4242');
      suite.server().script(script);
      const agent = await first.runJob(`chore-${choreId}`);
      assert.equal(agent.conclusion, 'success', jobLog(agent));
      assert.deepEqual(
        agent.steps.filter((s) => s.label === find || s.label.includes('download-artifact')).map((s) => s.kind),
        ['skipped', 'skipped'],
        'a scheduled fire is no continue',
      );
      assert.equal(jobResult(agent).status, 'budget_exhausted');
      const apply = await first.runJob(`apply-${choreId}`);
      assert.equal(apply.conclusion, 'success', jobLog(apply));
      assert.deepEqual((suite.latestRecord(choreId).paused as string[] | undefined)?.[0], '4242', 'the ledger binds run 4242 to its store');
      return first;
    },
    async dispatched(runner, first, inputs, script, login = 'Codertocat') {
      const event = {
        inputs: { chore: choreId, ...inputs },
        ref: 'refs/heads/main',
        workflow: '.github/workflows/tasklane.yml',
        repository,
        sender: { login, type: 'User' },
      };
      const run = runner('workflow_dispatch', event, '4343', { '4242': first.artifactsDir });
      assert.deepEqual(run.selectedJobs(), [`chore-${choreId}`]);
      suite.server().reset();
      suite.server().script(script);
      const agent = await run.runJob(`chore-${choreId}`);
      assert.equal(agent.conclusion, 'success', jobLog(agent));
      const apply = await run.runJob(`apply-${choreId}`);
      assert.equal(apply.conclusion, 'success', jobLog(apply));
      return { run, agent, manifest: jobResult(agent) };
    },
  };
}
