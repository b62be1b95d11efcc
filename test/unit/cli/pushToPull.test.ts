import * as assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { GithubApi } from '../../../src/cli/githubApi';
import { githubWorkflow } from '../../../src/cli/githubWorkflow';
import { unifiedDiff } from '../../../src/cli/patch';
import { pushToPull } from '../../../src/cli/pushToPull';
import type { ChoreDefinition } from '../../../src/core/chores/types';
import { ciFireSuite, end, fixRequest, headSha, repoName } from '../../support/ciFireHarness';
import type { Obj } from '../../support/ciFireHarness';
import type { ScriptStep } from '../../fixtures/modelServer';
import { githubChore } from '../../support/ciChores';
import { TEST_CLI } from '../../support/ciRepo';
import { webhookExample } from '../../support/webhookExamples';
import type { Workflow } from '../../support/workflowRunner';

const prHead = 'b'.repeat(40);

describe('cli: /tasklane fix on a pull request commits to its branch (pushToPullRequest)', function () {
  this.timeout(120_000);
  const h = ciFireSuite();
  const { fire, statusOn } = h;

  /** Pull request #2 on branch `feature`, one commit past the default branch, in `repo`. */
  function openPull(repo: string): Obj {
    h.github.commits.set(prHead, { tree: 'tree-base', parents: [headSha], message: 'feature', files: new Map(), modes: new Map() });
    h.github.refs.set('heads/feature', prHead);
    h.github.openPulls.set(2, { ref: 'feature', sha: prHead, repo });
    // The recorded comment, moved onto pull request #2: a comment on a pull request is an
    // issue_comment whose issue carries `pull_request` (the examples record none on a pull request).
    const comment = fixRequest();
    const pr = webhookExample('pull_request', (e) => e.action === 'opened') as Obj;
    comment.issue.number = 2;
    comment.issue.pull_request = { url: pr.pull_request.url, html_url: pr.pull_request.html_url, diff_url: pr.pull_request.diff_url };
    return comment;
  }
  const fixApp: ScriptStep = {
    toolCalls: [{ name: 'replace_in_file', arguments: { path: 'app.js', edits: [{ oldText: 'answer = 41', newText: 'answer = 42' }] } }],
  };
  const test: ScriptStep = { toolCalls: [{ name: 'run_command', arguments: { command: 'npm test' } }] };
  const pushed = end({ pushToPullRequest: { message: 'Fix the answer' }, comment: 'Pushed a fix to this pull request.' });

  it('a same-repository pull request gets a commit on its branch, no second pull request', async () => {
    const result = await fire('pr-fix', 'issue_comment', openPull(repoName), [fixApp, test, pushed]);
    assert.equal(result.manifest.tainted, false, result.manifest.taintReasons.join());
    assert.deepEqual(result.manifest.item, { repo: repoName, number: 2, kind: 'pull_request' });
    assert.match(result.firstRequest, /\\"pushToPullRequest\\": \{\\"message\\": \\"<commit message>\\"\}/, 'the model is told the kind');
    assert.ok(
      h.github.requests.some((r) => r.method === 'GET' && r.path.endsWith('/pulls/2') && r.token === 'gate-token'),
      'the agent job asked whether the pull request is a fork',
    );
    assert.equal(result.apply.code, 0, result.apply.out);
    assert.equal(h.github.pulls.length, 0, 'no second pull request');
    const moved = h.github.refs.get('heads/feature')!;
    assert.notEqual(moved, prHead);
    const commit = h.github.commits.get(moved)!;
    assert.deepEqual(commit.parents, [prHead], "a fast-forward on the pull request's head");
    assert.equal(commit.files.get('app.js'), 'exports.answer = 42;\n');
    assert.match(commit.message, /^Fix the answer\n\nProposed by the Tasklane chore pr-fix\.\n\nTasklane-Chore: pr-fix$/);
    assert.match(
      result.apply.out,
      new RegExp(`applied: commit ${moved.slice(0, 12)} on pull request #2 \\(app\\.js\\); pushed with the workflow's token, so GitHub starts no CI for it`),
    );
    assert.match(statusOn(2, 'pr-fix')[0]?.body ?? '', /Outputs applied: commit [0-9a-f]{12} on pull request #2 \(app\.js\)/);

    // With TASKLANE_PR_TOKEN the commit and the branch move are that token's, so CI starts.
    const again = await fire('pr-fix', 'issue_comment', openPull(repoName), [fixApp, pushed], {}, { TASKLANE_PR_TOKEN: 'app-token' });
    assert.equal(again.apply.code, 0, again.apply.out);
    const branchMove = again.writes.find((w) => w.method === 'PATCH' && w.path.endsWith('/git/refs/heads/feature'));
    assert.equal(branchMove?.token, 'app-token');
    assert.deepEqual(branchMove?.body, { sha: h.github.refs.get('heads/feature'), force: false });
    assert.doesNotMatch(again.apply.out, /starts no CI/);
  });

  it("a fork's pull request: the fire runs as a fork's (no commands, no patch) and the commit is refused with the reason", async () => {
    const result = await fire('pr-fix', 'issue_comment', openPull('outsider/Hello-World'), [fixApp, test, pushed]);
    assert.equal(result.manifest.tainted, true);
    assert.match(result.manifest.taintReasons.join(), /the pull request comes from the fork outsider\/Hello-World \(forks: read-only\)/);
    assert.deepEqual(result.manifest.commands.run, [], 'no command ran on the fork code');
    assert.equal(h.github.refs.get('heads/feature'), prHead, 'nothing pushed');
    assert.match(result.apply.out, /refused: commit to the pull request: the fire is tainted \(the pull request comes from the fork outsider\/Hello-World/);
    assert.match(statusOn(2, 'pr-fix')[0]?.body ?? '', /Outputs refused: commit to the pull request: the fire is tainted/);
  });

  it('on an issue the same chore opens a draft pull request; a proposed commit there is refused by name', async () => {
    const result = await fire('pr-fix', 'issue_comment', fixRequest(), [
      fixApp,
      end({ pushToPullRequest: { message: 'Fix' }, pullRequest: { title: 'Fix the answer', body: 'Off by one.' } }),
    ]);
    assert.equal(h.github.pulls.length, 1, result.apply.out);
    assert.match(result.apply.out, /refused: commit to the pull request: the triggering item is not a pull request/);
  });

  it("the apply job re-checks: a fork's branch, a closed pull request and a branch that moved meanwhile are refused, nothing overwritten", async () => {
    const api = new GithubApi({ baseUrl: h.github.baseUrl, repo: repoName, token: 'write-token' });
    const chore = { id: 'pr-fix', name: 'Fix' } as ChoreDefinition;
    const patch = unifiedDiff([{ path: 'app.js', before: 'exports.answer = 41;\n', after: 'exports.answer = 42;\n' }]);
    const push = async () => {
      const report = { applied: [] as string[], refused: [] as string[] };
      await pushToPull({ chore, message: 'Fix', patch, declaredPaths: [], number: 2, api, report });
      return report;
    };
    openPull('outsider/Hello-World');
    assert.match(
      (await push()).refused[0] ?? '',
      /^commit to pull request #2: its branch is in the fork outsider\/Hello-World, which Tasklane does not push to/,
    );
    h.github.openPulls.set(2, { ref: 'feature', sha: prHead, repo: repoName, state: 'closed' });
    assert.match((await push()).refused[0] ?? '', /the pull request is closed/);
    // The author pushed after the run read the head: GitHub refuses the fast-forward.
    h.github.openPulls.set(2, { ref: 'feature', sha: prHead, repo: repoName });
    h.github.commits.set('c'.repeat(40), { tree: 'tree-base', parents: [prHead], message: 'author', files: new Map(), modes: new Map() });
    h.github.refs.set('heads/feature', 'c'.repeat(40));
    const moved = await push();
    assert.deepEqual(moved.applied, []);
    assert.match(moved.refused[0] ?? '', /GitHub refused it \(.*422 Update is not a fast forward\): the branch moved on while the run worked; ask again/);
    assert.equal(h.github.refs.get('heads/feature'), 'c'.repeat(40), "the author's commit stays the head");
  });

  it("the generated agent job works on the commented pull request's head with chores.yaml from the default branch; the apply job may push", () => {
    const chore = githubChore('pr-fix', { event: 'issue_comment', command: 'fix' }, { pushToPullRequest: {}, comment: { max: 1 } });
    const plain = githubChore('ask', { event: 'issue_comment', command: 'ask' }, { comment: { max: 1 } });
    const workflow = parseYaml(githubWorkflow([chore, plain], { hashOf: () => 'ab'.repeat(32), cli: TEST_CLI })) as Workflow;
    const agent = workflow.jobs['chore-pr-fix']!;
    const checkouts = agent.steps.filter((s) => s.uses?.startsWith('actions/checkout@'));
    assert.deepEqual(
      checkouts.map((s) => s.with),
      [
        {
          ref: "${{ github.event.issue.pull_request && format('refs/pull/{0}/head', github.event.issue.number) || '' }}",
          path: 'repo',
          'persist-credentials': false,
        },
        { ref: '${{ github.event.repository.default_branch }}', path: 'base', 'persist-credentials': false },
      ],
    );
    assert.match(agent.steps.find((s) => s.run?.startsWith('tasklane chores run'))?.run ?? '', / --chores-from base /);
    // actions: read is for /tasklane continue, which downloads a paused run's artifact (workflowContinue.ts).
    assert.deepEqual(agent.permissions, { actions: 'read', checks: 'read', contents: 'read', 'pull-requests': 'read' });
    assert.deepEqual(workflow.jobs['apply-pr-fix']?.permissions, { checks: 'write', contents: 'write', issues: 'write', 'pull-requests': 'write' });
    const applyStep = workflow.jobs['apply-pr-fix']!.steps.find((s) => s.run?.startsWith('tasklane chores apply'));
    assert.equal(applyStep?.env?.TASKLANE_PR_TOKEN, '${{ secrets.TASKLANE_PR_TOKEN }}');
    // A comment chore that does not commit keeps the default branch and its permissions.
    const askCheckouts = workflow.jobs['chore-ask']!.steps.filter((s) => s.uses?.startsWith('actions/checkout@'));
    assert.deepEqual(
      askCheckouts.map((s) => s.with),
      [{ path: 'repo', 'persist-credentials': false }],
    );
    // (It may read a commented pull request's changed files, fireFacts.ts: a read scope, no checkout.)
    assert.deepEqual(workflow.jobs['chore-ask']?.permissions, { actions: 'read', checks: 'read', contents: 'read', 'pull-requests': 'read' });
  });
});
