/**
 * What the CI tests share: a committed git repository with a chores file, and the CLI called in
 * process (as `tasklane` would be) with its output captured.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultCliUrl } from '../../src/cli/cliArtifact';
import { runCli } from '../../src/cli/main';
import { startModelServer } from '../fixtures/modelServer';
import type { ModelServer } from '../fixtures/modelServer';

export const root = path.resolve(__dirname, '../..');
export const CLI_VERSION = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
/** The content digest tests write for the CLI (a source checkout has no bundle to hash; cliInstall.test.ts hashes a real one). */
export const TEST_CLI_DIGEST = 'ab'.repeat(32);
/** What githubWorkflow() is told about the CLI in tests. */
export const TEST_CLI = { digest: TEST_CLI_DIGEST, url: defaultCliUrl(CLI_VERSION) };

/** A cron chore that edits src/app.ts, as chores.yaml text; `extra` lines go under the chore. */
export function choresYaml(extra = '', prompt = 'Make src/app.ts export 42.'): string {
  return `chores:
  - id: fix-answer
    name: Fix the answer
    trigger: { cron: "0 2 * * *", timezone: UTC }
    prompt: ${prompt}
    actionSets: [files]
${extra
  .split('\n')
  .filter(Boolean)
  .map((l) => `    ${l}`)
  .join('\n')}
`;
}

/** A committed repository holding `chores`; the caller removes it. */
export function makeRepo(chores: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-ci-repo-'));
  fs.mkdirSync(path.join(dir, '.tasklane'));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, '.tasklane/chores.yaml'), chores);
  fs.writeFileSync(path.join(dir, 'src/app.ts'), 'export const answer = 41;\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=Test', '-c', 'user.email=test@tasklane.invalid', 'commit', '-q', '-m', 'init');
  return dir;
}

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** `tasklane <args>` in process, with only `env` as its environment. */
export async function cli(args: string[], env: Record<string, string> = {}, cwd = root): Promise<CliRun> {
  let out = '';
  let err = '';
  const code = await runCli(
    args,
    { out: (t) => (out += t), err: (t) => (err += t), env, cwd },
    { skillsDir: path.join(root, 'skills'), version: CLI_VERSION, cliDigest: TEST_CLI_DIGEST },
  );
  return { code, out, err };
}

/**
 * For a mocha suite: the scripted model server, started before its tests and closed after, and a
 * list of temp folders removed after them. Read `server` inside tests (it is set in `before`).
 */
export function modelServerSuite(): { server: ModelServer; dirs: string[] } {
  const suite = { server: undefined as unknown as ModelServer, dirs: [] as string[] };
  before(async () => {
    suite.server = await startModelServer();
  });
  after(async () => {
    await suite.server.close();
    for (const dir of suite.dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  return suite;
}
