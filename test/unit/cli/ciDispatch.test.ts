import * as assert from 'node:assert/strict';
import { matchEvent } from '../../../src/core/chores/githubEvent';
import type { GithubEvent } from '../../../src/core/chores/githubEvent';
import { ciFireSuite, end, repoName } from '../../support/ciFireHarness';
import type { Obj } from '../../support/ciFireHarness';

/** Run workflow (workflow_dispatch) runs any chore by its id, as the generated workflow offers it. */
describe('cli: Run workflow runs any chore by its id', () => {
  const h = ciFireSuite();

  const dispatch = (chore: string, login = 'Codertocat'): Obj => ({
    inputs: { chore },
    ref: 'refs/heads/main',
    workflow: '.github/workflows/tasklane.yml',
    repository: { full_name: repoName },
    sender: { login, type: 'User' },
  });

  it('runs a comment chore by hand: the dispatcher passes its gate and the model runs; outputs needing an item are refused visibly', async () => {
    const byHand = await h.fire('slash-triage', 'workflow_dispatch', dispatch('slash-triage'), [end({ comment: 'Looks like a bug.' })]);
    assert.equal(byHand.manifest.skip, null, byHand.manifest.reason ?? '');
    assert.equal(byHand.modelRequests, 1);
    assert.deepEqual(byHand.manifest.event, { name: 'workflow_dispatch', action: null });
    assert.equal(byHand.manifest.item?.number, null, 'Run workflow names a chore, not an issue');
    assert.match(byHand.apply.out, /comment: the event has no issue or pull request to comment on/);
    assert.deepEqual(h.outputComments(), []);
  });

  it("judges the dispatcher with the chore's own gate: a reader cannot run it by hand", async () => {
    h.github.roles.set('reader', 'read');
    const refused = await h.fire('team-fix', 'workflow_dispatch', dispatch('team-fix', 'reader'), []);
    assert.equal(refused.manifest.skip, 'gate');
    assert.match(refused.manifest.reason ?? '', /reader has the role read/);
    assert.equal(refused.modelRequests, 0);
  });

  it("a dispatch naming another chore is not this chore's fire (the CLI agrees with the job if:)", async () => {
    const other = await h.fire('slash-triage', 'workflow_dispatch', dispatch('team-fix'), []);
    assert.equal(other.manifest.skip, 'event');
    assert.match(other.manifest.reason ?? '', /Run workflow named the chore team-fix; this is slash-triage/);
    assert.equal(other.modelRequests, 0);
  });

  it('matchEvent: every trigger kind fires on a dispatch naming its chore, whatever its filters', () => {
    const ev = (inputs: Obj): GithubEvent => ({ name: 'workflow_dispatch', payload: { inputs, sender: { login: 'a', type: 'User' } } });
    const triggers = [
      { event: 'issues', types: ['labeled'], labels: ['bug'] },
      { event: 'issue_comment', command: 'fix' },
      { event: 'pull_request', branches: ['release/**'] },
      { event: 'workflow_run', workflows: ['CI'], branches: ['main'] },
      { event: 'repository_dispatch', types: ['alert'] },
      { event: 'schedule', cron: '0 2 * * *' },
      { event: 'workflow_dispatch' },
    ] as const;
    for (const trigger of triggers) {
      assert.deepEqual(matchEvent(trigger as never, ev({ chore: 'c' }), 'c'), { fire: true }, trigger.event);
      assert.equal(matchEvent(trigger as never, ev({ chore: 'd' }), 'c').fire, false, trigger.event);
    }
  });
});
