import * as assert from 'node:assert/strict';
import type { ModelServer } from '../../fixtures/modelServer';
import { upgradeActionSets } from '../../../src/core/actions/actionSets';
import { FakeClock } from '../../fakes/fakeClock';
import { gatedActions, offeredTools } from '../support/gatedActions';
import type { GatedActions } from '../support/gatedActions';
import { createHarness, engineHooks } from './harness';
import type { Harness } from './harness';

const EDIT = 'write_file';
const COMMAND = 'run_command';

// What a task started from chat may do (actionSets.ts): files and commands unless the model names
// other sets in task_start; a successor naming no sets inherits its parent's, no more.
describe('engine: action sets of tasks started from chat', () => {
  let server: ModelServer;
  let h: Harness;
  let gated: GatedActions;
  engineHooks('openai', { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h }, async (s) => {
    const clock = new FakeClock();
    gated = gatedActions(clock);
    // One trusted MCP server, as the host would list it.
    return createHarness({
      wire: 'openai',
      server: s,
      clock,
      actions: gated.actions,
      grantableSets: () => [{ name: 'mcp:tracker', about: 'Issues of the team' }],
    });
  });
  afterEach(() => gated.dispose());

  const start = (args: Record<string, unknown>) => ({
    toolCalls: [{ name: 'task_start', arguments: { name: 'Work', instruction: 'Do it', mode: 'simple', ...args } }],
  });
  const ask = { toolCalls: [{ name: 'ask_user', arguments: { question: 'ok?' } }] };

  it('a task started from chat naming no sets may propose edits and ask to run commands', async () => {
    server.script([start({}), ask]);
    await h.agent.sendMessage('please do the work');
    await h.idle();
    const conversationTools = offeredTools(server.requests[0].body);
    assert.ok(!conversationTools.includes(EDIT) && !conversationTools.includes(COMMAND), 'the conversation turn itself cannot edit or run');
    const tools = offeredTools(server.requests[1].body);
    assert.ok(tools.includes(EDIT) && tools.includes(COMMAND) && tools.includes('read_file'), tools.join(', '));
    assert.deepEqual(h.agent.views.snapshot().tasks[0].actionSets, ['task', 'read', 'files', 'commands']);
  });

  it('task_start naming an unknown set starts nothing and tells the model which sets exist', async () => {
    // "mcp:github" has the form of a server's set, but no such server is trusted here.
    server.script([start({ actionSets: ['files', 'shell', 'mcp:github'] }), { text: 'ok' }]);
    await h.agent.sendMessage('please do the work');
    await h.idle();
    assert.deepEqual(h.agent.views.snapshot().tasks, [], 'a task was started with an unknown set');
    const repair = JSON.stringify(server.requests[1].body);
    for (const name of ['shell', 'mcp:github'])
      assert.ok(
        repair.includes(`unknown action set \\"${name}\\": the sets that exist are \\"files\\", \\"commands\\", \\"mcp:tracker\\"`),
        `${name} refused with the real sets: ${repair.slice(0, 2000)}`,
      );
  });

  it('task_start with actionSets [files]: edits only; a successor naming no sets inherits exactly that', async () => {
    server.script([
      start({ actionSets: ['files'] }),
      { toolCalls: [{ name: 'run_command', arguments: { command: 'npm test' } }] },
      // The repair turn (the refused call came back as an error): hand over to a successor.
      {
        toolCalls: [
          { name: 'task_start', arguments: { name: 'Next', instruction: 'Go on', mode: 'simple' } },
          { name: 'task_end', arguments: { summary: 'handed over' } },
        ],
      },
      ask,
    ]);
    await h.agent.sendMessage('please do the work');
    await h.idle();
    const tools = offeredTools(server.requests[1].body);
    assert.ok(tools.includes(EDIT) && !tools.includes(COMMAND), tools.join(', '));
    assert.match(JSON.stringify(server.requests[2].body), /run_command is not available here: it needs the action set \\"commands\\"/);
    assert.deepEqual(gated.commandRequests, [], 'a task without the commands set asked to run a command');
    const [first, successor] = h.agent.views.snapshot().tasks;
    assert.deepEqual(first.actionSets, ['task', 'read', 'files']);
    assert.equal(successor.source, `successor:${first.id}`);
    assert.deepEqual(successor.actionSets, ['task', 'read', 'files'], "the successor did not inherit exactly its parent's sets");
    assert.ok(!offeredTools(server.requests[3].body).includes(COMMAND), 'the successor was offered run_command');
  });
});

describe('engine: tasks stored before action sets were the gate', () => {
  it('a live chat task keeps edits and commands; a chore task keeps exactly its sets; new tasks are untouched', () => {
    assert.deepEqual(upgradeActionSets({ actionSets: ['task', 'read'] }), { actionSets: ['task', 'read', 'files', 'commands'], gatedSets: true });
    const chore = { choreId: 'c', runId: 'r' };
    assert.deepEqual(upgradeActionSets({ actionSets: ['task', 'read'], chore }).actionSets, ['task', 'read']);
    const fresh = { actionSets: ['task', 'read', 'mcp:github'], gatedSets: true as const };
    assert.equal(upgradeActionSets(fresh), fresh);
  });
});
