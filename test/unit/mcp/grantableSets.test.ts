import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import type { McpServerDefinition } from '../../../src/core/mcp/mcpConfig';
import type { McpServers } from '../../../src/core/mcp/mcpServers';
import type { RecordedRequest, ScriptStep } from '../../fixtures/modelServer';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { createHarness } from '../engine/harness';
import type { Harness } from '../engine/harness';

// The reference server from the npm registry, as in mcpServers.test.ts.
const everything = path.resolve(__dirname, '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** The OpenAI-format request as text, and the tools it offers. */
function read(request: RecordedRequest): { text: string; tools: string[] } {
  const body = request.body as { messages: unknown[]; tools?: Array<{ function: { name: string } }> };
  return { text: JSON.stringify(body.messages), tools: (body.tools ?? []).map((t) => t.function.name) };
}

/** The last thing the person said in a conversation request. */
function lastUserText(request: RecordedRequest): string {
  const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return typeof last?.content === 'string' ? last.content : '';
}

/**
 * A model that has never seen Tasklane: it knows only what its request tells it. In a
 * conversation it may name only the `mcp:<name>` sets it finds in the request (the schemas spell
 * the form as "mcp:<server>", which names none), picking the one whose server the person named;
 * in a task it calls an echo tool when one is offered, then ends.
 */
function naiveModel(request: RecordedRequest): ScriptStep {
  const { text, tools } = read(request);
  if (tools.includes('task_start') && tools.includes('ignore')) {
    const seen = [...new Set([...text.matchAll(/mcp:([A-Za-z0-9][A-Za-z0-9_.-]*)/g)].map((m) => m[1]!))];
    const asked = lastUserText(request).toLowerCase();
    const server = seen.find((name) => asked.includes(name.toLowerCase()));
    const actionSets = server ? [`mcp:${server}`] : undefined;
    return {
      toolCalls: [{ name: 'task_start', arguments: { name: 'Echo', instruction: asked, mode: 'simple', ...(actionSets ? { actionSets } : {}) } }],
    };
  }
  if (tools.includes('task_end')) {
    const echo = tools.find((name) => /^mcp_.+_echo$/.test(name));
    if (echo && !text.includes('Echo: hello from a naive model')) return { toolCalls: [{ name: echo, arguments: { message: 'hello from a naive model' } }] };
    return { toolCalls: [{ name: 'task_end', arguments: { summary: echo ? 'echoed' : 'no echo tool was offered' } }] };
  }
  return { text: 'nothing to do' };
}

describe('mcp: the request says which sets exist', function () {
  this.timeout(60_000);
  let model: ModelServer;
  let h: Harness;
  let servers: McpServers;

  before(async () => {
    model = await startModelServer();
  });
  after(async () => model.close());
  afterEach(async () => {
    await h?.close();
    await servers?.stopAll();
  });

  it('a naive model asked to use a trusted server starts a task with its set, and the tool is called', async () => {
    const { servers: definitions } = parseMcpServers(
      {
        servers: {
          everything: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'] },
          // Defined by the repository but never trusted: neither listed nor accepted.
          hidden: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'] },
        },
      },
      'workspace',
    );
    h = await createHarness({
      wire: 'openai',
      server: model,
      commands: {
        runner: { runCommand: () => Promise.reject(new Error('no commands here')), runTask: () => Promise.reject(new Error('no tasks here')) },
        // Allowlisted, so the call runs inside the task's turn without a card.
        gate: { allowedCommands: () => ['mcp:everything/echo'], trusted: () => true },
      },
      // The engine builds the servers and lists their sets (core/engineMcp.ts).
      mcp: {
        definitions: () => definitions,
        trusted: (d: McpServerDefinition) => d.name === 'everything',
        workspaceTrusted: () => true,
        cwd: __dirname,
      },
    });
    servers = h.engine.mcp!.servers;
    // What the host does once the person trusted the server (McpHost.refresh).
    assert.deepEqual(
      (await h.engine.mcp!.offer()).map((a) => a.name).filter((n) => n.startsWith('mcp_everything_echo')),
      ['mcp_everything_echo'],
    );
    // Listed again (a list_changed that changed nothing): nothing new, the prompt's prefix stays.
    assert.deepEqual(await h.engine.mcp!.offer(), []);
    model.respond(naiveModel);

    await h.agent.sendMessage('Please echo a greeting with the echo tool of the everything server.');
    await h.idle();

    const conversation = read(model.requests[0]!).text;
    assert.match(conversation, /Action sets a task can be given/);
    assert.match(conversation, /- mcp:everything: \\"[^"\\]{10,}/, 'the server is listed with its own words');
    assert.doesNotMatch(conversation, /mcp:hidden/, 'an untrusted server is not listed');
    const task = h.agent.views.snapshot().tasks[0];
    assert.ok(task, 'a task was started');
    assert.deepEqual(task.actionSets, ['task', 'read', 'mcp:everything']);
    assert.ok(
      model.requests.some((r) => read(r).text.includes('Echo: hello from a naive model')),
      'the echo tool was called and its result reached the task',
    );
    assert.equal(h.agent.views.snapshot().tasks[0]?.status, 'completed');
  });
});
