/**
 * One consent hash for a chore with MCP servers, in VS Code and on the command line (issue 22):
 * VS Code's Enable binds to the review hash of each server the chore declares, and the CLI's
 * `ci github` / `--expect-hash` must compute the same, or CI refuses a chore enabled in VS Code.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { choreHashes, skillDirsOf } from '../../../src/cli/ciCommands';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import type { ChoreDefinition } from '../../../src/core/chores/types';
import { choreMcpFacts } from '../../../src/core/consent/choreConsentHash';
import { ConsentStore, memoryConsentBackend } from '../../../src/core/consent/consentStore';
import { choreSkillBodies } from '../../../src/core/consent/definitionHash';
import { MCP_FILE, parseMcpServers, parseJsonc } from '../../../src/core/mcp/mcpConfig';
import { McpReviewer } from '../../../src/core/mcp/mcpReview';
import { silentLogger } from '../../../src/core/ports';
import { discoverSkills } from '../../../src/core/skills/skills';
import { ChoreConsent } from '../../../src/host/chores/choreConsent';
import { toChoreReview } from '../../../src/host/chores/choreViews';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresYaml, cli, makeRepo, root } from '../../support/ciRepo';

const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** The chore's hash as VS Code computes it: McpHost's reading of mcp.json and its reviewer, the Enable dialog, ChoreConsent. */
async function vscodeHash(workspace: string, chore: ChoreDefinition): Promise<string> {
  // McpHost.reload: mcp.json parsed as workspace servers (no user setting in this workspace).
  const configured = parseMcpServers(parseJsonc(fs.readFileSync(path.join(workspace, MCP_FILE), 'utf8')), 'workspace').servers;
  // McpHost.facts, with its reviewer over the workspace folder.
  const reviewer = new McpReviewer(workspace);
  const facts = choreMcpFacts(chore, { configured, review: (d) => reviewer.review(d) });
  const bodies = choreSkillBodies(chore, await discoverSkills(skillDirsOf(path.join(root, 'skills'), workspace)));
  // What the Enable dialog shows and binds to, and what ChoreConsent checks at every load.
  const shown = toChoreReview(chore, bodies, facts).definitionHash;
  const consent = new ChoreConsent(
    new ConsentStore(memoryConsentBackend(), () => 0),
    silentLogger,
    () => bodies,
    () => facts.hashes,
  );
  assert.equal(consent.hashOf(chore), shown, 'the dialog and the consent check agree');
  return shown;
}

/** The chore's hash as the CLI computes it for `ci github`, `run --expect-hash` and `apply`. */
async function cliHash(workspace: string, chore: ChoreDefinition): Promise<string> {
  return (await choreHashes([chore], skillDirsOf(path.join(root, 'skills'), workspace), workspace, silentLogger)).get(chore.id) ?? '';
}

const loadChores = (workspace: string) => parseChoresFile(fs.readFileSync(path.join(workspace, '.tasklane/chores.yaml'), 'utf8')).chores;

describe('consent: one chore hash with MCP servers, in VS Code and on the CLI', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  let server: ModelServer;

  before(async () => {
    server = await startModelServer();
  });
  after(async () => {
    await server.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => server.reset());

  /** A workspace whose mcp.json runs a workspace script (with a loader variable naming another), and two chores. */
  function workspace(): string {
    const dir = makeRepo(
      [
        choresYaml('mcp:\n  tools: { tools: [echo] }'),
        '  - id: own-server',
        '    name: Own server',
        '    trigger: { cron: "0 3 * * *", timezone: UTC }',
        '    prompt: Echo.',
        '    mcp:',
        '      local: { tools: [echo], command: node, args: [scripts/local-server.cjs, stdio] }',
        '',
      ].join('\n'),
    );
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, '.vscode'));
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.writeFileSync(path.join(dir, 'scripts/server.cjs'), '// the mcp.json server\n');
    fs.writeFileSync(path.join(dir, 'scripts/preload.cjs'), '// loaded first\n');
    fs.writeFileSync(path.join(dir, 'scripts/local-server.cjs'), '// the chore-defined server\n');
    fs.writeFileSync(
      path.join(dir, MCP_FILE),
      JSON.stringify({
        servers: { tools: { command: 'node', args: ['scripts/server.cjs'], env: { NODE_OPTIONS: '--require ./scripts/preload.cjs', LEVEL: '1' } } },
      }),
    );
    return dir;
  }

  it('a chore naming an mcp.json server and one defining its own hash the same both ways, and follow the files their servers run', async () => {
    const dir = workspace();
    const [named, own] = loadChores(dir);
    assert.equal(named?.id, 'fix-answer');
    assert.equal(own?.id, 'own-server');
    for (const chore of [named!, own!]) assert.equal(await cliHash(dir, chore), await vscodeHash(dir, chore), `${chore.id}: the CLI hashes as VS Code`);

    // A pull that rewrites a file a server runs (or a loader variable names) withdraws consent, on both sides alike.
    for (const [file, chore] of [
      ['scripts/server.cjs', named!],
      ['scripts/preload.cjs', named!],
      ['scripts/local-server.cjs', own!],
    ] as const) {
      const before = await cliHash(dir, chore);
      fs.appendFileSync(path.join(dir, file), 'process.env.STEAL = 1;\n');
      const after = await cliHash(dir, chore);
      assert.notEqual(after, before, `${file} is part of ${chore.id}'s hash`);
      assert.equal(after, await vscodeHash(dir, chore), `${file}: still the same both ways`);
    }
  });

  it('run --expect-hash with the hash VS Code shows accepts the chore and its mcp.json server runs', async () => {
    const dir = makeRepo(choresYaml('mcp:\n  everything: { tools: [echo] }'));
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, '.vscode'));
    fs.writeFileSync(path.join(dir, MCP_FILE), JSON.stringify({ servers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }));
    const [chore] = loadChores(dir);
    const shown = await vscodeHash(dir, chore!);
    server.script([
      { toolCalls: [{ name: 'mcp_everything_echo', arguments: { message: 'enabled in VS Code' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output: {} } }] },
    ]);
    const result = await cli(['chores', 'run', 'fix-answer', '--workspace', dir, '--expect-hash', shown, '--json'], {
      TASKLANE_MODEL_PROVIDER: 'openai-compatible',
      TASKLANE_MODEL_BASE_URL: server.openaiBaseUrl,
      TASKLANE_MODEL_ID: 'gpt-5-mini',
      OPENAI_API_KEY: 'test-key',
    });
    assert.equal(result.code, 0, result.err);
    const last = JSON.parse(result.out.trim().split('\n').pop() ?? '') as { status: string; steps: Array<{ name: string; status: string }> };
    assert.equal(last.status, 'succeeded');
    assert.deepEqual(
      last.steps.map((s) => `${s.name}:${s.status}`),
      ['mcp_everything_echo:ok', 'task_end:ok'],
    );
    // The workflow `ci github` writes carries the same hash.
    const generated = await cli(['chores', 'ci', 'github', '--workspace', dir]);
    assert.equal(generated.code, 0, generated.err);
    assert.match(generated.out, new RegExp(`--expect-hash ${shown}`));
  });
});
