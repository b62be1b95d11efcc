import * as assert from 'node:assert/strict';
import { fireTitle } from '../../../src/core/chores/choreStartSpec';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from './runnerHarness';

// The ux review (2026-12c, `71-chore-session.png`): a chore's conversation opened with the
// instruction written for the model ("Finish with task_end…", "This run is unattended…") and was
// listed in History by a name that did not say what fired it.
const chores = `chores:
  - id: tidy
    name: Tidy the repo
    trigger: { files: ["src/**"] }
    prompt: 'Remove unused imports. Finish with task_end and output {"status": "done"}.'
    successWhen: "status = 'done'"
`;

describe('a chore run is titled by its chore and trigger, not its prompt', function () {
  this.timeout(20_000);
  let server: ModelServer;
  const open = useRunnerHarness((s) => (server = s));

  it('History and the thread name the chore and what fired it; the thread does not open with the prompt', async () => {
    const h = await open(choresFrom(chores));
    server.script([{ toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output: { status: 'done' } } }] }]);
    await h.runner.fire('tidy', 'manual');
    assert.equal((await h.ended('tidy')).status, 'succeeded');
    const snapshot = h.agent.views.snapshot();
    const task = snapshot.tasks.find((t) => t.source === 'chore:tidy');
    assert.ok(task);
    assert.equal(task.name, 'Tidy the repo (chore: run by hand)');
    // History lists sessions by their name (history.ts sessionHit).
    assert.equal(snapshot.sessions.find((s) => s.id === task.sessionId)?.name, 'Tidy the repo (chore: run by hand)');
    const messages = await h.agent.views.sessionMessages(task.sessionId);
    assert.equal(messages[0]?.text, 'Chore run started: Tidy the repo (chore: run by hand).');
    for (const m of messages) assert.doesNotMatch(m.text, /Remove unused imports|unattended|Finish with task_end/, `written for the model: ${m.text}`);
    // The model was still told its prompt.
    assert.match(JSON.stringify(server.requests[0]?.body), /Remove unused imports/);
  });

  it('each cause and trigger reads as a few words', () => {
    const at = '2026-12-06T02:00:00.000Z';
    assert.equal(fireTitle('cron', at), 'scheduled 2026-12-06 02:00 UTC');
    assert.equal(fireTitle('retry', at), 'retry of 2026-12-06 02:00 UTC');
    assert.equal(fireTitle('manual', at), 'run by hand');
    const change = { path: 'src/a.ts', change: 'changed' as const };
    assert.equal(fireTitle('files', at, { kind: 'files', changes: [change, { ...change, path: 'src/b.ts' }], events: 3 }), '2 files changed');
    assert.equal(fireTitle('task', at, { kind: 'task', name: 'build', exitCode: 2 }), 'task build exited 2');
    assert.equal(fireTitle('task', at, { kind: 'task', name: 'build', exitCode: undefined }), 'task build was terminated');
  });
});
