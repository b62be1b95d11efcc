/**
 * A CI run paused at its budget is continued by a maintainer's `/tasklane continue` (issue 43):
 * the paused fire keeps its store in its artifact and the apply job binds it to the run in the
 * fire ledger; the re-fire, given that store (the workflow's download of the paused run's
 * artifact), continues the same task from the step it reached. An outsider's continue and an
 * edited store are refused visibly, before any model call.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { STORE_FOLDER } from '../../../src/cli/ciResume';
import { ledgerCheckName } from '../../../src/cli/fireLedger';
import { ciFireSuite, fixRequest } from '../../support/ciFireHarness';
import type { Obj } from '../../support/ciFireHarness';
import type { ScriptStep } from '../../fixtures/modelServer';
import { writeEvent } from '../../support/webhookExamples';

const edit: ScriptStep = {
  toolCalls: [{ name: 'replace_in_file', arguments: { path: 'app.js', edits: [{ oldText: 'answer = 41', newText: 'answer = 42' }] } }],
};
const read: ScriptStep = { toolCalls: [{ name: 'read_file', arguments: { path: 'check.js' } }] };
const done: ScriptStep = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'fixed', output: {} } }] };

describe('cli: /tasklane continue resumes a CI run paused at budget from its kept store', function () {
  this.timeout(120_000);
  const h = ciFireSuite();

  const continueOn = (issue: number, login: string): Obj => {
    const p = fixRequest();
    p.comment.body = '/tasklane continue';
    p.comment.user.login = login;
    p.sender.login = login;
    p.issue.number = issue;
    return p;
  };

  /** The paused fire, and its store as the re-fire's download step would leave it. */
  async function paused(): Promise<{ store: string; hash: string; number: number }> {
    const first = await h.fire('tight-fix', 'issues', h.issueOpened(), [edit, read, read]);
    assert.equal(first.manifest.status, 'budget_exhausted', first.run.err);
    const hash = first.manifest.paused?.storeHash ?? '';
    assert.match(hash, /^[0-9a-f]{64}$/, 'the paused run records its store hash');
    assert.ok(fs.existsSync(path.join(first.out, STORE_FOLDER)), 'its store is kept in the artifact folder');
    const record = h.github.checkRuns.find((c) => c.name === ledgerCheckName('tight-fix'));
    assert.deepEqual(JSON.parse(String(record?.external_id)).paused, ['4242', hash], 'the ledger binds the run to its store');
    const number = first.manifest.item?.number ?? 0;
    assert.match(h.statusOn(number, 'tight-fix')[0]?.body ?? '', /store hash [0-9a-f]{12}…, recorded in the fire ledger/);
    const store = fs.mkdtempSync(path.join(h.tmp, 'download-'));
    fs.cpSync(path.join(first.out, STORE_FOLDER), store, { recursive: true });
    return { store, hash, number };
  }

  it("a maintainer's continue runs the same task on from its step: the next request carries the earlier steps, none re-done", async () => {
    const { store, number } = await paused();
    const second = await h.fire('tight-fix', 'issue_comment', continueOn(number, 'Codertocat'), [done], {}, {}, ['--resume', store]);
    assert.equal(second.run.code, 0, second.run.err);
    assert.equal(second.modelRequests, 1, 'one model call: the task_end');
    assert.match(second.firstRequest, /replace_in_file/);
    assert.match(second.firstRequest, /answer = 42/);
    assert.match(second.firstRequest, /read_file/);
    assert.equal(second.manifest.status, 'succeeded', second.manifest.reason ?? '');
    assert.equal(second.manifest.paused, null);
    assert.equal(second.manifest.usage.iterations, 3, 'two steps before the pause, one after: none re-done');
    assert.deepEqual(second.manifest.changedFiles, ['app.js'], 'the edits so far came back with the store');
    assert.ok(!fs.existsSync(path.join(second.out, STORE_FOLDER)), 'a run that ends keeps no store');
    const status = h.statusOn(number, 'tight-fix');
    assert.equal(status.length, 1, 'the one status comment, edited in place');
    assert.doesNotMatch(status[0]?.body ?? '', /Paused at budget/);
    assert.match(status[0]?.body ?? '', /- Status: succeeded/);
  });

  it('a continued run that reaches its raised budget parks again, its new store bound in a new record', async () => {
    const { store, hash, number } = await paused();
    const second = await h.fire('tight-fix', 'issue_comment', continueOn(number, 'Codertocat'), [read, read, read], {}, {}, ['--resume', store]);
    assert.equal(second.modelRequests, 2, "another budget of the chore's size: two more model calls, not unbounded");
    assert.equal(second.manifest.usage.iterations, 4);
    const again = second.manifest.paused?.storeHash ?? '';
    assert.match(again, /^[0-9a-f]{64}$/);
    assert.notEqual(again, hash);
    assert.ok(fs.existsSync(path.join(second.out, STORE_FOLDER)), 'its store is in its own artifact');
    const records = h.github.checkRuns.filter((c) => c.name === ledgerCheckName('tight-fix'));
    assert.deepEqual(JSON.parse(String(records.at(-1)?.external_id)).paused, ['4242', again]);
  });

  it("an outsider's continue is refused by the actor gate, visibly, with no model call", async () => {
    const { store, number } = await paused();
    h.github.roles.set('mallory', 'read');
    const refused = await h.fire('tight-fix', 'issue_comment', continueOn(number, 'mallory'), [done], {}, {}, ['--resume', store]);
    assert.equal(refused.modelRequests, 0);
    assert.equal(refused.manifest.skip, 'gate');
    assert.match(refused.manifest.reason ?? '', /mallory has the role read/);
    assert.match(h.statusOn(number, 'tight-fix')[0]?.body ?? '', /Skipped: the actor gate refused this fire/);
  });

  it('an edited store is refused before any model call; the untouched one still continues afterwards', async () => {
    const { store, number } = await paused();
    const tampered = fs.mkdtempSync(path.join(h.tmp, 'tampered-'));
    fs.cpSync(store, tampered, { recursive: true });
    fs.writeFileSync(path.join(tampered, 'overlay.json'), JSON.stringify({ 'app.js': 'exports.answer = 42; /* planted */\n' }));
    const refused = await h.fire('tight-fix', 'issue_comment', continueOn(number, 'Codertocat'), [done], {}, {}, ['--resume', tampered]);
    assert.equal(refused.modelRequests, 0);
    assert.equal(refused.manifest.skip, 'resume');
    assert.match(refused.manifest.reason ?? '', /does not match what run 4242 recorded when it paused/);
    assert.match(h.statusOn(number, 'tight-fix')[0]?.body ?? '', /Not continued: the store given does not match/);

    const second = await h.fire('tight-fix', 'issue_comment', continueOn(number, 'Codertocat'), [done], {}, {}, ['--resume', store]);
    assert.equal(second.manifest.status, 'succeeded', second.manifest.reason ?? second.run.err);
  });

  it('a continue on an item with no paused run of the chore is no fire of it', async () => {
    const none = await h.fire('tight-fix', 'issue_comment', continueOn(2, 'Codertocat'), [done], {}, {}, ['--resume', h.tmp]);
    assert.equal(none.modelRequests, 0);
    assert.equal(none.manifest.skip, 'event');
    assert.equal(h.statusOn(2, 'tight-fix').length, 0, 'no status comment for a chore that was not paused there');
  });

  /** `chores paused` as the generated workflow's step runs it: the comment's event, the job's read-only token. */
  const pausedId = (eventName: string, payload: Obj, env: Record<string, string> = { TASKLANE_GATE_TOKEN: 'gate-token' }) =>
    h.cli(['chores', 'paused', '--chore', 'tight-fix'], { ...h.baseEnv(eventName, writeEvent(h.tmp, eventName, payload)), ...env });

  it("chores paused prints the paused run's id for the continue comment on its item, nothing elsewhere", async () => {
    const { store, number } = await paused();
    assert.deepEqual(await pausedId('issue_comment', continueOn(number, 'Codertocat')), { code: 0, out: '4242\n', err: '' });
    // Another item, another command, another event: nothing to continue, and no failure.
    assert.deepEqual(await pausedId('issue_comment', continueOn(2, 'Codertocat')), { code: 0, out: '', err: '' });
    const other = continueOn(number, 'Codertocat');
    other.comment.body = '/tasklane fix';
    assert.deepEqual(await pausedId('issue_comment', other), { code: 0, out: '', err: '' });
    assert.deepEqual(await pausedId('issues', h.issueOpened()), { code: 0, out: '', err: '' });
    // A ledger it cannot read is an error in the job log, never "nothing paused".
    const unread = await pausedId('issue_comment', continueOn(number, 'Codertocat'), {});
    assert.equal(unread.code, 1);
    assert.equal(unread.out, '');
    assert.match(unread.err, /cannot find the paused run to continue: the fire ledger cannot be read/);
    // Once a continue finished, the item's latest fire is no longer paused.
    const second = await h.fire('tight-fix', 'issue_comment', continueOn(number, 'Codertocat'), [done], {}, {}, ['--resume', store]);
    assert.equal(second.manifest.status, 'succeeded', second.manifest.reason ?? second.run.err);
    assert.deepEqual(await pausedId('issue_comment', continueOn(number, 'Codertocat')), { code: 0, out: '', err: '' });
  });
});
