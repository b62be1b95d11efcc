import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { draftPull } from '../../../src/cli/draftPull';
import { GithubApi } from '../../../src/cli/githubApi';
import { unifiedDiff } from '../../../src/cli/patch';
import type { ChoreDefinition } from '../../../src/core/chores/types';
import { ciFireSuite, end, fixRequest, repoName } from '../../support/ciFireHarness';
import type { ScriptStep } from '../../fixtures/modelServer';

const NOT_PERMITTED = 'GitHub Actions is not permitted to create or approve pull requests.';

describe('cli: a sturdy draft pull request (refused by GitHub, file modes, protected paths, its own token)', function () {
  this.timeout(120_000);
  const h = ciFireSuite();
  const { fire, outputComments, statusOn } = h;

  before(() => {
    // An executable script and a link on the default branch, as the checkout and the fake GitHub both hold them.
    fs.mkdirSync(path.join(h.dir, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(h.dir, 'bin/run.sh'), '#!/bin/sh\necho 41\n', { mode: 0o755 });
    fs.symlinkSync('../app.js', path.join(h.dir, 'bin/app-link.js'));
    fs.writeFileSync(path.join(h.dir, 'notes.txt'), 'draft\n');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: h.dir, stdio: 'pipe' });
    git('add', '-A');
    git('-c', 'user.name=Test', '-c', 'user.email=test@tasklane.invalid', 'commit', '-q', '-m', 'scripts');
  });
  beforeEach(() => {
    h.github.files.set('bin/run.sh', '#!/bin/sh\necho 41\n');
    h.github.modes.set('bin/run.sh', '100755');
    h.github.files.set('bin/app-link.js', '../app.js');
    h.github.modes.set('bin/app-link.js', '120000');
    h.github.files.set('notes.txt', 'draft\n');
  });

  const edit = (file: string, oldText: string, newText: string): ScriptStep => ({
    toolCalls: [{ name: 'replace_in_file', arguments: { path: file, edits: [{ oldText, newText }] } }],
  });
  const fixed = end({ status: 'fix_proposed', pullRequest: { title: 'Fix the answer', body: 'Off by one.' }, comment: 'I opened a draft pull request.' });
  const tasklaneBranches = () => [...h.github.refs.keys()].filter((r) => r.startsWith('heads/tasklane/'));

  it('GitHub refuses the pull request (403): the pushed branch is deleted, an issue carries the patch, and the status says so', async () => {
    h.github.refusePulls = { status: 403, message: NOT_PERMITTED };
    const comment = fixRequest();
    const number = comment.issue.number as number;
    const result = await fire('team-fix', 'issue_comment', comment, [edit('app.js', 'answer = 41', 'answer = 42'), fixed]);
    assert.equal(result.manifest.status, 'succeeded', result.manifest.reason ?? '');
    assert.ok(
      result.writes.some((w) => w.method === 'POST' && w.path.endsWith('/git/refs')),
      'the branch was pushed before GitHub refused the pull request',
    );
    assert.deepEqual(tasklaneBranches(), [], 'no stray branch is left');
    assert.equal(h.github.pulls.length, 0);

    const filed = [...h.github.issues.values()].filter((i) => i.number > 2);
    assert.equal(filed.length, 1, 'one issue carries the patch');
    assert.equal(filed[0].title, 'Tasklane: pull request not opened: Fix the answer');
    assert.match(filed[0].body, /the pull request could not be made: POST \/repos\/Codertocat\/Hello-World\/pulls: 403 GitHub Actions is not permitted/);
    assert.match(filed[0].body, /Allow GitHub Actions to create and approve pull requests.*TASKLANE_PR_TOKEN/);
    // The patch in the issue is the run's, whole: `git apply` takes it on the default branch.
    const patch = /```diff\n([\s\S]*?)\n```/.exec(filed[0].body)?.[1] ?? '';
    assert.match(patch, /^-exports\.answer = 41;\n\+exports\.answer = 42;$/m);
    execFileSync('git', ['apply', '--check', '-'], { cwd: h.dir, input: `${patch}\n` });
    assert.match(filed[0].body, /<!-- tasklane:chore=team-fix patch=[0-9a-f]{16} -->$/);

    // Said truthfully: under the model's claim, in the status comment and on the run's page.
    assert.match(
      result.apply.out,
      /refused: pull request: GitHub refused it \(.*403.*\); the branch tasklane\/team-fix\/[0-9a-f]{12} it pushed was deleted; the patch is in issue #3 instead/,
    );
    assert.match(result.apply.out, /applied: issue #3 carrying the patch instead of a pull request/);
    assert.match(
      outputComments().at(-1)?.body ?? '',
      /^I opened a draft pull request\.\n\n---\n\*\*Not written by Tasklane:\*\* pull request: GitHub refused it/,
    );
    const status = statusOn(number)[0]?.body ?? '';
    assert.match(status, /\*\*: 1 output\(s\) refused/);
    assert.match(status, /Outputs applied: issue #3 carrying the patch instead of a pull request; comment on #\d+/);
    assert.doesNotMatch(status, /draft pull request #/);

    // The same patch fired again files no second issue.
    const again = await fire('team-fix', 'issue_comment', comment, [edit('app.js', 'answer = 41', 'answer = 42'), fixed]);
    assert.match(again.apply.out, /applied: issue #3 already carries the patch/);
    assert.equal([...h.github.issues.values()].filter((i) => i.number > 2).length, 1);
    assert.deepEqual(tasklaneBranches(), []);
  });

  it('any failure before the pull request also carries the patch in an issue; a patch over the body limit points at the artifact', async () => {
    // The default branch moved on: the patch no longer applies there. Nothing was pushed.
    h.github.files.set('app.js', 'exports.answer = 7;\n');
    const result = await fire('team-fix', 'issue_comment', fixRequest(), [edit('app.js', 'answer = 41', 'answer = 42'), fixed]);
    assert.match(
      result.apply.out,
      /refused: pull request: GitHub refused it \(the patch of app\.js does not apply to the default branch\); the patch is in issue #3 instead/,
    );
    assert.ok(!result.writes.some((w) => w.path.endsWith('/git/refs')), 'no branch was pushed, none deleted');
    assert.match(h.github.issues.get(3)?.body ?? '', /```diff\n/);

    h.github.files.set('app.js', 'exports.answer = 41;\n');
    h.github.refusePulls = { status: 422, message: 'Validation Failed' };
    const big = await fire('team-fix', 'issue_comment', fixRequest(), [edit('app.js', 'answer = 41', `answer = 42;\n// ${'x'.repeat(70_000)}`), fixed]);
    const issue = [...h.github.issues.values()].at(-1);
    assert.equal(issue?.number, 4);
    assert.match(
      issue?.body ?? '',
      /The patch \(\d+ characters\) is over GitHub's limit for an issue: it is tasklane\.patch in the artifact tasklane-team-fix of the run https:\/\/github\.com\/Codertocat\/Hello-World\/actions\/runs\/4242\./,
    );
    assert.ok((issue?.body.length ?? 0) < 65_536);
    assert.match(big.apply.out, /422 Validation Failed\); the branch tasklane\/team-fix\/\w+ it pushed was deleted; the patch is in issue #4 instead\n/);
    assert.deepEqual(tasklaneBranches(), []);
  });

  it('file modes come from the base tree: an executable stays executable, a new file is 100644, a link is left out', async () => {
    const result = await fire('team-fix', 'issue_comment', fixRequest(), [
      edit('bin/run.sh', 'echo 41', 'echo 42'),
      edit('notes.txt', 'draft', 'final'),
      { toolCalls: [{ name: 'create_file', arguments: { path: 'bin/new.js', content: 'module.exports = 1;\n' } }] },
      fixed,
    ]);
    assert.deepEqual(result.manifest.changedFiles.sort(), ['bin/new.js', 'bin/run.sh', 'notes.txt']);
    assert.equal(h.github.pulls.length, 1, result.apply.out);
    const commit = h.github.commits.get(h.github.refs.get(`heads/${h.github.pulls[0].head}`)!)!;
    assert.equal(commit.files.get('bin/run.sh'), '#!/bin/sh\necho 42\n');
    assert.deepEqual(Object.fromEntries(commit.modes), { 'bin/run.sh': '100755', 'notes.txt': '100644', 'bin/new.js': '100644' });

    // A patch naming what is a link on the default branch (the agent's tools do not edit links; a
    // hand-made result might): that file is left out, the rest still becomes the pull request.
    const api = new GithubApi({ baseUrl: h.github.baseUrl, repo: repoName, token: 'write-token' });
    const report = { applied: [] as string[], refused: [] as string[], proposed: 1 };
    const patch = unifiedDiff([
      { path: 'bin/app-link.js', before: '../app.js', after: '../other.js' },
      { path: 'notes.txt', before: 'draft\n', after: 'later\n' },
    ]);
    const chore = { id: 'team-fix', name: 'Fix' } as ChoreDefinition;
    await draftPull({ chore, pr: { title: 'Links', body: 'x' }, patch, declaredPaths: [], api, report });
    assert.deepEqual(report.refused, [
      'pull request: bin/app-link.js is a symbolic link on the default branch, not a file a patch may rewrite; the file is left out of it',
    ]);
    assert.deepEqual(report.applied, ['draft pull request #1002 (notes.txt)']);
  });

  it('a protected path refuses only that file: the rest is the pull request, which names what it left out', async () => {
    const result = await fire('team-fix', 'issue_comment', fixRequest(), [
      edit('app.js', 'answer = 41', 'answer = 42'),
      edit('.github/workflows/ci.yml', 'on: push', 'on: [push]'),
      fixed,
    ]);
    assert.equal(h.github.pulls.length, 1, result.apply.out);
    const pull = h.github.pulls[0];
    const commit = h.github.commits.get(h.github.refs.get(`heads/${pull.head}`)!)!;
    assert.deepEqual([...commit.files.keys()], ['app.js'], 'the workflow is not in the pull request');
    assert.match(result.apply.out, /refused: pull request: \.github\/workflows\/ci\.yml is protected: CI workflows run code.*; the file is left out of it/);
    assert.match(result.apply.out, /applied: draft pull request #1001 \(app\.js\)/);
    assert.match(pull.body, /^Off by one\.\n\n> Left out by Tasklane: \.github\/workflows\/ci\.yml is protected/);
  });

  it('TASKLANE_PR_TOKEN, when set, writes the branch and the pull request so CI starts; without it the pull request says CI will not run', async () => {
    const own = await fire('team-fix', 'issue_comment', fixRequest(), [edit('app.js', 'answer = 41', 'answer = 42'), fixed]);
    assert.equal(h.github.pulls.length, 1, own.apply.out);
    assert.match(h.github.pulls[0].body, /Opened with the workflow's token, so GitHub starts no workflow on this pull request/);
    assert.ok(own.writes.every((w) => w.token === 'write-token'));

    const app = await fire(
      'team-fix',
      'issue_comment',
      fixRequest(),
      [edit('app.js', 'answer = 41', 'answer = 43'), fixed],
      {},
      { TASKLANE_PR_TOKEN: 'app-token' },
    );
    assert.equal(h.github.pulls.length, 2, app.apply.out);
    assert.doesNotMatch(h.github.pulls[1].body, /starts no workflow/);
    const pullWrites = app.writes.filter((w) => w.path.includes('/git/') || w.path.endsWith('/pulls'));
    assert.ok(pullWrites.length >= 5, JSON.stringify(pullWrites.map((w) => w.path)));
    assert.ok(
      pullWrites.every((w) => w.token === 'app-token'),
      'blobs, tree, commit, branch and pull request are written with the pull-request token',
    );
    assert.ok(
      app.writes.filter((w) => !pullWrites.includes(w)).every((w) => w.token === 'write-token'),
      'comments, the status and the ledger keep the workflow token',
    );
    assert.doesNotMatch(app.apply.out + app.apply.err, /app-token/);
  });
});
