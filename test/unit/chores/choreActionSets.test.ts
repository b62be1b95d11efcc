import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ModelServer } from '../../fixtures/modelServer';
import { gatedActions, offeredTools } from '../support/gatedActions';
import type { GatedActions } from '../support/gatedActions';
import { choresFrom, useRunnerHarness } from './runnerHarness';
import type { RunnerHarness } from './runnerHarness';
import { FakeClock } from '../../fakes/fakeClock';

const chore = (actionSets: string) => `chores:
  - id: gated
    name: Gated chore
    trigger: { files: ["src/**"] }
    prompt: Tidy the repo.
    actionSets: ${actionSets}
`;

const EDIT_TOOLS = ['create_file', 'delete_file', 'rename_file', 'replace_in_file', 'write_file'];
const COMMAND_TOOLS = ['run_command', 'run_task'];

// A chore's action sets are the real gate: with `actionSets: []` the task is offered no edit or
// command tool, and naming one anyway is refused without a proposal or a command request.
describe('chores: action sets are the gate for edits and commands', function () {
  this.timeout(20_000);
  let server: ModelServer;
  let gated: GatedActions | undefined;
  const openHarness = useRunnerHarness((s) => (server = s));
  afterEach(() => {
    gated?.dispose();
    gated = undefined;
  });

  async function open(actionSets: string): Promise<{ h: RunnerHarness; gated: GatedActions }> {
    const previous = gated;
    gated = gatedActions(new FakeClock());
    const h = await openHarness(choresFrom(chore(actionSets)), {}, { actions: gated.actions });
    previous?.dispose(); // after the harness that used it was closed
    return { h, gated };
  }

  it('actionSets: [] offers no edit or command tool, and calling them is refused', async () => {
    const { h, gated } = await open('[]');
    server.script([
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'README.md', content: 'rewritten by a chore\n' } },
          { name: 'run_command', arguments: { command: 'rm -rf build' } },
        ],
      },
      { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'could not edit' } }] },
    ]);
    await h.runner.fire('gated', 'manual');
    await h.ended('gated');
    const tools = offeredTools(server.requests[0].body);
    assert.ok(tools.includes('read_file') && tools.includes('task_end'), `reading and steering are always offered: ${tools.join(', ')}`);
    for (const name of [...EDIT_TOOLS, ...COMMAND_TOOLS]) assert.ok(!tools.includes(name), `${name} was offered to a chore with actionSets: []`);
    // Both calls came back as errors the model can act on (the repair turn is the second request).
    const told = JSON.stringify(server.requests[1].body);
    assert.match(told, /write_file is not available here: it needs the action set \\"files\\"/);
    assert.match(told, /run_command is not available here: it needs the action set \\"commands\\"/);
    assert.deepEqual(await gated.store.list(), [], 'a proposal was made');
    assert.deepEqual(gated.commandRequests, [], 'a command was requested');
    assert.equal(fs.readFileSync(path.join(gated.root, 'README.md'), 'utf8'), '# Demo\n');
    assert.deepEqual(h.agent.views.snapshot().tasks[0].actionSets, ['task', 'read']);
  });

  it('actionSets: [files] offers edits but not commands; [files, commands] offers both', async () => {
    const { h, gated } = await open('[files]');
    server.script([{ toolCalls: [{ name: 'write_file', arguments: { path: 'README.md', content: 'proposed\n' } }] }]);
    await h.runner.fire('gated', 'manual');
    await h.idle();
    const tools = offeredTools(server.requests[0].body);
    for (const name of EDIT_TOOLS) assert.ok(tools.includes(name), `${name} is missing: ${tools.join(', ')}`);
    for (const name of COMMAND_TOOLS) assert.ok(!tools.includes(name), `${name} was offered without the commands set`);
    assert.equal((await gated.store.list()).length, 1, 'the edit should have been proposed');

    const both = await open('[files, commands]');
    server.reset();
    server.script([{ toolCalls: [{ name: 'run_command', arguments: { command: 'npm test' } }] }]);
    await both.h.runner.fire('gated', 'manual');
    await both.h.idle();
    const all = offeredTools(server.requests[0].body);
    for (const name of [...EDIT_TOOLS, ...COMMAND_TOOLS]) assert.ok(all.includes(name), `${name} is missing: ${all.join(', ')}`);
    assert.deepEqual(both.gated.commandRequests, ['npm test']);
  });
});
