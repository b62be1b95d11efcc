/**
 * The end-to-end harness of CI fires: a committed repository holding the four CI templates and the
 * team chores of the CI review (Appendix A) plus the attack chores, the scripted model, a fake
 * GitHub per test, and `fire()`: the agent job (`chores run --out`, model key and gate token, no
 * write token), then the apply job (`chores apply --from`, write token, no model), in process.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../src/cli/main';
import { ledgerCheckName, ledgerExternalId } from '../../src/cli/fireLedger';
import type { ResultManifest } from '../../src/cli/resultManifest';
import { appendChore } from '../../src/core/chores/choreSerialize';
import { ciChoreTemplates } from '../../src/core/chores/templates';
import { startFakeGithub } from '../fakes/githubApi';
import type { FakeGithub } from '../fakes/githubApi';
import { startHttpReceiver } from '../fixtures/escalationServers';
import type { HttpReceiver } from '../fixtures/escalationServers';
import { startModelServer } from '../fixtures/modelServer';
import type { ModelServer, ScriptStep } from '../fixtures/modelServer';
import { webhookExample, writeEvent } from './webhookExamples';

export type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const root = path.resolve(__dirname, '../..');
export const repoName = 'Codertocat/Hello-World';
export const headSha = 'a'.repeat(40);

/** Chores of the tests beside the four templates: the attacks need a label trigger, a slash command and caps across fires. */
export const extraChores = `  - id: outsider-fix
    name: Fix what the issue asks
    trigger:
      github: { event: issues, types: [labeled] }
    actors: { roles: [admin, maintain, write, read] }
    prompt: Fix what the issue describes.
    actionSets: [files, commands]
    commands: [npm test]
    outputs:
      labels: { allowed: [bug], max: 1 }
      comment: {}
      pullRequest: { draft: true }
  - id: team-fix
    name: Fix an issue on request (the team set of the CI review, Appendix A)
    trigger: { github: { event: issue_comment, command: fix } }
    actionSets: [files, commands]
    commands: ["npm test"]
    prompt: A maintainer asked you to fix this issue. Make the smallest edit and run npm test.
    budget: { maxIterations: 15, maxSeconds: 900, maxCostUsd: 2, maxCostUsdPerDay: 10, maxFiresPerItem: 3 }
    successWhen: "status = 'fix_proposed'"
    outputs:
      pullRequest: { draft: true }
      comment: { max: 1 }
  - id: pr-fix
    name: Fix an issue or a pull request on request
    trigger: { github: { event: issue_comment, command: fix } }
    actionSets: [files, commands]
    commands: ["npm test"]
    prompt: A maintainer asked you to fix this. Make the smallest edit and run npm test.
    outputs:
      pushToPullRequest: {}
      pullRequest: { draft: true }
      comment: { max: 1 }
  - id: tight-fix
    name: Fix within two model calls
    trigger:
      github: { event: issues, types: [opened] }
    prompt: Fix what the issue describes.
    actionSets: [files]
    budget: { maxIterations: 2 }
    outputs: { comment: {}, pullRequest: { draft: true } }
  - id: label-fix
    name: Fix when the tasklane-fix label is applied
    trigger:
      github: { event: issues, labelCommand: tasklane-fix }
    prompt: Fix what the issue describes.
    outputs: { comment: {} }
  - id: slash-triage
    name: Triage on request
    trigger:
      github: { event: issue_comment, command: triage }
    prompt: Triage the issue.
    outputs: { comment: {} }
  - id: capped
    name: Capped
    trigger:
      github: { event: issues, types: [opened] }
    prompt: Say hello.
    budget: { maxCostUsdPerDay: 0.2 }
    outputs: { comment: {} }
    escalate:
      webhook: { urlSecret: ops-hook }
  - id: hourly
    name: At most twice an hour
    trigger:
      github: { event: issues, types: [opened] }
    prompt: Say hello.
    budget: { maxFiresPerHour: 2 }
  - id: once
    name: Once per issue
    trigger:
      github: { event: issues, types: [opened] }
    prompt: Say hello.
    actionSets: [commands]
    commands: [npm test]
    budget: { maxFiresPerItem: 1 }
    outputs: { comment: {}, labels: { allowed: [bug], max: 1 } }
  - id: pr-review
    name: Review each push
    trigger:
      github: { event: pull_request, types: [opened], synchronize: true }
    prompt: Review the pull request.
    budget: { maxFiresPerItem: 2 }
`;

function makeRepo(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-ci-repo-'));
  let yaml = '';
  for (const t of ciChoreTemplates) yaml = appendChore(yaml, t.spec);
  fs.mkdirSync(path.join(dir, '.tasklane'));
  fs.mkdirSync(path.join(dir, '.github/workflows'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.tasklane/chores.yaml'), `${yaml.trimEnd()}\n${extraChores}`);
  fs.writeFileSync(path.join(dir, '.github/workflows/ci.yml'), 'name: CI\non: push\n');
  fs.writeFileSync(path.join(dir, 'app.js'), 'exports.answer = 41;\n');
  fs.writeFileSync(path.join(dir, 'check.js'), "require('fs').writeFileSync('ran.txt', 'ran');\nprocess.exit(require('./app.js').answer === 42 ? 0 : 1);\n");
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'x', private: true, scripts: { test: 'node check.js' } }));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=Test', '-c', 'user.email=test@tasklane.invalid', 'commit', '-q', '-m', 'init');
  return dir;
}

/** A maintainer's `/tasklane fix` comment on issue #1 (a real issue_comment payload). */
export const fixRequest = (): Obj => {
  const comment = webhookExample('issue_comment', (e) => e.action === 'created') as Obj;
  comment.repository.full_name = repoName;
  comment.comment.body = '/tasklane fix';
  comment.comment.user.login = 'Codertocat';
  comment.sender.login = 'Codertocat';
  return comment;
};

/** `count` earlier fires of `chore` today in the fake's ledger, as the apply job records them (fireLedger.ts), newest last. */
export function seedLedger(github: FakeGithub, chore: string, count: number, costUsd: number, item: string | null = null, firstId = 10_000): void {
  for (let i = 0; i < count; i++)
    github.checkRuns.push({
      id: firstId + i,
      name: ledgerCheckName(chore),
      head_sha: headSha, // the fake's default branch has one commit: its first
      conclusion: 'neutral',
      started_at: new Date().toISOString(),
      output: { title: 'Fire', summary: '' },
      external_id: ledgerExternalId({ chore, item, costUsd, at: new Date(Date.now() - (count - i) * 60_000).toISOString() }),
      app: { slug: 'github-actions' },
    });
}

export const end = (output: Obj): ScriptStep => ({ toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output } }] });

/** Registers the suite's hooks (mocha) and returns the harness; read its fields inside tests. */
export function ciFireSuite() {
  let server: ModelServer;
  let receiver: HttpReceiver;
  let github: FakeGithub;
  let dir: string;
  let tmp: string;
  let stepSummary = '';

  const baseEnv = (eventName: string, eventFile: string): Record<string, string> => ({
    GITHUB_EVENT_NAME: eventName,
    GITHUB_EVENT_PATH: eventFile,
    GITHUB_API_URL: github.baseUrl,
    GITHUB_REPOSITORY: repoName,
    GITHUB_SHA: headSha,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '4242',
  });

  async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runCli(args, { out: (t) => (out += t), err: (t) => (err += t), env, cwd: dir }, { skillsDir: path.join(root, 'skills') });
    return { code, out, err };
  }

  /** One fire: the agent job (model env + gate token, no write token), then the apply job (write token, no model; plus `applyEnv`). */
  async function fire(
    id: string,
    eventName: string,
    payload: Obj,
    script: ScriptStep[],
    extraEnv: Record<string, string> = {},
    applyEnv: Record<string, string> = {},
    runArgs: string[] = [],
  ) {
    server.reset();
    if (script.length) server.script(script);
    const event = writeEvent(tmp, eventName, payload);
    const out = fs.mkdtempSync(path.join(tmp, 'out-'));
    const run = await cli(['chores', 'run', id, '--out', out, ...runArgs], {
      TASKLANE_MODEL_PROVIDER: 'openai-compatible',
      TASKLANE_MODEL_BASE_URL: server.openaiBaseUrl,
      TASKLANE_MODEL_ID: 'gpt-5-mini',
      OPENAI_API_KEY: 'test-key',
      TASKLANE_GATE_TOKEN: 'gate-token',
      ...baseEnv(eventName, event),
      ...extraEnv,
    });
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'tasklane-result.json'), 'utf8')) as ResultManifest;
    const modelRequests = server.requests.length;
    const firstRequest = JSON.stringify(server.requests[0]?.body ?? '');
    const writesBefore = github.writes().length;
    fs.writeFileSync(stepSummary, '');
    const apply = await cli(['chores', 'apply', '--from', out], {
      ...baseEnv(eventName, event),
      GITHUB_TOKEN: 'write-token',
      GITHUB_STEP_SUMMARY: stepSummary,
      ...applyEnv,
    });
    return { run, manifest, apply, out, modelRequests, firstRequest, writes: github.writes().slice(writesBefore) };
  }

  /** The check runs of fires (`Tasklane · <id>`), not the ledger's records (fireLedger.ts). */
  const fireChecks = () => github.checkRuns.filter((c) => !c.name.startsWith('Tasklane ledger'));
  /** The comments outputs wrote (the model's text), not the status comments (statusComment.ts). */
  const outputComments = () => github.comments.filter((c) => !/<!-- tasklane:chore=\S+ status -->/.test(c.body));
  /** The status comments on item `issue` (one per chore, edited in place), or only `chore`'s. */
  const statusOn = (issue: number, chore = '\\S+') =>
    github.comments.filter((c) => c.issue === issue && new RegExp(`<!-- tasklane:chore=${chore} status -->`).test(c.body));

  const issueOpened = (login = 'Codertocat') => {
    const p = webhookExample('issues', (e) => e.action === 'opened') as Obj;
    p.sender.login = login;
    p.issue.user.login = login;
    return p;
  };

  before(async () => {
    server = await startModelServer();
    receiver = await startHttpReceiver();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-ci-'));
    stepSummary = path.join(tmp, 'step-summary.md');
    dir = makeRepo();
  });
  beforeEach(async () => {
    github = await startFakeGithub({ repo: repoName, headSha, files: { 'app.js': 'exports.answer = 41;\n' } });
    github.issues.set(1, { number: 1, title: 'Spelling error in the README file', body: '', labels: [] });
    github.issues.set(2, { number: 2, title: 'Add a feature', body: '', labels: [] });
    github.roles.set('Codertocat', 'maintain');
  });
  afterEach(() => github.close());
  after(async () => {
    await server.close();
    await receiver.close();
    for (const d of [tmp, dir]) fs.rmSync(d, { recursive: true, force: true });
  });

  return {
    get server() {
      return server;
    },
    get receiver() {
      return receiver;
    },
    get github() {
      return github;
    },
    get dir() {
      return dir;
    },
    get tmp() {
      return tmp;
    },
    get stepSummary() {
      return stepSummary;
    },
    baseEnv,
    cli,
    fire,
    fireChecks,
    outputComments,
    statusOn,
    issueOpened,
  };
}
