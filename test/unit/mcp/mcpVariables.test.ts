import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import { resolveVariables } from '../../../src/core/mcp/mcpVariables';
import { repoRoot as root, trustedServers } from '../../support/mcpServers';

const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

describe('mcp: mcp.json variables, as VS Code resolves them', function () {
  this.timeout(30_000);

  it('resolves ${workspaceFolder} and ${env:…} at the start, keeps the definition (and its hash) as written, refuses an undeclared ${input:…}', () => {
    const { servers, problems } = parseMcpServers(
      {
        servers: {
          s: {
            type: 'stdio',
            command: '${workspaceFolder}/bin/server',
            args: ['--root=${workspaceFolder}', '--name=${workspaceFolderBasename}'],
            env: { TOKEN: '${env:MY_TOKEN}', MISSING: '${env:NOPE}' },
          },
          h: { type: 'http', url: 'https://${env:HOST}/mcp', headers: { Authorization: 'Bearer ${env:MY_TOKEN}' } },
          i: { type: 'stdio', command: 'x', args: ['${input:apiKey}'] },
        },
      },
      'workspace',
    );
    const [s, h, i] = servers;
    assert.equal(i, undefined, 'a server naming an input the file does not declare is not loaded');
    assert.match(problems.find((p) => p.name === 'i')?.message ?? '', /names \$\{input:apiKey\}, which the file's "inputs" does not declare/);
    const env = (name: string) => ({ MY_TOKEN: 't0k', HOST: 'mcp.example.com' })[name];
    const resolved = resolveVariables(s!, { workspaceFolder: '/w/proj', env });
    assert.ok(resolved.transport === 'stdio');
    assert.equal(resolved.command, '/w/proj/bin/server');
    assert.deepEqual(resolved.args, ['--root=/w/proj', '--name=proj']);
    assert.deepEqual(resolved.env, { TOKEN: 't0k', MISSING: '' });
    assert.equal(resolved.hash, s!.hash);
    assert.ok(s!.transport === 'stdio' && s!.args[0] === '--root=${workspaceFolder}', 'the definition itself is untouched');
    const remote = resolveVariables(h!, { workspaceFolder: '/w/proj', env });
    assert.ok(remote.transport === 'http');
    assert.equal(remote.url, 'https://mcp.example.com/mcp');
    assert.deepEqual(remote.headers, { Authorization: 'Bearer t0k' });
    const asks = { ...s!, args: ['${input:apiKey}'] };
    assert.throws(() => resolveVariables(asks, { workspaceFolder: '/w' }), /names \$\{input:apiKey\}, which nobody gave a value for/);
    assert.deepEqual(resolveVariables(asks, { workspaceFolder: '/w', inputs: { apiKey: 'k' } }).args, ['k']);
  });

  it('a server started from a definition with variables gets the values, not the text', async () => {
    const { servers: defs } = parseMcpServers(
      { servers: { every: { type: 'stdio', command: process.execPath, args: [everything], env: { WHERE: '${workspaceFolder}' } } } },
      'user',
    );
    const servers = trustedServers(defs);
    try {
      const ran = await servers.call('every', 'get-env', {}, { timeoutMs: 10_000 });
      assert.equal(ran.error, undefined);
      assert.match(ran.output, new RegExp(`"WHERE":\\s*"${root.replace(/[/\\]/g, '.')}"`));
      assert.doesNotMatch(ran.output, /\$\{workspaceFolder\}/);
    } finally {
      await servers.stopAll();
    }
  });
});
