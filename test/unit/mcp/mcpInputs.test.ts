import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CliChoreMcp } from '../../../src/cli/choreMcpServers';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { buildMcp } from '../../../src/core/engineMcp';
import { systemClock } from '../../../src/core/ports';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import { envInputs, inputVariable } from '../../../src/core/mcp/mcpInputs';
import type { McpInput } from '../../../src/core/mcp/mcpInputs';
import type { McpServers } from '../../../src/core/mcp/mcpServers';
import { repoRoot as root, trustedServers } from '../../support/mcpServers';

const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

// mcp.json's `inputs` and `${input:ID}`, headless: the value comes from TASKLANE_MCP_INPUT_<ID>, or
// the start is refused naming that variable. (Asking in VS Code: test/host/mcpInputs.test.ts.)
const file = {
  inputs: [
    { type: 'promptString', id: 'api-key', description: 'Your API key', password: true },
    { type: 'pickString', id: 'region', description: 'Region', options: ['eu', { label: 'United States', value: 'us' }], default: 'eu' },
    { type: 'promptString', id: 'unused', description: 'Not named by any server' },
  ],
  servers: {
    every: { type: 'stdio', command: process.execPath, args: [everything], env: { KEY: '${input:api-key}', WHERE: 'region-${input:region}' } },
  },
};

describe('mcp: mcp.json inputs (${input:…})', function () {
  this.timeout(30_000);

  it('reads the declarations; a definition carries the inputs it names, outside its hash', () => {
    const { servers, problems } = parseMcpServers(file, 'workspace');
    assert.deepEqual(problems, []);
    const ids = servers[0]!.inputs?.map((i: McpInput) => i.id);
    assert.deepEqual(ids, ['api-key', 'region']);
    assert.deepEqual(servers[0]!.inputs?.[1]?.options, ['eu', 'us'], 'a {label, value} option gives its value');
    const other = parseMcpServers({ ...file, inputs: [{ ...file.inputs[0], description: 'Reworded' }, file.inputs[1]] }, 'workspace');
    assert.equal(other.servers[0]!.hash, servers[0]!.hash, 'a reworded question does not ask for trust again');
    const bad = parseMcpServers({ ...file, inputs: [{ type: 'pickString', id: 'region', description: 'no options' }] }, 'workspace');
    assert.match(bad.problems.map((p) => p.message).join('\n'), /inputs\[0\]: options/);
  });

  it('headless: each value from TASKLANE_MCP_INPUT_<ID> reaches the server; a password is told to the redactor first', async () => {
    assert.equal(inputVariable('api-key'), 'TASKLANE_MCP_INPUT_API_KEY');
    const env: Record<string, string> = { TASKLANE_MCP_INPUT_API_KEY: 's3cret-value', TASKLANE_MCP_INPUT_REGION: 'us' };
    const told: string[] = [];
    const servers = serversOf(
      envInputs((name) => env[name]),
      told,
    );
    try {
      const ran = await servers.call('every', 'get-env', {}, { timeoutMs: 10_000 });
      assert.equal(ran.error, undefined);
      assert.match(ran.output, /"KEY":\s*"s3cret-value"/);
      assert.match(ran.output, /"WHERE":\s*"region-us"/);
      assert.doesNotMatch(ran.output, /\$\{input:/);
      assert.deepEqual(told, ['s3cret-value'], 'the password and nothing else');
    } finally {
      await servers.stopAll();
    }
  });

  it('headless without the variable: the start is refused naming the variable to set', async () => {
    const servers = serversOf(
      envInputs(() => undefined),
      [],
    );
    try {
      const ran = await servers.call('every', 'get-env', {}, { timeoutMs: 10_000 });
      assert.equal(ran.exitCode === 0, false);
      const why = /could not start: the MCP server every needs \$\{input:api-key\} \(Your API key\).*set the environment variable TASKLANE_MCP_INPUT_API_KEY/;
      assert.match(ran.error ?? ran.output, why);
      assert.equal(servers.status()[0]?.state, 'crashed');
      assert.match(servers.status()[0]?.lastError ?? '', /TASKLANE_MCP_INPUT_API_KEY/);
    } finally {
      await servers.stopAll();
    }
  });

  it('the command line: values from the env option it was given, not from process.env', async () => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-mcp-inputs-'));
    fs.mkdirSync(path.join(workspace, '.vscode'));
    fs.writeFileSync(path.join(workspace, '.vscode/mcp.json'), JSON.stringify(file));
    const { chores, diagnostics } = parseChoresFile(`chores:
  - id: ops
    name: Ops
    trigger: { cron: "0 2 * * *", timezone: UTC }
    prompt: Read the environment.
    mcp:
      every: { tools: [get-env] }
`);
    assert.deepEqual(diagnostics, []);
    assert.equal(process.env.TASKLANE_MCP_INPUT_API_KEY, undefined, 'the value must come from the option, so process.env lacks it');
    const told: string[] = [];
    const mcp = new CliChoreMcp({
      workspace,
      env: { PATH: process.env.PATH, TASKLANE_MCP_INPUT_API_KEY: 'cli-key-41b', TASKLANE_MCP_INPUT_REGION: 'eu' },
      secrets: () => undefined,
      onSecret: (value) => told.push(value),
      logger: new MemoryLogger(),
    });
    // The engine's side, as createEngine builds it from the command line's adapters (cliEngine.ts).
    const built = buildMcp(mcp.adapters(), { clock: systemClock, logger: new MemoryLogger(), trusted: () => true });
    const offered: string[] = [];
    built.attach({ request: () => Promise.reject(new Error('not called here')) }, (actions) => offered.push(...actions.map((a) => a.name)));
    mcp.attach(built);
    try {
      await mcp.prepare(chores[0]!);
      assert.ok(offered.includes('mcp_every_get_env'), offered.join(', '));
      const ran = await built.servers.call('every', 'get-env', {}, { timeoutMs: 10_000 });
      assert.equal(ran.error, undefined);
      assert.match(ran.output, /"KEY":\s*"cli-key-41b"/);
      assert.match(ran.output, /"WHERE":\s*"region-eu"/);
      assert.deepEqual(told, ['cli-key-41b'], "the password input is told to the run's redactor");
    } finally {
      await mcp.stop();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});

function serversOf(inputs: ReturnType<typeof envInputs>, told: string[]): McpServers {
  return trustedServers(parseMcpServers(file, 'workspace').servers, { inputs, onSecret: (value) => told.push(value) });
}
