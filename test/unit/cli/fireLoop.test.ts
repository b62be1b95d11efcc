/**
 * No fire loop (issue 38, src/cli/fireLoop.ts): a chore that pushes to the pull request it runs on
 * (`outputs.pushToPullRequest`, pushed with TASKLANE_PR_TOKEN so CI starts) gets the
 * `pull_request: synchronize` its own push sends. The recorded synchronize payload of
 * `@octokit/webhooks-examples` (pull request #2 of Codertocat/Hello-World, branch `changes`) drives
 * both jobs against the fake GitHub: a person's push fires the chore, which pushes a commit with
 * Tasklane's trailer; GitHub's synchronize for that commit is skipped before any model call,
 * recorded in the ledger and told on the pull request; the next push by a person fires again.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pushedBy, pushedTrailer } from '../../../src/cli/fireLoop';
import { ciFireSuite, end, headSha } from '../../support/ciFireHarness';
import type { Obj } from '../../support/ciFireHarness';
import type { ScriptStep } from '../../fixtures/modelServer';
import { webhookExample } from '../../support/webhookExamples';

const AUTOFIX = `  - id: pr-autofix
    name: Fix each push of a pull request
    trigger:
      github: { event: pull_request, types: [opened], synchronize: true }
    prompt: Fix what this push of the pull request broke.
    actionSets: [files]
    outputs:
      pushToPullRequest: {}
`;

describe('cli: a chore that pushes to its pull request does not fire again on its own push', function () {
  this.timeout(120_000);
  const h = ciFireSuite();
  const { fire, statusOn } = h;
  before(() => fs.appendFileSync(path.join(h.dir, '.tasklane/chores.yaml'), AUTOFIX));

  /** The recorded synchronize, its head moved to `sha`; the fake GitHub holds pull request #2 at that head. */
  function pushed(sha: string, message: string): Obj {
    const payload = webhookExample('pull_request', (e) => e.action === 'synchronize') as Obj;
    const branch = payload.pull_request.head.ref as string;
    h.github.commits.set(sha, { tree: 'tree-base', parents: [headSha], message, files: new Map(), modes: new Map() });
    h.github.refs.set(`heads/${branch}`, sha);
    h.github.openPulls.set(payload.number as number, { ref: branch, sha, repo: payload.repository.full_name as string });
    payload.after = sha;
    payload.pull_request.head.sha = sha;
    return payload;
  }
  const fixApp: ScriptStep = {
    toolCalls: [{ name: 'replace_in_file', arguments: { path: 'app.js', edits: [{ oldText: 'answer = 41', newText: 'answer = 42' }] } }],
  };
  const push = end({ pushToPullRequest: { message: 'Fix the answer' } });
  const ledger = () => h.github.checkRuns.filter((c) => c.name === 'Tasklane ledger · pr-autofix').map((c) => JSON.parse(String(c.external_id)) as Obj);

  it("a person's push fires it; the synchronize of its own commit is skipped, recorded and told; the next person's push fires again", async () => {
    const example = webhookExample('pull_request', (e) => e.action === 'synchronize') as Obj;
    const personSha = example.after as string;
    const first = await fire('pr-autofix', 'pull_request', pushed(personSha, 'A change by a person'), [fixApp, push], {}, { TASKLANE_PR_TOKEN: 'app-token' });
    assert.equal(first.manifest.skip, null, first.manifest.reason ?? '');
    assert.equal(first.apply.code, 0, first.apply.out);
    const ours = h.github.refs.get(`heads/${example.pull_request.head.ref as string}`)!;
    assert.notEqual(ours, personSha, 'the chore pushed');
    const commit = h.github.commits.get(ours)!;
    assert.match(commit.message, /^Fix the answer\n\nProposed by the Tasklane chore pr-autofix\.\n\nTasklane-Chore: pr-autofix$/);
    assert.ok(
      first.writes.some(
        (w) => w.method === 'PATCH' && w.path.endsWith(`/git/refs/heads/${example.pull_request.head.ref as string}`) && w.token === 'app-token',
      ),
    );

    // GitHub sends the synchronize of that push (TASKLANE_PR_TOKEN's pushes start workflows).
    const echo = await fire('pr-autofix', 'pull_request', pushed(ours, commit.message), [fixApp, push], {}, { TASKLANE_PR_TOKEN: 'app-token' });
    assert.equal(echo.manifest.skip, 'loop');
    assert.match(echo.manifest.reason ?? '', new RegExp(`new head ${ours.slice(0, 12)} is Tasklane's own commit \\(pushed by chore pr-autofix\\)`));
    assert.equal(echo.modelRequests, 0, 'skipped before any model call');
    assert.ok(
      h.github.requests.some((r) => r.method === 'GET' && r.path.endsWith(`/git/commits/${ours}`) && r.token === 'gate-token'),
      'the head was read with the read-only gate token',
    );
    assert.equal(h.github.refs.get(`heads/${example.pull_request.head.ref as string}`), ours, 'nothing pushed again');
    assert.deepEqual(
      ledger().map((r) => r.stopped ?? 'fired'),
      ['fired', 'loop'],
      'the ledger records the skipped fire, counted as no fire',
    );
    assert.match(statusOn(2, 'pr-autofix')[0]?.body ?? '', /Skipped: the push is Tasklane's own, a fire on it could loop/);

    // A person pushes on top: that push fires the chore as usual.
    const again = await fire('pr-autofix', 'pull_request', pushed('d'.repeat(40), 'Another change by a person'), [end({})]);
    assert.equal(again.manifest.skip, null, again.manifest.reason ?? '');
    assert.ok(again.modelRequests > 0);
  });

  it("a chore that does not push still fires on Tasklane's commit; a head that cannot be read skips a pushing chore", async () => {
    const ours = 'e'.repeat(40);
    const review = await fire('pr-review', 'pull_request', pushed(ours, `Fix\n\n${pushedTrailer('pr-autofix')}`), [end({})]);
    assert.notEqual(review.manifest.skip, 'loop');
    assert.ok(review.modelRequests > 0, "a reviewer reviews the bot commit once, as anyone else's");

    const unknown = pushed('f'.repeat(40), 'x');
    h.github.commits.delete('f'.repeat(40));
    const blind = await fire('pr-autofix', 'pull_request', unknown, [end({})]);
    assert.equal(blind.manifest.skip, 'loop');
    assert.match(blind.manifest.reason ?? '', /cannot tell whether the pull request's new head is Tasklane's own push \(GitHub refused to show f{12}/);
    assert.equal(blind.modelRequests, 0);
  });

  it('reads the trailer only as the last paragraph of the message', () => {
    assert.equal(pushedBy(`Fix\n\nProposed by the Tasklane chore a.\n\n${pushedTrailer('a-b')}\n`), 'a-b');
    assert.equal(pushedBy('Fix\n\nTasklane-Chore: a\n\nMore text after it'), undefined);
    assert.equal(pushedBy('A person quoting "Tasklane-Chore: a" in a line'), undefined);
  });
});
