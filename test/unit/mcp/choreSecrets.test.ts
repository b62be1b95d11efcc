/**
 * `secrets:` of a chore's MCP servers in VS Code (issue 22): the value, read from the workspace's
 * chore secrets at the server's start, reaches the server that names it and no other, and is never
 * written into a log line, a status or the review; the Enable dialog names which secret goes where.
 * The servers are the real McpServers running the reference server-everything (its get-env tool
 * prints the process environment), wired as McpHost wires them.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { choreServerDefinition, choreServerSecretEnv } from '../../../src/core/chores/choreMcp';
import { McpReviewer } from '../../../src/core/mcp/mcpReview';
import { McpServers } from '../../../src/core/mcp/mcpServers';
import { systemClock } from '../../../src/core/ports';
import { toChoreReview } from '../../../src/host/chores/choreViews';
import { MemoryLogger } from '../../fakes/memoryLogger';

const root = path.resolve(__dirname, '../../..');
const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const VALUE = 'ops-secret-value-7f3a91';

const choresText = (secrets: string) => `chores:
  - id: ops
    name: Ops
    trigger: { cron: "0 2 * * *", timezone: UTC }
    prompt: Read the environment.
    mcp:
      witness: { tools: [get-env], ${secrets}command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(everything)}, stdio] }
      plain: { tools: [get-env], command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(everything)}, stdio] }
`;

describe('mcp: a chore secret reaches only the server that names it', function () {
  this.timeout(60_000);
  const open: McpServers[] = [];
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-mcp-secrets-'));
  });
  after(async () => {
    for (const servers of open) await servers.stopAll();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The chore's servers as McpHost runs them for the enabled chores, with `stored` as the workspace's chore secrets. */
  function rig(text: string, stored: Record<string, string>) {
    const { chores, diagnostics } = parseChoresFile(text);
    assert.deepEqual(diagnostics, []);
    const [chore] = chores;
    const definitions = Object.entries(chore!.mcp ?? {}).map(([name, declared]) => choreServerDefinition(name, declared, [])!);
    const logger = new MemoryLogger();
    const reads: string[] = [];
    const servers = new McpServers({
      definitions: () => definitions,
      trusted: () => true,
      workspaceTrusted: () => true,
      cwd: dir,
      clock: systemClock,
      logger,
      secretEnv: (server) =>
        choreServerSecretEnv(
          server,
          chores,
          (name) => {
            reads.push(name);
            return Promise.resolve(stored[name]);
          },
          (name) => `set it with "Tasklane: Set Secret" (name ${name})`,
        ),
    });
    open.push(servers);
    const getEnv = async (server: string) => servers.call(server, 'get-env', {}, { timeoutMs: 30_000 });
    return { chore: chore!, definitions, logger, reads, servers, getEnv };
  }

  it('the witness server gets TASKLANE_SECRET_OPS_TOKEN, the other server nothing; the value is in no log, status or review', async () => {
    const r = rig(choresText('secrets: [ops-token], '), { 'ops-token': VALUE });
    const witness = await r.getEnv('witness');
    assert.equal(witness.exitCode, 0, witness.output);
    assert.match(witness.output, new RegExp(`"TASKLANE_SECRET_OPS_TOKEN":\\s*"${VALUE}"`));
    const plain = await r.getEnv('plain');
    assert.equal(plain.exitCode, 0, plain.output);
    assert.match(plain.output, /"PATH"/);
    assert.doesNotMatch(plain.output, /TASKLANE_SECRET|ops-secret-value/, 'a server that names no secret gets none');
    assert.deepEqual(r.reads, ['ops-token'], 'only the secret a server names is read, and only for it');

    const reviewer = new McpReviewer(dir);
    const shown = [
      ...r.logger.lines,
      JSON.stringify(r.servers.status()),
      ...r.definitions.map((d) => reviewer.review(d).text),
      JSON.stringify(toChoreReview(r.chore)),
    ].join('\n');
    assert.doesNotMatch(shown, new RegExp(VALUE), 'the value is never logged or shown');
    // The Enable dialog says which secret goes to which server.
    const lines = toChoreReview(r.chore).mcp ?? [];
    assert.match(lines.find((l) => l.startsWith('witness')) ?? '', /only this server gets the secret ops-token \(as TASKLANE_SECRET_OPS_TOKEN\)/);
    assert.doesNotMatch(lines.find((l) => l.startsWith('plain')) ?? '', /secret/);
  });

  it('a secret not set yet fails that server with how to set it; set, the next start has it', async () => {
    const stored: Record<string, string> = {};
    const r = rig(choresText('secrets: [ops-token], '), stored);
    const missing = await r.getEnv('witness');
    assert.equal(missing.exitCode, null);
    assert.match(missing.error ?? '', /the MCP server witness needs the secret ops-token: set it with "Tasklane: Set Secret" \(name ops-token\)/);
    assert.equal((await r.getEnv('plain')).exitCode, 0, 'the other server runs');
    assert.match(JSON.stringify(r.servers.status().find((s) => s.name === 'witness')), /needs the secret ops-token/, 'the MCP view shows why');
    stored['ops-token'] = VALUE;
    await r.servers.stop('witness');
    const started = await r.getEnv('witness');
    assert.equal(started.exitCode, 0, started.output);
    assert.match(started.output, /TASKLANE_SECRET_OPS_TOKEN/);
  });
});
