/**
 * Runs a generated GitHub Actions workflow's jobs on this machine, so tests exercise the workflow
 * rather than only lint it. The text is parsed with the `yaml` package; for one event (a name and
 * a payload written to a file, as `$GITHUB_EVENT_PATH`), each job's `if:` is evaluated
 * (workflowExpressions.ts), and a job runs its steps in order in a folder of its own:
 *  - `run:` steps run with `bash --noprofile --norc -eo pipefail` (GitHub's default shell), in an
 *    environment built like a runner's: the workflow, job and step `env:` with `${{ }}` filled in,
 *    GITHUB_* variables, and a PATH whose first folder holds the stand-ins of `tasklane` (this
 *    checkout's CLI), `npm` (refuses everything: the CLI is never installed from a registry) and
 *    `npx` (runs only the exact packages a test names, from node_modules: no download);
 *    nothing else of this process's environment. Folders a step appends to `$GITHUB_PATH` come
 *    first on PATH in the job's later steps, as on a runner;
 *  - the CLI's install step is checked to be exactly the generated script and stood in for, or,
 *    with `installCli: 'run'`, run for real (it downloads from TASKLANE_CLI_URL, a local server);
 *  - `uses:` steps are emulated and must be pinned by commit: checkout copies the fixture
 *    repository (or, for a `ref:`, the default branch's fixture) into its `path`, setup-node does
 *    nothing, upload-artifact and download-artifact copy a folder to and from an artifact store.
 * Child processes are started without blocking, so a model server in the test's process answers.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { INSTALL_CLI_SCRIPT } from '../../src/cli/cliArtifact';
import { condition, interpolate } from './workflowExpressions';
import type { Context } from './workflowExpressions';

interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  /** run steps: relative to the job's workspace, as GitHub resolves it. */
  'working-directory'?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
}

export interface Job {
  if?: string;
  needs?: string | string[];
  permissions?: Record<string, string>;
  outputs?: Record<string, string>;
  steps: Step[];
  'timeout-minutes'?: number;
  concurrency?: { group: string; 'cancel-in-progress': boolean };
}

export interface Workflow {
  on: Record<string, unknown>;
  permissions?: unknown;
  env?: Record<string, unknown>;
  jobs: Record<string, Job>;
}

export interface StepRecord {
  label: string;
  kind: 'uses' | 'run' | 'skipped';
  exitCode: number;
  output: string;
  /** run steps: the environment the script saw. */
  env?: Record<string, string>;
}

export interface JobRun {
  conclusion: 'success' | 'failure';
  steps: StepRecord[];
  outputs: Record<string, string>;
  dir: string;
}

export interface RunnerSetup {
  workflow: string;
  eventName: string;
  event: Record<string, unknown>;
  /** The repository checked out by default. */
  repo: string;
  /** The default branch's tree, for checkouts with `ref:` (default: `repo`). */
  defaultBranchRepo?: string;
  secrets?: Record<string, string>;
  /** Where jobs, artifacts and shims live (a temp folder the test removes). */
  workDir: string;
  /** The command line standing in for `tasklane` (e.g. node + this checkout's bin/tasklane.js). */
  cli: string[];
  /**
   * `stand-in` (default): the install step must be exactly the generated script, and the
   * `tasklane` stand-in answers; `run`: the step runs, and the CLI it installs answers instead.
   */
  installCli?: 'stand-in' | 'run';
  repository?: string;
  /** More of what a runner sets in every step (GITHUB_API_URL of a fake API, GITHUB_SHA…). */
  env?: Record<string, string>;
  /**
   * Packages the `npx` stand-in runs, by their exact `name@version`, as the command line that runs
   * the installed copy (a pinned MCP server in node_modules): npx would download it, and tests run
   * offline. Any other npx call fails.
   */
  npxPackages?: Record<string, string[]>;
  /**
   * Earlier workflow runs by run id, as the folder of their artifacts (a runner's `artifactsDir`):
   * download-artifact with `run-id` reads there, and only with a `github-token`, as GitHub's does.
   */
  otherRuns?: Record<string, string>;
}

export class WorkflowRunner {
  readonly workflow: Workflow;
  private readonly results = new Map<string, JobRun>();
  private readonly eventPath: string;
  private readonly shims: string;
  /** This run's artifacts, one folder each by name (what a later run's `otherRuns` names). */
  readonly artifactsDir: string;

  constructor(private readonly setup: RunnerSetup) {
    this.workflow = parseYaml(setup.workflow) as Workflow;
    fs.mkdirSync(setup.workDir, { recursive: true });
    this.eventPath = path.join(setup.workDir, 'event.json');
    fs.writeFileSync(this.eventPath, JSON.stringify(setup.event));
    this.artifactsDir = path.join(setup.workDir, 'artifacts');
    this.shims = path.join(setup.workDir, 'bin');
    fs.mkdirSync(this.shims, { recursive: true });
    const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
    fs.writeFileSync(path.join(this.shims, 'tasklane'), `#!/bin/sh\nexec ${setup.cli.map(quote).join(' ')} "$@"\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(this.shims, 'npm'), `#!/bin/sh\necho "npm stand-in: unexpected npm $*" >&2\nexit 97\n`, { mode: 0o755 });
    const packages = Object.entries(setup.npxPackages ?? {}).map(
      ([spec, command]) => `  ${quote(spec)}) shift; exec ${command.map(quote).join(' ')} "$@" ;;\n`,
    );
    fs.writeFileSync(
      path.join(this.shims, 'npx'),
      `#!/bin/sh\n[ "$1" = -y ] && shift\ncase "$1" in\n${packages.join('')}esac\necho "npx stand-in: unexpected npx $*" >&2\nexit 97\n`,
      { mode: 0o755 },
    );
  }

  /** The file every step's GITHUB_STEP_SUMMARY names (one for the whole run, as the run page shows them together). */
  stepSummaryFile(): string {
    return path.join(this.setup.workDir, 'tmp', 'step-summary.md');
  }

  /** What the steps wrote to their step summary so far. */
  stepSummary(): string {
    return fs.existsSync(this.stepSummaryFile()) ? fs.readFileSync(this.stepSummaryFile(), 'utf8') : '';
  }

  /** The context of expressions; `needs` and `steps` are filled per job. */
  private context(extra: Context = {}): Context {
    const repository = this.setup.repository ?? 'octo-org/octo-repo';
    return {
      github: {
        event_name: this.setup.eventName,
        event: this.setup.event,
        repository,
        run_id: '4242',
        token: 'ghs_runner_token',
        workspace: '',
      },
      inputs: (this.setup.event.inputs as Record<string, unknown> | undefined) ?? {},
      secrets: this.setup.secrets ?? {},
      runner: { temp: path.join(this.setup.workDir, 'tmp') },
      ...extra,
    };
  }

  /** The jobs whose `if:` selects this event (jobs that need another are left out). */
  selectedJobs(): string[] {
    return Object.entries(this.workflow.jobs)
      .filter(([, job]) => !job.needs && condition(job.if, this.context(), { success: true, cancelled: false }))
      .map(([id]) => id);
  }

  /** Whether a job that needs others would run, given their results so far. */
  wouldRun(jobId: string): boolean {
    const job = this.job(jobId);
    const needs = [job.needs ?? []].flat();
    const done = needs.map((id) => this.results.get(id));
    if (done.some((r) => !r)) throw new Error(`${jobId} needs ${needs.join(', ')}: run them first`);
    return condition(job.if, this.context({ needs: this.needsContext(needs) }), { success: done.every((r) => r?.conclusion === 'success'), cancelled: false });
  }

  /** Runs a job's steps in order; `until` stops before the first step it matches. */
  async runJob(jobId: string, until?: (step: { name?: string; run?: string; uses?: string }) => boolean): Promise<JobRun> {
    const job = this.job(jobId);
    const dir = path.join(this.setup.workDir, 'jobs', jobId);
    fs.mkdirSync(dir, { recursive: true });
    fs.mkdirSync(path.join(this.setup.workDir, 'tmp'), { recursive: true });
    const needs = this.needsContext([job.needs ?? []].flat());
    const steps: Record<string, { outputs: Record<string, string>; conclusion: string }> = {};
    const records: StepRecord[] = [];
    const githubPath = path.join(dir, '.github-path');
    fs.writeFileSync(githubPath, '');
    let success = true;
    for (const [index, step] of job.steps.entries()) {
      if (until?.(step)) break;
      const label = step.name ?? step.uses ?? step.run ?? `step ${index}`;
      const context = this.context({ needs, steps });
      if (!condition(step.if, context, { success, cancelled: false })) {
        records.push({ label, kind: 'skipped', exitCode: 0, output: '' });
        continue;
      }
      const result = step.uses ? this.uses(step, dir, context) : await this.run(step, dir, context, job, githubPath);
      records.push({ label, ...result.record });
      if (step.id) steps[step.id] = { outputs: result.outputs, conclusion: result.record.exitCode === 0 ? 'success' : 'failure' };
      if (result.record.exitCode !== 0) success = false;
    }
    const outputs = Object.fromEntries(Object.entries(job.outputs ?? {}).map(([k, v]) => [k, interpolate(v, this.context({ steps }))]));
    const run: JobRun = { conclusion: success ? 'success' : 'failure', steps: records, outputs, dir };
    this.results.set(jobId, run);
    return run;
  }

  private job(jobId: string): Job {
    const job = this.workflow.jobs[jobId];
    if (!job) throw new Error(`no job ${jobId}; jobs: ${Object.keys(this.workflow.jobs).join(', ')}`);
    return job;
  }

  private needsContext(ids: string[]): Context {
    return Object.fromEntries(ids.map((id) => [id, { result: this.results.get(id)?.conclusion, outputs: this.results.get(id)?.outputs ?? {} }]));
  }

  private uses(step: Step, dir: string, context: Context): { record: Omit<StepRecord, 'label'>; outputs: Record<string, string> } {
    const match = /^([\w.-]+\/[\w.-]+)@([0-9a-f]{40})$/.exec(step.uses ?? '');
    if (!match) throw new Error(`uses: ${step.uses} is not pinned by a commit`);
    const inputs = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(String(v), context)]));
    const done = (output: string, outputs: Record<string, string> = {}, exitCode = 0) => ({ record: { kind: 'uses' as const, exitCode, output }, outputs });
    switch (match[1]) {
      case 'actions/checkout': {
        const source = inputs.ref ? (this.setup.defaultBranchRepo ?? this.setup.repo) : this.setup.repo;
        const target = path.join(dir, inputs.path ?? '.');
        fs.cpSync(source, target, { recursive: true, verbatimSymlinks: true });
        return done(
          `checked out ${inputs.ref ? `ref ${inputs.ref}` : 'the event commit'} into ${inputs.path ?? '.'} (persist-credentials: ${inputs['persist-credentials']})`,
        );
      }
      case 'actions/setup-node':
        return done(`node ${inputs['node-version']}`);
      case 'actions/upload-artifact': {
        const from = path.join(dir, inputs.path ?? '');
        const files = fs.existsSync(from) ? fs.readdirSync(from) : [];
        if (files.length === 0) return done('no files to upload');
        fs.cpSync(from, path.join(this.artifactsDir, inputs.name ?? 'artifact'), { recursive: true });
        return done(`uploaded ${files.sort().join(', ')}`, { 'artifact-id': '1001' });
      }
      case 'actions/download-artifact': {
        const runId = inputs['run-id'];
        if (runId !== undefined && !inputs['github-token']) return done('download-artifact: run-id needs github-token', {}, 1);
        const run = runId === undefined ? this.artifactsDir : this.setup.otherRuns?.[runId];
        if (run === undefined) return done(`no workflow run ${runId}`, {}, 1);
        const from = path.join(run, inputs.name ?? 'artifact');
        if (!fs.existsSync(from)) return done(`no artifact ${inputs.name}`, {}, 1);
        fs.cpSync(from, path.join(dir, inputs.path ?? '.'), { recursive: true });
        return done(`downloaded ${inputs.name}`);
      }
      default:
        throw new Error(`the runner does not emulate ${match[1]}`);
    }
  }

  private async run(
    step: Step,
    dir: string,
    context: Context,
    job: Job,
    githubPath: string,
  ): Promise<{ record: Omit<StepRecord, 'label'>; outputs: Record<string, string> }> {
    if (step.name === 'Install the Tasklane CLI' && (this.setup.installCli ?? 'stand-in') === 'stand-in') {
      const exact = step.run?.trimEnd() === INSTALL_CLI_SCRIPT;
      return {
        record: { kind: 'run', exitCode: exact ? 0 : 97, output: exact ? 'CLI install stood in for' : `unexpected install script:\n${step.run}` },
        outputs: {},
      };
    }
    const outputFile = path.join(this.setup.workDir, 'tmp', `output-${Date.now()}-${Math.random().toString(36).slice(2)}`);
    fs.writeFileSync(outputFile, '');
    const values = (env: Record<string, unknown> | undefined) =>
      Object.fromEntries(Object.entries(env ?? {}).map(([k, v]) => [k, interpolate(String(v), context)]));
    const env: Record<string, string> = {
      PATH: [...fs.readFileSync(githubPath, 'utf8').split('\n').filter(Boolean).reverse(), this.shims, process.env.PATH ?? ''].join(':'),
      GITHUB_PATH: githubPath,
      HOME: path.join(this.setup.workDir, 'home'),
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: this.setup.eventName,
      GITHUB_EVENT_PATH: this.eventPath,
      GITHUB_WORKSPACE: dir,
      GITHUB_REPOSITORY: this.setup.repository ?? 'octo-org/octo-repo',
      GITHUB_OUTPUT: outputFile,
      RUNNER_TEMP: path.join(this.setup.workDir, 'tmp'),
      GITHUB_STEP_SUMMARY: this.stepSummaryFile(),
      ...this.setup.env,
      ...values(this.workflow.env),
      ...values((job as { env?: Record<string, unknown> }).env),
      ...values(step.env),
    };
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve, reject) => {
      const cwd = step['working-directory'] ? path.join(dir, step['working-directory']) : dir;
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run ?? ''], { cwd, env });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c ?? 1, output }));
    });
    const outputs = Object.fromEntries(
      fs
        .readFileSync(outputFile, 'utf8')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    return { record: { kind: 'run', exitCode: code, output, env }, outputs };
  }
}
