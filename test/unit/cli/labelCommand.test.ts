import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { githubWorkflow } from '../../../src/cli/githubWorkflow';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { ciFireSuite, end } from '../../support/ciFireHarness';
import type { Obj } from '../../support/ciFireHarness';
import { githubChore } from '../../support/ciChores';
import { TEST_CLI } from '../../support/ciRepo';
import { webhookExample, writeEvent } from '../../support/webhookExamples';
import { WorkflowRunner } from '../../support/workflowRunner';

/** A label that is a command (as gh-aw's): applying it fires the chore once, and the workflow removes it. */
describe('cli: a label command fires once and is removed so it can be applied again', function () {
  this.timeout(60_000);
  const h = ciFireSuite();

  /** A real `issues.labeled` payload, the label named `label`, applied by `login`. */
  const labeled = (label: string, login = 'Codertocat'): Obj => {
    const p = webhookExample('issues', (e) => e.action === 'labeled') as Obj;
    p.label.name = label;
    p.issue.labels.push({ ...p.label });
    p.sender.login = login;
    return p;
  };
  /** The status job of the fire (`chores status`), with its own token, as the workflow runs it beside the agent job. */
  const statusJob = (payload: Obj) =>
    h.cli(['chores', 'status', '--chore', 'label-fix'], { ...h.baseEnv('issues', writeEvent(h.tmp, 'issues', payload)), GITHUB_TOKEN: 'status-token' });
  const labelsOf1 = () => h.github.issues.get(1)?.labels ?? [];

  it('applying it fires the chore and the status job removes it; applied again, it fires again', async () => {
    for (const round of [1, 2]) {
      h.github.issues.get(1)!.labels.push('bug', 'tasklane-fix');
      const status = await statusJob(labeled('tasklane-fix'));
      assert.equal(status.code, 0, status.err);
      assert.match(status.out, /removed the label command "tasklane-fix" on #1/);
      assert.deepEqual(
        labelsOf1().filter((l) => l === 'tasklane-fix'),
        [],
        `round ${round}: removed`,
      );
      assert.ok(labelsOf1().includes('bug'), 'other labels stay');
      const deletes = h.github.requests.filter((r) => r.method === 'DELETE');
      assert.equal(deletes.at(-1)?.path, '/repos/Codertocat/Hello-World/issues/1/labels/tasklane-fix');
      const fired = await h.fire('label-fix', 'issues', labeled('tasklane-fix'), [end({ comment: `Fix ${round}.` })]);
      assert.equal(fired.manifest.skip, null, fired.manifest.reason ?? '');
      assert.equal(fired.modelRequests, 1, `round ${round} ran the model`);
    }
    assert.deepEqual(
      h.outputComments().map((c) => c.body.split('\n')[0]),
      ['Fix 2.'],
      'the comment is updated in place on the second fire',
    );
  });

  it('another label, or the label already on the item when another is added, does not fire it and is not removed', async () => {
    h.github.issues.get(1)!.labels.push('tasklane-fix');
    const other = labeled('bug');
    const status = await statusJob(other);
    assert.match(status.out, /no started status: the event is not a fire of this chore/);
    assert.ok(labelsOf1().includes('tasklane-fix'));
    const skipped = await h.fire('label-fix', 'issues', other, []);
    assert.equal(skipped.manifest.skip, 'event');
    assert.match(skipped.manifest.reason ?? '', /the label tasklane-fix was not applied/);
    assert.equal(skipped.modelRequests, 0);
  });

  it('the labeler decides: one the gate refuses (a triager) runs nothing, and the label is removed all the same', async () => {
    h.github.roles.set('triager', 'triage');
    h.github.issues.get(1)!.labels.push('tasklane-fix');
    const status = await statusJob(labeled('tasklane-fix', 'triager'));
    assert.match(status.out, /removed the label command/);
    assert.match(status.out, /no started status: the actor gate refuses the fire/);
    assert.ok(!labelsOf1().includes('tasklane-fix'));
    const refused = await h.fire('label-fix', 'issues', labeled('tasklane-fix', 'triager'), []);
    assert.equal(refused.manifest.skip, 'gate');
    assert.match(refused.manifest.reason ?? '', /triager has the role triage/);
    assert.equal(refused.modelRequests, 0);
  });

  it('the generated job runs on that label only (any case, as GitHub compares), and the schema refuses what contradicts it', () => {
    const chore = githubChore('label-fix', { event: 'issues', types: ['labeled'], labelCommand: 'tasklane-fix' }, { comment: { max: 1 } });
    const text = githubWorkflow([chore], { hashOf: () => 'ab'.repeat(32), cli: TEST_CLI });
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-label-'));
    const jobs = (label: string, action = 'labeled') =>
      new WorkflowRunner({
        workflow: text,
        eventName: 'issues',
        event: { action, label: { name: label }, issue: { number: 1 } },
        repo: workDir,
        workDir,
        cli: ['false'],
      }).selectedJobs();
    try {
      assert.deepEqual(jobs('tasklane-fix'), ['chore-label-fix', 'status-label-fix']);
      assert.deepEqual(jobs('Tasklane-Fix'), ['chore-label-fix', 'status-label-fix']);
      assert.deepEqual(jobs('bug'), []);
      assert.deepEqual(jobs('tasklane-fix', 'opened'), []);
    } finally {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
    const problems = (github: string) =>
      parseChoresFile(`chores:\n  - id: c\n    name: C\n    trigger:\n      github: ${github}\n    prompt: p\n`)
        .diagnostics.filter((d) => d.severity === 'error')
        .map((d) => d.message)
        .join('\n');
    assert.equal(problems('{ event: issues, labelCommand: tasklane-fix }'), '');
    const parsed = parseChoresFile('chores:\n  - id: c\n    name: C\n    trigger:\n      github: { event: pull_request, labelCommand: fix }\n    prompt: p\n');
    assert.deepEqual(parsed.chores[0]?.trigger, { kind: 'github', github: { event: 'pull_request', types: ['labeled'], labelCommand: 'fix', forks: 'skip' } });
    assert.match(problems('{ event: issues, labelCommand: fix, labels: [bug] }'), /labels cannot go with labelCommand/);
    assert.match(problems('{ event: issues, labelCommand: fix, types: [opened] }'), /labelCommand fires on labeled only/);
    assert.match(problems(`{ event: issues, labelCommand: "it's" }`), /labelCommand must be a label name/);
    assert.match(problems('{ event: pull_request, labelCommand: fix, forks: read-only }'), /cannot go with forks: read-only/);
    assert.match(problems('{ event: issue_comment, command: fix, labelCommand: fix }'), /labelCommand only applies to issues or pull_request/);
  });
});
