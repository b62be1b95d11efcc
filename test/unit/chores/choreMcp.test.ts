import * as assert from 'node:assert/strict';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { unpinnedPackage } from '../../../src/core/chores/choreMcp';
import { serializeChore } from '../../../src/core/chores/choreSerialize';
import { choreDefinitionHash } from '../../../src/core/consent/definitionHash';

const chore = (mcp: string[]) =>
  [
    'chores:',
    '  - id: triage',
    '    name: Triage',
    '    trigger: { cron: "0 2 * * *" }',
    '    prompt: Echo hello.',
    '    mcp:',
    ...mcp.map((l) => `      ${l}`),
    '',
  ].join('\n');
const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('chores: declared MCP servers (mcp:)', () => {
  it('loads servers and their exact tools, grants their sets, and puts them in the consent hash', () => {
    const result = parseChoresFile(chore(['everything: { tools: [echo, add, echo], secrets: [ops-token] }']));
    assert.deepEqual(result.diagnostics, []);
    const [loaded] = result.chores;
    assert.deepEqual(loaded.mcp, { everything: { tools: ['add', 'echo'], secrets: ['ops-token'] } });
    assert.deepEqual(loaded.actionSets, ['mcp:everything']);
    const other = parseChoresFile(chore(['everything: { tools: [echo, add, get-env], secrets: [ops-token] }'])).chores[0];
    assert.notEqual(choreDefinitionHash(other), choreDefinitionHash(loaded), 'declaring one more tool asks for Enable again');
    const reordered = parseChoresFile(chore(['everything: { tools: [add, echo], secrets: [ops-token] }'])).chores[0];
    assert.equal(choreDefinitionHash(reordered), choreDefinitionHash(loaded), 'the order of tools means nothing');
  });

  it('defines a server in the chore; args or env without a command, a secret in env, and no tools are errors on their line', () => {
    const defined = parseChoresFile(chore(['local: { tools: [echo], command: node, args: [server.js, stdio], env: { LEVEL: "1" } }']));
    assert.deepEqual(defined.diagnostics, []);
    assert.deepEqual(defined.chores[0].mcp, { local: { tools: ['echo'], command: 'node', args: ['server.js', 'stdio'], env: { LEVEL: '1' } } });
    for (const [entry, message] of [
      ['everything: { tools: [echo], args: [x] }', /args only applies to a server the chore defines/],
      ['local: { tools: [echo], command: node, env: { TASKLANE_SECRET_X: y } }', /a secret is never written here; name it in secrets/],
      ['everything: { tools: [] }', /tools needs at least one tool/],
      ['everything: { tool: [echo] }', /tool/],
    ] as const) {
      const text = chore([entry]);
      const result = parseChoresFile(text);
      assert.equal(result.chores.length, 0, entry);
      const error = result.diagnostics.find((d) => d.severity === 'error');
      assert.match(error?.message ?? '', message);
      assert.equal(error?.line, lineOf(text, entry.slice(0, 12)), entry);
    }
  });

  it('refuses a server that npx downloads without an exact version, naming the line', () => {
    const text = chore(['memory:', '  tools: [read_graph]', '  command: npx', '  args: [-y, "@modelcontextprotocol/server-memory"]']);
    const result = parseChoresFile(text);
    assert.equal(result.chores.length, 0);
    const [error] = result.diagnostics;
    assert.equal(error.line, lineOf(text, 'args:'));
    assert.match(
      error.message,
      /mcp\.memory: "npx -y @modelcontextprotocol\/server-memory" runs the package @modelcontextprotocol\/server-memory without an exact version; pin it/,
    );
    const pinned = parseChoresFile(
      chore(['memory:', '  tools: [read_graph]', '  command: npx', '  args: [-y, "@modelcontextprotocol/server-memory@2026.1.26"]']),
    );
    assert.deepEqual(pinned.diagnostics, []);
    assert.match(unpinnedPackage('npx', ['-y', 'some-server@latest']) ?? '', /"latest" can move/);
    assert.match(unpinnedPackage('npm', ['exec', '--package=some-server@^1.0.0', '--', 'some-server']) ?? '', /"\^1\.0\.0" can move/);
    assert.equal(unpinnedPackage('npx', ['--yes', '-p', 'a@1.2.3', 'a']), undefined);
    assert.equal(unpinnedPackage('node', ['server.js']), undefined);
    assert.equal(unpinnedPackage('npm', ['run', 'serve']), undefined);
  });

  it('writes mcp: as one line per server, which reads back the same', () => {
    const spec = { id: 'triage', name: 'Triage', trigger: { cron: '0 2 * * *' }, prompt: 'Echo.', mcp: { everything: { tools: ['echo'] } } };
    const text = serializeChore(spec);
    assert.match(text, /\n {4}mcp:\n {6}everything: \{ tools: \[ echo \] \}/);
    assert.deepEqual(parseChoresFile(`chores:\n${text}`).chores[0].mcp, { everything: { tools: ['echo'] } });
  });
});
