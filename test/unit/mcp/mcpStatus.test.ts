import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import type { McpServerDefinition } from '../../../src/core/mcp/mcpConfig';
import { McpServers } from '../../../src/core/mcp/mcpServers';
import { systemClock } from '../../../src/core/ports';
import { toMcpServerView } from '../../../src/host/mcp/mcpView';
import { MemoryLogger } from '../../fakes/memoryLogger';

// What the sidebar's MCP section shows (issue #15: "a broken server is shown in the sidebar with
// its last error and never blocks a turn"), against the real server-everything and a command
// that does not exist.
const root = path.resolve(__dirname, '../../..');
const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

function stdio(name: string, command: string, args: string[], source: 'workspace' | 'user' = 'user'): McpServerDefinition {
  const { servers, problems } = parseMcpServers({ servers: { [name]: { type: 'stdio', command, args } } }, source);
  assert.deepEqual(problems, []);
  return servers[0]!;
}

describe('mcp: server status for the sidebar', function () {
  this.timeout(60_000);
  let dir: string;
  let servers: McpServers | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-mcp-status-'));
  });
  afterEach(async () => {
    await servers?.stopAll();
    servers = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function make(
    definitions: McpServerDefinition[],
    options: { trusted?: (d: McpServerDefinition) => boolean; workspaceTrusted?: boolean; onStateChange?: (server: string, state: string) => void } = {},
  ): McpServers {
    servers = new McpServers({
      definitions: () => definitions,
      trusted: options.trusted ?? (() => true),
      workspaceTrusted: () => options.workspaceTrusted ?? true,
      cwd: dir,
      clock: systemClock,
      logger: new MemoryLogger(),
      ...(options.onStateChange ? { onStateChange: options.onStateChange } : {}),
    });
    return servers;
  }

  const service = { request: () => Promise.reject(new Error('no calls here')) };

  it('a server whose command does not exist shows as failed with its error, and the others still offer their tools', async () => {
    const missing = `tasklane-no-such-command-${process.pid}`;
    const s = make([stdio('broken', missing, []), stdio('everything', process.execPath, [everything, 'stdio'])]);
    const actions = await s.actions(service);
    assert.ok(
      actions.some((a) => a.name === 'mcp_everything_echo'),
      'the working server offers its tools despite the broken one',
    );
    const [broken, working] = s.status().map(toMcpServerView);
    assert.equal(broken?.state, 'failed');
    assert.match(broken?.lastError ?? '', /ENOENT|not found|spawn/i);
    assert.equal(broken?.target, missing);
    assert.equal(broken?.source, 'user');
    assert.equal(working?.state, 'running');
    assert.ok((working?.tools ?? 0) > 0);
  });

  it('a running server that is killed shows as crashed with "the server process exited"', async () => {
    const marker = `tasklane-status-kill-${process.pid}-${Date.now()}`;
    let crashed!: () => void;
    const crash = new Promise<void>((resolve) => (crashed = resolve));
    const s = make([stdio('everything', process.execPath, [everything, 'stdio', marker])], {
      onStateChange: (_server, state) => state === 'crashed' && crashed(),
    });
    await s.actions(service);
    assert.equal(toMcpServerView(s.status()[0]!).state, 'running');
    const pid = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes(marker))
      .map((l) => Number(l.trim().split(/\s+/)[0]))[0];
    assert.ok(pid);
    process.kill(pid, 'SIGKILL');
    await crash;
    const view = toMcpServerView(s.status()[0]!);
    assert.equal(view.state, 'crashed');
    assert.equal(view.lastError, 'the server process exited');
  });

  it('an untrusted repository server is "untrusted" and starts nothing; a trusted idle one is "idle"', async () => {
    const s = make([stdio('repo', process.execPath, [everything, 'stdio'], 'workspace'), stdio('mine', process.execPath, [everything, 'stdio'])], {
      trusted: (d) => d.source === 'user',
    });
    const [repo, mine] = s.status().map(toMcpServerView);
    assert.equal(repo?.state, 'untrusted');
    assert.equal(repo?.source, 'workspace');
    assert.equal(mine?.state, 'idle');
  });

  it('in Restricted Mode every server is "restricted", consented or not, and is not "not trusted"', () => {
    const s = make([stdio('repo', process.execPath, [everything, 'stdio'], 'workspace'), stdio('mine', process.execPath, [everything, 'stdio'])], {
      trusted: () => true,
      workspaceTrusted: false,
    });
    assert.deepEqual(
      s.status().map((status) => [status.name, toMcpServerView(status).state, status.trusted]),
      [
        ['repo', 'restricted', false],
        ['mine', 'restricted', false],
      ],
    );
  });
});
