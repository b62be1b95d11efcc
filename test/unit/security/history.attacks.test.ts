import * as assert from 'node:assert/strict';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from '../chores/runnerHarness';
import { attack } from './attackTally';

// Review 2026-12c finding 13: `search_history` gave a repository's chore the person's own task and
// chat history. Through the real engine, runner and scripted model: the person talks about
// something, then a chore's run searches for it, and finds only what its own earlier runs did.
describe("security: a chore's search_history sees only its own runs (review 2026-12c finding 13)", function () {
  this.timeout(30_000);
  let server: ModelServer;
  const open = useRunnerHarness((s) => (server = s));
  const chores = choresFrom('chores:\n  - id: nightly\n    name: Nightly\n    trigger: { cron: "0 3 * * *" }\n    prompt: Check the build.\n');
  const searched = (index: number) => JSON.stringify(server.requests[index]!.body);

  it("the person's conversation and tasks are not found; the chore's own earlier run is", async () => {
    const h = await open(chores);
    server.script([{ text: 'Noted: the zeppelin account PIN is 4711.' }]);
    await h.agent.sendMessage('Remember my zeppelin account PIN is 4711');
    await h.idle();
    server.script([
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Zeppelin taxes', instruction: 'File the zeppelin taxes', mode: 'simple' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'zeppelin taxes filed' } }] },
    ]);
    await h.agent.sendMessage('file the zeppelin taxes');
    await h.idle();

    // First run: searches, then ends with a summary of its own that mentions the word.
    let before = server.requests.length;
    server.script([
      { toolCalls: [{ name: 'search_history', arguments: { query: 'zeppelin' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'checked the zeppelin build', output: {} } }] },
    ]);
    await h.runner.fire('nightly', 'manual');
    assert.equal((await h.ended('nightly')).status, 'succeeded');
    await attack('history scope', () => {
      const result = searched(before + 1);
      assert.doesNotMatch(result, /4711|Zeppelin taxes|zeppelin taxes filed/, result);
      assert.match(result, /nothing in the earlier runs of the chore nightly mentions/);
    });

    // Second run, a minute later (one fire per chore and time): its own earlier run is there to recall.
    await h.idle();
    await h.clock.advance(60_000);
    before = server.requests.length;
    server.script([
      { toolCalls: [{ name: 'search_history', arguments: { query: 'zeppelin' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'done', output: {} } }] },
    ]);
    await h.runner.fire('nightly', 'manual');
    await h.idle();
    assert.equal(h.runLog.history('nightly').length, 2, 'the second run ran');
    assert.equal(server.requests.length, before + 2);
    const result = searched(before + 1);
    assert.match(result, /checked the zeppelin build/);
    assert.doesNotMatch(result, /4711|Zeppelin taxes/);
  });
});
