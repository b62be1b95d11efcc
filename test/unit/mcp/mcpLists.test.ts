import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import type { McpServerDefinition } from '../../../src/core/mcp/mcpConfig';
import { McpServers } from '../../../src/core/mcp/mcpServers';
import type { ActionDef } from '../../../src/core/actions/types';
import type { CommandService } from '../../../src/core/approval/commands/commandService';
import { systemClock } from '../../../src/core/ports';
import { MemoryLogger } from '../../fakes/memoryLogger';

const root = path.resolve(__dirname, '../../..');
const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const paging = path.join(root, 'test/fixtures/pagingMcpServer.mjs');

function define(servers: Record<string, unknown>): McpServerDefinition[] {
  const parsed = parseMcpServers({ servers }, 'user');
  assert.deepEqual(parsed.problems, []);
  return parsed.servers;
}

/** The command service answering yes at once: the call runs as an approved one does. */
function approving(servers: McpServers, progress: string[] = []): Pick<CommandService, 'request'> {
  return {
    async request(spec) {
      const [server, ...tool] = spec.command.split('/');
      const ran = await servers.call(server!, tool.join('/'), JSON.parse(spec.input ?? '{}') as Record<string, unknown>, {
        timeoutMs: 20_000,
        onProgress: (note) => progress.push(note),
      });
      return { ran };
    },
  };
}

const names = (actions: ActionDef[]) => actions.map((a) => a.name).sort();

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** server-everything on `transport`, once it says it listens. */
async function startEverything(transport: 'sse' | 'streamableHttp'): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [everything, transport], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (/running on port|listening on port/i.test(seen)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`server-everything exited ${code}: ${seen}`)));
  });
  return { port, child };
}

describe('mcp: whole lists, list_changed, progress, tasks and SSE', function () {
  this.timeout(60_000);
  let servers: McpServers | undefined;
  const children: ChildProcess[] = [];

  afterEach(async () => {
    await servers?.stopAll();
    servers = undefined;
    for (const child of children.splice(0)) child.kill();
  });

  function open(definitions: McpServerDefinition[], logger = new MemoryLogger(), onToolsChanged?: (server: string) => void): McpServers {
    servers = new McpServers({
      definitions: () => definitions,
      trusted: () => true,
      workspaceTrusted: () => true,
      cwd: root,
      clock: systemClock,
      logger,
      ...(onToolsChanged ? { onToolsChanged } : {}),
    });
    return servers;
  }

  it('reads every page of tools/list, and a list_changed mid-task brings the new tool without a restart', async () => {
    const changed: string[] = [];
    let told: () => void = () => undefined;
    const s = open(define({ pages: { type: 'stdio', command: process.execPath, args: [paging] } }), new MemoryLogger(), (server) => {
      changed.push(server);
      told();
    });
    const service = approving(s);
    const first = await s.actions(service);
    // 9 tools in pages of 3: all of them, not the first 3.
    assert.deepEqual(names(first), ['mcp_pages_add_tool', 'mcp_pages_slow', ...Array.from({ length: 7 }, (_, i) => `mcp_pages_tool_${i + 1}`)].sort());
    // The same list asked again: the same actions, nothing re-listed (the prompt's prefix stays).
    assert.deepEqual(names(await s.actions(service)), names(first));
    assert.deepEqual(changed, []);

    const notified = new Promise<void>((resolve) => (told = resolve));
    const add = first.find((a) => a.name === 'mcp_pages_add_tool')!;
    const ctx = { taskId: 't1', sessionId: 't1', turn: { needsApproval: () => undefined } } as never;
    assert.match(String(await add.run({}, ctx)), /added late_tool/);
    await notified;
    assert.deepEqual(changed, ['pages']);
    const after = await s.actions(service);
    assert.deepEqual(names(after), [...names(first), 'mcp_pages_late_tool'].sort());
    assert.match(String(await after.find((a) => a.name === 'mcp_pages_late_tool')!.run({}, ctx)), /ran late_tool/);
  });

  it('sends a progress token: a long tool reports its progress, and the result keeps the last of it', async () => {
    const s = open(define({ pages: { type: 'stdio', command: process.execPath, args: [paging] } }));
    const progress: string[] = [];
    const actions = await s.actions(approving(s, progress));
    const ctx = { taskId: 't1', sessionId: 't1', turn: { needsApproval: () => undefined } } as never;
    const output = String(await actions.find((a) => a.name === 'mcp_pages_slow')!.run({}, ctx));
    assert.deepEqual(progress, ['1/3 (33%): step 1', '2/3 (67%): step 2', '3/3 (100%): step 3']);
    assert.match(output, /done\n\[progress: 3\/3 \(100%\): step 3\]/);
    assert.doesNotMatch(output, /without a progress token/);
  });

  it('server-everything: a tool that requires MCP tasks is not offered, with the reason in the log; its other tools are', async () => {
    const logger = new MemoryLogger();
    let told: () => void = () => undefined;
    const changed = new Promise<void>((resolve) => (told = resolve));
    const s = open(define({ every: { type: 'stdio', command: process.execPath, args: [everything] } }), logger, () => told());
    const service = approving(s);
    await s.actions(service);
    // server-everything registers its conditional tools after `initialized` and says so with list_changed.
    await changed;
    const actions = await s.actions(service);
    assert.ok(actions.some((a) => a.name === 'mcp_every_echo'));
    assert.ok(
      actions.some((a) => a.name === 'mcp_every_trigger_elicitation_request'),
      names(actions).join(', '),
    );
    assert.ok(!actions.some((a) => a.name === 'mcp_every_simulate_research_query'));
    assert.ok(logger.lines.some((l) => /MCP tool every\/simulate-research-query is not offered: it can only run as an MCP task/.test(l)));
  });

  it('server-everything: "type": "sse" opens the legacy HTTP+SSE transport', async () => {
    const { port, child } = await startEverything('sse');
    children.push(child);
    const s = open(define({ legacy: { type: 'sse', url: `http://127.0.0.1:${port}/sse` } }));
    const actions = await s.actions(approving(s));
    const ctx = { taskId: 't1', sessionId: 't1', turn: { needsApproval: () => undefined } } as never;
    assert.match(String(await actions.find((a) => a.name === 'mcp_legacy_echo')!.run({ message: 'over sse' }, ctx)), /Echo: over sse/);
    // The same URL as Streamable HTTP is another definition (consent binds to the transport too).
    const [asHttp] = define({ legacy: { type: 'http', url: `http://127.0.0.1:${port}/sse` } });
    const [asSse] = define({ legacy: { type: 'sse', url: `http://127.0.0.1:${port}/sse` } });
    assert.notEqual(asHttp!.hash, asSse!.hash);
  });
});
