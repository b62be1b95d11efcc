import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import type { McpServerDefinition } from '../../../src/core/mcp/mcpConfig';
import { McpServers } from '../../../src/core/mcp/mcpServers';
import { FakeClock } from '../../fakes/fakeClock';
import { MemoryLogger } from '../../fakes/memoryLogger';

// A broken server must not hold back the others. It did: the servers were listed one after another,
// and a server that had failed waited out its restart backoff (up to a minute) inside the listing,
// so a server trusted just now stayed idle, its tools not offered, until the broken one's wait ended.
const root = path.resolve(__dirname, '../../..');
const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

function definitions(): McpServerDefinition[] {
  const { servers, problems } = parseMcpServers(
    {
      servers: {
        broken: { type: 'stdio', command: `tasklane-no-such-mcp-command-${process.pid}` },
        everything: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'] },
      },
    },
    'user',
  );
  assert.deepEqual(problems, []);
  return servers;
}

describe('mcp: a broken server beside a working one', function () {
  this.timeout(30_000);
  let servers: McpServers | undefined;
  afterEach(async () => servers?.stopAll());

  it("lists the working server's tools while the broken one waits out its backoff, and retries it after", async () => {
    // The clock moves only when told: a listing that waited for the backoff would never return.
    const clock = new FakeClock();
    const logger = new MemoryLogger();
    const states: string[] = [];
    const defs = definitions();
    let trustedNames = ['broken'];
    servers = new McpServers({
      definitions: () => defs,
      trusted: (d) => trustedNames.includes(d.name),
      workspaceTrusted: () => true,
      cwd: root,
      clock,
      logger,
      onStateChange: (server, state) => states.push(`${server} ${state}`),
    });
    const service = { request: () => Promise.reject(new Error('no call in this test')) };

    assert.deepEqual(await servers.actions(service), [], 'the broken server alone offers nothing');
    assert.equal(servers.status().find((s) => s.name === 'broken')?.state, 'crashed');

    // The person trusts a second server while the first waits to restart.
    trustedNames = ['broken', 'everything'];
    const actions = await servers.actions(service);
    assert.ok(
      actions.some((a) => a.name === 'mcp_everything_echo'),
      actions.map((a) => a.name).join(', '),
    );
    assert.equal(servers.status().find((s) => s.name === 'everything')?.state, 'ready');
    assert.match(logger.lines.join('\n'), /MCP server broken offers no tools now: it failed and may restart in 1 s/);
    assert.equal(states.filter((s) => s === 'broken starting').length, 1, 'the broken server was not started again during its backoff');

    // Once the backoff is over, the next listing tries it again.
    await clock.advance(1_000);
    await servers.actions(service);
    assert.equal(states.filter((s) => s === 'broken starting').length, 2, states.join(', '));
  });
});
