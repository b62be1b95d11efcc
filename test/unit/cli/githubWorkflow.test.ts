import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import type { GithubTrigger } from '../../../src/core/chores/githubTypes';
import type { ChoreDefinition } from '../../../src/core/chores/types';
import { githubWorkflow, workflowSchedule, WorkflowError } from '../../../src/cli/githubWorkflow';
import { INSTALL_CLI_SCRIPT } from '../../../src/cli/cliArtifact';
import { handOverScript } from '../../../src/cli/sealedSecrets';
import { ACTIONS } from '../../../src/cli/workflowText';
import { cronChore, everyEventKind, githubChore } from '../../support/ciChores';
import { TEST_CLI } from '../../support/ciRepo';
import { WorkflowRunner } from '../../support/workflowRunner';
import type { Workflow } from '../../support/workflowRunner';
import { actionlintLines } from '../../support/actionlint';

const HASH = 'ab'.repeat(32);
const generate = (chores: ChoreDefinition[]) => githubWorkflow(chores, { hashOf: () => HASH, cli: TEST_CLI });
const parsed = (text: string) => parseYaml(text) as Workflow;

/** Which agent jobs an event selects, by evaluating each job's `if:` as GitHub would. */
function selected(text: string, eventName: string, event: Record<string, unknown>): string[] {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-wf-select-'));
  try {
    return new WorkflowRunner({ workflow: text, eventName, event, repo: workDir, workDir, cli: ['false'] })
      .selectedJobs()
      .filter((j) => j.startsWith('chore-'));
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

describe('cli: the generated GitHub workflow', () => {
  it('grants nothing at the top; agent jobs read only; each apply job holds the write scopes of its outputs and checks: write', () => {
    const workflow = parsed(generate(everyEventKind()));
    assert.deepEqual(workflow.permissions, {});
    const agents = Object.keys(workflow.jobs).filter((id) => id.startsWith('chore-'));
    assert.equal(agents.length, 10);
    // Every agent job reads the fire ledger (check runs) for its budgets across fires, a cron
    // chore's too (the workflow schedules it and Run workflow dispatches it). What a fire is told for its purpose (fireFacts.ts) adds
    // read scopes: a pull request's files, a failed run's jobs and logs.
    // A chore whose paused runs are continued (issues, issue_comment on a comment; cron, schedule
    // and workflow_dispatch on Run workflow: ciResume.ts `continueGesture`) downloads the paused
    // run's artifact: actions: read, on its agent job only.
    const told: Record<string, Record<string, string>> = {
      'chore-nightly': { actions: 'read' },
      'chore-by-hand': { actions: 'read' },
      'chore-tokyo': { actions: 'read' },
      'chore-triage': { actions: 'read' },
      'chore-ask': { actions: 'read', 'pull-requests': 'read' },
      'chore-review-deps': { 'pull-requests': 'read' },
      'chore-fork-review': { 'pull-requests': 'read' },
      'chore-on-review': { 'pull-requests': 'read' },
      'chore-fix-build': { actions: 'read', 'pull-requests': 'read' },
    };
    for (const id of agents) assert.deepEqual(workflow.jobs[id]?.permissions, { checks: 'read', contents: 'read', ...told[id] }, id);
    const apply = (id: string) => workflow.jobs[`apply-${id}`]?.permissions;
    assert.deepEqual(apply('nightly'), { checks: 'write', contents: 'read' });
    assert.deepEqual(apply('triage'), { checks: 'write', contents: 'read', issues: 'write' });
    assert.deepEqual(apply('review-deps'), { checks: 'write', contents: 'read', issues: 'write', 'pull-requests': 'write' });
    // issues: write for the issue that carries the patch when GitHub refuses the pull request (draftPull.ts).
    assert.deepEqual(apply('fix-build'), { checks: 'write', contents: 'write', issues: 'write', 'pull-requests': 'write' });
    assert.deepEqual(apply('errors'), { checks: 'write', contents: 'read', issues: 'write' });
    // A pull request fire with no outputs still writes its status on the pull request.
    assert.deepEqual(apply('on-review'), { checks: 'write', contents: 'read', 'pull-requests': 'write' });
    assert.deepEqual(apply('ask'), { checks: 'write', contents: 'read', issues: 'write', 'pull-requests': 'write' });
  });

  it('agent jobs: no writing token, no persisted credentials, no cache; apply runs only after an upload', () => {
    const text = generate(everyEventKind());
    const workflow = parsed(text);
    assert.doesNotMatch(text, /actions\/cache|cache:/);
    for (const [id, job] of Object.entries(workflow.jobs)) {
      for (const step of job.steps.filter((s) => s.uses?.startsWith('actions/checkout@')))
        assert.equal(step.with?.['persist-credentials'], false, `${id}: ${JSON.stringify(step)}`);
      if (!id.startsWith('chore-')) continue;
      // The job's own read-only token reaches one place: the hand-over step's TASKLANE_GATE_TOKEN,
      // for the actor gate of an event chore and the fire ledger of every chore (a cron chore's too).
      const { steps, ...rest } = job;
      assert.doesNotMatch(JSON.stringify(rest), /GITHUB_TOKEN|github\.token|GH_TOKEN/, id);
      for (const step of steps) {
        const env = (step as { env?: Record<string, string> }).env ?? {};
        const token = Object.entries(env).filter(([, v]) => v.includes('github.token'));
        // A continue's two steps (workflowContinue.ts) read the ledger and download the paused run's
        // artifact with it too; both run only the pinned CLI or a pinned action, before any setup.
        const continueStep = step.name?.startsWith('Find the paused run of chore') === true;
        assert.ok(
          token.length === 0 || ((step.name === 'Hand the keys to Tasklane' || continueStep) && token.length === 1 && token[0]![0] === 'TASKLANE_GATE_TOKEN'),
          `${id}: ${JSON.stringify(step)}`,
        );
        const download = step.uses?.startsWith('actions/download-artifact@') === true;
        assert.doesNotMatch(
          JSON.stringify({ ...step, env: {}, ...(download ? { with: { ...step.with, 'github-token': '' } } : {}) }),
          /GITHUB_TOKEN|github\.token|GH_TOKEN/,
          id,
        );
        if (download) assert.equal(step.with?.['github-token'], '${{ github.token }}', id);
      }
      assert.equal(
        steps.some((s) => (s as { env?: Record<string, string> }).env?.TASKLANE_GATE_TOKEN !== undefined),
        true,
        `${id}: every chore gets the gate token for its ledger`,
      );
      const applyJob = workflow.jobs[id.replace(/^chore-/, 'apply-')];
      assert.equal(applyJob?.needs, id);
      // The apply job reports every fire: a cancelled or crashed agent job too, not a skipped one.
      assert.equal(applyJob?.if, `always() && needs.${id}.result != 'skipped'`);
      const download = applyJob?.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'));
      assert.equal((download as { if?: string } | undefined)?.if, `needs.${id}.outputs.artifact != ''`);
      assert.equal(job.outputs?.artifact, '${{ steps.upload.outputs.artifact-id }}');
    }
  });

  it('pins every action by a 40-hex commit with its tag beside it', () => {
    const text = generate(everyEventKind());
    const usesLines = text.split('\n').filter((l) => /\buses:/.test(l));
    assert.ok(usesLines.length > 30);
    const pinned = new Set(Object.values(ACTIONS).map((a) => `${a.repo}@${a.sha} # ${a.tag}`));
    for (const line of usesLines) {
      const spec = line.replace(/^.*uses: /, '');
      assert.match(spec, /^[\w-]+\/[\w-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/, line);
      assert.ok(pinned.has(spec), line);
    }
    assert.equal(ACTIONS.checkout.sha, '11bd71901bbe5b1630ceea73d27597364c9af683', 'actions/checkout v4.2.2');
  });

  it('no run: holds an expression, every ${{ }} is one of a short list, and pull_request_target never appears', () => {
    const text = generate(everyEventKind());
    const workflow = parsed(text);
    for (const [id, job] of Object.entries(workflow.jobs))
      for (const step of job.steps) if (step.run !== undefined) assert.doesNotMatch(step.run, /\$\{\{/, `${id}: ${step.run}`);
    const allowed = new Set([
      '${{ secrets.ANTHROPIC_API_KEY }}',
      '${{ secrets.OPENAI_API_KEY }}',
      '${{ secrets.TASKLANE_SECRET_TEAM_SLACK }}',
      '${{ secrets.TASKLANE_PR_TOKEN }}',
      '${{ github.token }}',
      '${{ steps.upload.outputs.artifact-id }}',
      '${{ github.event.repository.default_branch }}',
      '${{ github.event.issue.number || github.event.pull_request.number || github.run_id }}',
      // A continue: the paused run's id from the ledger (digits), as the download's run-id and the run step's env.
      '${{ steps.paused.outputs.run }}',
      "${{ steps.paused.outputs.run && 'tasklane-resume/store' || '' }}",
    ]);
    // How the agent job ended (success, failure, cancelled, skipped), for the apply job's report.
    for (const id of Object.keys(workflow.jobs).filter((j) => j.startsWith('chore-'))) allowed.add(`\${{ needs.${id}.result }}`);
    for (const expression of text.match(/\$\{\{[^}]*\}\}/g) ?? []) assert.ok(allowed.has(expression), expression);
    assert.doesNotMatch(text, /pull_request_target/);
  });

  it('keeps secrets in the env of the one step that hands them over, never in the run step; a read-only fork review gets the model keys only', () => {
    const workflow = parsed(generate(everyEventKind()));
    assert.doesNotMatch(JSON.stringify(workflow.env), /secrets\./);
    for (const [id, job] of Object.entries(workflow.jobs)) {
      assert.doesNotMatch(JSON.stringify({ ...job, steps: [] }), /secrets\./, id);
      for (const step of job.steps) {
        if (!/secrets\./.test(JSON.stringify(step))) continue;
        // The apply step runs the pinned CLI on the artifact and nothing else (no command, no
        // model): it may hold the optional pull-request token, and only that secret.
        if (step.run?.startsWith('tasklane chores apply')) {
          assert.equal(id, 'apply-fix-build', 'only a chore that opens pull requests gets the token');
          assert.deepEqual(
            Object.entries(step.env ?? {}).filter(([, v]) => /secrets\./.test(String(v))),
            [['TASKLANE_PR_TOKEN', '${{ secrets.TASKLANE_PR_TOKEN }}']],
          );
          continue;
        }
        assert.equal(step.name, 'Hand the keys to Tasklane', `${id}: ${JSON.stringify(step)}`);
        assert.match(step.run ?? '', /^umask 077\n/, 'the step only writes the files');
      }
      // Its env holds at most the continued store's folder (workflowContinue.ts), never a secret or a token.
      const run = job.steps.find((s) => s.run?.startsWith('tasklane chores run'));
      if (run?.env) assert.deepEqual(run.env, { RESUME_STORE: "${{ steps.paused.outputs.run && 'tasklane-resume/store' || '' }}" }, id);
    }
    const handOver = (id: string) => workflow.jobs[`chore-${id}`]?.steps.find((s) => s.name === 'Hand the keys to Tasklane');
    assert.deepEqual(Object.keys(handOver('nightly')?.env ?? {}), ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'TASKLANE_SECRET_TEAM_SLACK', 'TASKLANE_GATE_TOKEN']);
    assert.deepEqual(Object.keys(handOver('fork-review')?.env ?? {}), ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'TASKLANE_GATE_TOKEN']);
  });

  it('runs the chore by id with its hash through the pinned CLI; pull request chores read chores.yaml from the default branch', () => {
    const workflow = parsed(generate(everyEventKind()));
    const steps = (id: string) => workflow.jobs[`chore-${id}`]?.steps ?? [];
    assert.deepEqual(
      steps('triage').map((s) => s.run ?? s.uses?.replace(/@.*/, '')),
      [
        'actions/checkout',
        'actions/setup-node',
        `${INSTALL_CLI_SCRIPT}\n`,
        'run="$(tasklane chores paused --workspace repo --chore triage)"\necho "run=$run" >> "$GITHUB_OUTPUT"\n',
        'actions/download-artifact',
        `${handOverScript(['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'TASKLANE_GATE_TOKEN'])}\n`,
        `tasklane chores run triage --workspace repo --expect-hash ${HASH} --out tasklane-out --secrets-dir "$RUNNER_TEMP/tasklane-keys" \${RESUME_STORE:+--resume "$RESUME_STORE"}`,
        'rm -rf "$RUNNER_TEMP/tasklane-keys"',
        'actions/upload-artifact',
      ],
    );
    const download = steps('triage').find((s) => s.uses?.startsWith('actions/download-artifact@'));
    assert.deepEqual(download?.with, {
      name: 'tasklane-triage',
      path: 'tasklane-resume',
      'run-id': '${{ steps.paused.outputs.run }}',
      'github-token': '${{ github.token }}',
    });
    // A pull request chore is not continued by the workflow (its continue would check out another tree).
    assert.equal(
      steps('review-deps').some((s) => s.uses?.startsWith('actions/download-artifact@')),
      false,
    );
    const review = steps('review-deps');
    assert.deepEqual(review[1]?.with, { ref: '${{ github.event.repository.default_branch }}', path: 'base', 'persist-credentials': false });
    assert.equal(
      review.find((s) => s.run?.startsWith('tasklane chores run'))?.run,
      `tasklane chores run review-deps --workspace repo --expect-hash ${HASH} --out tasklane-out --chores-from base --secrets-dir "$RUNNER_TEMP/tasklane-keys"`,
    );
    assert.equal(workflow.jobs['apply-review-deps']?.steps[0]?.with?.ref, '${{ github.event.repository.default_branch }}');
    assert.equal(workflow.jobs['apply-triage']?.steps.at(-1)?.run, 'tasklane chores apply --workspace repo --from tasklane-out --chore triage');
  });

  it('sets timeout-minutes from maxSeconds and concurrency per (chore, item) from skip / queue / replace', () => {
    const slow = githubChore('slow', { event: 'issues' }, undefined, { budget: { ...cronChore().budget, maxSeconds: 1250 }, concurrency: 'replace' });
    const workflow = parsed(generate([cronChore(), slow]));
    assert.equal(workflow.jobs['chore-nightly']?.['timeout-minutes'], 20, '600 s is 10 minutes, plus 10');
    assert.equal(workflow.jobs['chore-slow']?.['timeout-minutes'], 31, '1250 s rounds up to 21 minutes, plus 10');
    assert.deepEqual(workflow.jobs['chore-nightly']?.concurrency, { group: 'tasklane-chore-nightly', 'cancel-in-progress': false });
    assert.deepEqual(workflow.jobs['chore-slow']?.concurrency, {
      group: 'tasklane-chore-slow-${{ github.event.issue.number || github.event.pull_request.number || github.run_id }}',
      'cancel-in-progress': true,
    });
    assert.equal(workflow.jobs['apply-slow']?.concurrency?.['cancel-in-progress'], false, 'a replaced fire never cuts an apply short');
  });

  it('merges the events into one on: block, and each job if: selects only its own event', () => {
    const text = generate(everyEventKind());
    const on = parsed(text).on as Record<string, Record<string, unknown> | null>;
    assert.deepEqual(Object.keys(on).sort(), [
      'issue_comment',
      'issues',
      'pull_request',
      'pull_request_review',
      'repository_dispatch',
      'schedule',
      'workflow_dispatch',
      'workflow_run',
    ]);
    assert.deepEqual(on.schedule, [{ cron: '0 2 * * *' }, { cron: '30 19 * * *' }], 'Asia/Tokyo 04:30 is 19:30 UTC');
    assert.deepEqual(on.workflow_run, { workflows: ['CI'], types: ['completed'], branches: ['main'] });
    assert.deepEqual(on.issues, { types: ['opened', 'labeled'] });
    assert.deepEqual(on.issue_comment, { types: ['created'] });
    // An issue chore alone still listens to created comments: its paused runs are continued by one.
    const issuesOnly = parsed(generate([githubChore('triage', { event: 'issues' })])).on as Record<string, unknown>;
    assert.deepEqual(issuesOnly.issue_comment, { types: ['created'] });
    assert.equal((parsed(generate([githubChore('review', { event: 'pull_request' })])).on as Record<string, unknown>).issue_comment, undefined);
    assert.deepEqual(on.pull_request, { types: ['opened', 'ready_for_review'] });
    assert.deepEqual(on.repository_dispatch, { types: ['sentry-alert'] });
    // Run workflow runs any chore by its id, not only schedule and dispatch chores.
    const ids = everyEventKind().map((c) => c.id);
    assert.deepEqual((on.workflow_dispatch?.inputs as Record<string, { options?: string[] }>).chore?.options, ids);
    for (const id of ids) assert.deepEqual(selected(text, 'workflow_dispatch', { inputs: { chore: id } }), [`chore-${id}`], id);

    const ownRepo = { head: { repo: { full_name: 'octo-org/octo-repo' } }, number: 7 };
    const fork = { head: { repo: { full_name: 'stranger/octo-repo' } }, number: 8 };
    assert.deepEqual(selected(text, 'issues', { action: 'opened', issue: { number: 1 } }), ['chore-triage']);
    // The status job of an item chore runs on its agent job's event, not on Run workflow (about no item).
    // An issue or comment chore's agent job also runs on a `/tasklane continue` comment (workflowContinue.ts).
    const continues =
      " || github.event_name == 'issue_comment' && github.event.action == 'created' && startsWith(github.event.comment.body, '/tasklane continue')";
    for (const id of ['triage', 'ask', 'review-deps', 'on-review'])
      assert.equal(
        parsed(text).jobs[`chore-${id}`]?.if,
        `${parsed(text).jobs[`status-${id}`]?.if} || github.event_name == 'workflow_dispatch' && inputs.chore == '${id}'${['triage', 'ask'].includes(id) ? continues : ''}`,
        id,
      );
    assert.deepEqual(selected(text, 'issue_comment', { action: 'created', comment: { body: '/tasklane continue' } }), ['chore-triage', 'chore-ask']);
    assert.deepEqual(selected(text, 'issue_comment', { action: 'edited', comment: { body: '/tasklane continue' } }), [], 'created comments only');
    assert.equal(parsed(text).jobs['status-nightly'], undefined, 'a fire about no item has no status job');
    assert.equal(parsed(text).jobs['status-fork-review'], undefined, "a fork's read-only review has no token to write with");
    assert.deepEqual(parsed(text).jobs['status-triage']?.permissions, { contents: 'read', issues: 'write' });
    assert.deepEqual(parsed(text).jobs['status-ask']?.permissions, { contents: 'read', issues: 'write', 'pull-requests': 'write' });
    assert.deepEqual(parsed(text).jobs['status-review-deps']?.permissions, { contents: 'read', 'pull-requests': 'write' });
    assert.equal(parsed(text).jobs['status-triage']?.steps.at(-1)?.run, 'tasklane chores status --workspace repo --chore triage');
    assert.deepEqual(selected(text, 'issues', { action: 'closed', issue: { number: 1 } }), []);
    assert.deepEqual(selected(text, 'issue_comment', { action: 'created', comment: { body: '/tasklane ask what broke?' } }), ['chore-ask']);
    assert.deepEqual(selected(text, 'issue_comment', { action: 'created', comment: { body: 'please /tasklane ask' } }), [], 'only at the start');
    assert.deepEqual(selected(text, 'pull_request', { action: 'opened', pull_request: ownRepo }), ['chore-review-deps', 'chore-fork-review']);
    assert.deepEqual(selected(text, 'pull_request', { action: 'opened', pull_request: fork }), ['chore-fork-review'], 'forks only where opted in');
    assert.deepEqual(selected(text, 'pull_request', { action: 'synchronize', pull_request: ownRepo }), [], 'synchronize only when asked');
    assert.deepEqual(selected(text, 'pull_request_review', { action: 'submitted', pull_request: ownRepo }), ['chore-on-review']);
    assert.deepEqual(selected(text, 'pull_request_review', { action: 'submitted', pull_request: fork }), []);
    assert.deepEqual(selected(text, 'workflow_run', { action: 'completed', workflow_run: { conclusion: 'success' } }), []);
    assert.deepEqual(selected(text, 'workflow_run', { action: 'completed', workflow_run: { conclusion: 'failure' } }), ['chore-fix-build']);
    assert.deepEqual(selected(text, 'repository_dispatch', { action: 'sentry-alert' }), ['chore-errors']);
    assert.deepEqual(selected(text, 'repository_dispatch', { action: 'deploy' }), []);
    assert.deepEqual(selected(text, 'workflow_dispatch', { inputs: { chore: 'by-hand', target: 'x' } }), ['chore-by-hand']);
    assert.deepEqual(selected(text, 'schedule', { schedule: '30 19 * * *' }), ['chore-tokyo']);
    assert.deepEqual(selected(text, 'schedule', { schedule: '0 2 * * *' }), ['chore-nightly']);
  });

  it('refuses pull_request_target and triggers it cannot express safely, naming the chore', () => {
    const refuse = (github: Omit<Partial<GithubTrigger>, 'event'> & { event: string }, pattern: RegExp) =>
      assert.throws(
        () => generate([githubChore('bad', github as unknown as GithubTrigger)]),
        (e: unknown) => e instanceof WorkflowError && /chore bad/.test(e.message) && pattern.test(e.message),
        JSON.stringify(github),
      );
    refuse({ event: 'pull_request_target' }, /pull_request_target is never generated/);
    refuse({ event: 'push' }, /not a GitHub event/);
    refuse({ event: 'repository_dispatch' }, /needs types/);
    refuse({ event: 'schedule' }, /schedule needs cron/);
    refuse({ event: 'workflow_dispatch', inputs: { x: { required: false, type: 'string\n  evil: 1' as 'string' } } }, /no type GitHub knows/);
    refuse({ event: 'workflow_run', workflows: ['CI'] }, /needs workflows and branches/);
    refuse({ event: 'issue_comment' }, /comment command/);
    refuse({ event: 'issue_comment', command: "x' || true || '" }, /not \[a-z0-9-\]/);
    refuse({ event: 'issue_comment', command: 'continue' }, /"continue" is Tasklane's own/);
    refuse({ event: 'issues', types: ["opened') || true || ('"] }, /not one word/);
    refuse({ event: 'workflow_dispatch', inputs: { chore: { required: false, type: 'string' } } }, /input "chore" is Tasklane's own/);
    refuse({ event: 'workflow_dispatch', inputs: { continue: { required: false, type: 'string' } } }, /input "continue" is Tasklane's own/);
    assert.throws(() => generate([{ ...cronChore(), id: 'Bad id' }]), /not \[a-z0-9-\]/);
    // A month cap CI would not count is refused, not accepted and ignored.
    assert.throws(
      () => generate([githubChore('monthly', { event: 'issues' }, undefined, { spendLimits: { maxCostUsdPerDay: 1, maxCostUsdPerMonth: 10 } })]),
      /chore monthly: budget.maxCostUsdPerMonth is not counted on CI/,
    );
    assert.throws(
      () => generate([cronChore('a'), githubChore('b', { event: 'issues' })].map((c) => ({ ...c, trigger: { kind: 'files', globs: ['a'], debounceMs: 1 } }))),
      /nothing to run on CI/,
    );
  });

  it('offers the continue input on Run workflow only when a cron, schedule or dispatch chore is there for it to continue', () => {
    type Form = { on: { workflow_dispatch: { inputs: Record<string, { required: boolean; type: string; default?: string }> } } };
    const form = (chores: ChoreDefinition[]) => (parseYaml(generate(chores)) as Form).on.workflow_dispatch.inputs;
    const input = form([githubChore('nightly', { event: 'schedule', cron: '0 2 * * *' })]).continue;
    assert.deepEqual(input && { required: input.required, type: input.type, default: input.default }, { required: false, type: 'string', default: '' });
    assert.ok(form([githubChore('by-hand', { event: 'workflow_dispatch' })]).continue);
    assert.ok(form([cronChore()]).continue, 'a cron: chore is continued as a schedule chore is');
    // Issue chores are continued by a comment; pull-request chores are not continued.
    for (const chores of [[githubChore('triage', { event: 'issues' })], [githubChore('review', { event: 'pull_request' })]])
      assert.equal(form(chores).continue, undefined, chores[0]!.id);
  });

  it('converts a zone to UTC when one UTC cron says the same, else keeps it with timezone:', () => {
    const cron = (pattern: string, timezone?: string) =>
      parseChoresFile(`chores:\n  - id: c\n    name: C\n    trigger: { cron: "${pattern}"${timezone ? `, timezone: ${timezone}` : ''} }\n    prompt: p\n`)
        .chores[0]!;
    assert.deepEqual(workflowSchedule(cron('0 2 * * *')), { cron: '0 2 * * *' });
    assert.deepEqual(workflowSchedule(cron('0 0 2 * * *')), { cron: '0 2 * * *' }, 'a zero seconds field is dropped');
    assert.deepEqual(workflowSchedule(cron('15 10 * * *', 'Asia/Tokyo')), { cron: '15 1 * * *' });
    assert.deepEqual(workflowSchedule(cron('0 3 * * *', 'Asia/Tokyo')), { cron: '0 18 * * *' }, 'wraps to the previous day when the day fields are *');
    assert.deepEqual(workflowSchedule(githubChore('g', { event: 'schedule', cron: '0 9 * * 1', timezone: 'Asia/Kolkata' })), { cron: '30 3 * * 1' });
    // What one UTC cron cannot say keeps its local cron and zone (GitHub's scheduler takes timezone:).
    assert.deepEqual(workflowSchedule(cron('0 2 * * *', 'Europe/Paris')), { cron: '0 2 * * *', timezone: 'Europe/Paris' }, 'daylight saving');
    assert.deepEqual(workflowSchedule(cron('0 3 * * 1', 'Asia/Tokyo')), { cron: '0 3 * * 1', timezone: 'Asia/Tokyo' }, 'the shift would move the day');
    assert.throws(() => workflowSchedule(cron('30 0 2 * * *')), /seconds/);
  });

  it('writes timezone: beside the cron, and refuses one cron in two zones', async () => {
    const chore = (id: string, pattern: string, zone: string) =>
      parseChoresFile(`chores:\n  - id: ${id}\n    name: C\n    trigger: { cron: "${pattern}", timezone: ${zone} }\n    prompt: p\n`).chores[0]!;
    const text = generate([chore('paris', '0 9 * * 1-5', 'Europe/Paris')]);
    assert.match(text, / {2}schedule:\n {4}- cron: "0 9 \* \* 1-5"\n {6}timezone: "Europe\/Paris"\n/);
    assert.match(text, /github\.event\.schedule == '0 9 \* \* 1-5'/);
    // actionlint 1.7.7 excused for exactly that key (test/support/actionlint.ts): nothing else to report.
    assert.deepEqual(await actionlintLines(text), []);
    assert.throws(
      () => generate([chore('paris', '0 9 * * *', 'Europe/Paris'), chore('ny', '0 9 * * *', 'America/New_York')]),
      (e: unknown) => e instanceof WorkflowError && /paris and ny both fire on "0 9 \* \* \*"/.test(e.message),
    );
  });
});
