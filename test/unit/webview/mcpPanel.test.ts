import * as assert from 'node:assert/strict';
import { toMcpServerView } from '../../../src/host/mcp/mcpView';
import { mcpRowModel } from '../../../src/shared/mcpRows';

// The sidebar's MCP section row, as a model (the webview tests have no DOM): what each state reads
// as, where the server is defined, the last error, and who gets a Trust… button.
describe('webview: MCP servers section rows', function () {
  it('a failed server shows its error in the error tone, with where it is defined', function () {
    const row = mcpRowModel({ name: 'db', source: 'user', target: 'no-such-cmd --x', state: 'failed', lastError: 'spawn no-such-cmd ENOENT' });
    assert.equal(row.stateLabel, 'failed');
    assert.equal(row.tone, 'error');
    assert.equal(row.origin, 'user settings');
    assert.equal(row.lastError, 'spawn no-such-cmd ENOENT');
    assert.equal(row.canTrust, false);
    assert.match(row.ariaLabel, /MCP server db from user settings: failed\. Last error: spawn no-such-cmd ENOENT/);
  });

  it('only an untrusted repository server offers Trust…', function () {
    const repo = mcpRowModel({ name: 'gh', source: 'workspace', target: 'npx gh-mcp', state: 'untrusted' });
    assert.equal(repo.stateLabel, 'not trusted');
    assert.equal(repo.origin, 'workspace .vscode/mcp.json');
    assert.equal(repo.tone, 'warn');
    assert.equal(repo.canTrust, true);
    assert.equal(mcpRowModel({ name: 'u', source: 'user', target: 'x', state: 'untrusted' }).canTrust, false);
    assert.equal(mcpRowModel({ name: 'gh', source: 'workspace', target: 'x', state: 'running' }).canTrust, false);
  });

  it('in Restricted Mode every server reads "off in Restricted Mode" and none offers Trust…', function () {
    for (const source of ['workspace', 'user'] as const) {
      const row = mcpRowModel({ name: 'gh', source, target: 'npx gh-mcp', state: 'restricted' });
      assert.equal(row.stateLabel, 'off in Restricted Mode');
      assert.equal(row.tone, 'warn');
      assert.equal(row.canTrust, false, `a ${source} server offered Trust… in Restricted Mode`);
      assert.match(row.ariaLabel, /: off in Restricted Mode$/);
    }
  });

  it('a running server counts its tools and drops a stale error; crashed keeps it', function () {
    const running = mcpRowModel({ name: 'e', source: 'user', target: 'node e.js', state: 'running', tools: 12, lastError: 'the server process exited' });
    assert.equal(running.stateLabel, 'running · 12 tools');
    assert.equal(running.tone, 'ok');
    assert.equal(running.lastError, undefined);
    const crashed = mcpRowModel({ name: 'e', source: 'user', target: 'node e.js', state: 'crashed', lastError: 'the server process exited' });
    assert.equal(crashed.tone, 'error');
    assert.equal(crashed.lastError, 'the server process exited');
    assert.equal(mcpRowModel({ name: 'e', source: 'user', target: 't', state: 'running', tools: 1 }).stateLabel, 'running · 1 tool');
  });

  it('a server trusted only through an enabled chore reads "trusted for chore <id>", its tooltip naming the tools, and offers no Trust…', function () {
    const view = toMcpServerView({
      name: 'everything',
      source: 'workspace',
      transport: 'stdio',
      target: 'npx -y @modelcontextprotocol/server-everything@2025.9.12',
      hash: 'h',
      trusted: true,
      state: 'stopped',
      trustedFor: [{ chore: 'triage', tools: ['echo', 'get-sum'] }],
    });
    const row = mcpRowModel(view);
    assert.equal(row.stateLabel, 'idle · trusted for chore triage');
    assert.doesNotMatch(row.stateLabel, /not trusted/);
    assert.equal(row.tone, 'ok');
    assert.equal(row.canTrust, false);
    assert.equal(row.trustNote, 'Trusted only through the enabled chore triage, which may call echo, get-sum.');
    assert.match(row.ariaLabel, /: idle · trusted for chore triage$/);
    const running = mcpRowModel({ ...view, state: 'running', tools: 12, trustedFor: [...view.trustedFor!, { chore: 'nightly', tools: ['echo'] }] });
    assert.equal(running.stateLabel, 'running · 12 tools · trusted for chores triage, nightly');
    assert.equal(running.trustNote, 'Trusted only through the enabled chores triage, which may call echo, get-sum; nightly, which may call echo.');
    // Restricted Mode wins: nothing runs, whatever the chores say.
    const restricted = mcpRowModel({ ...view, state: 'restricted' });
    assert.equal(restricted.stateLabel, 'off in Restricted Mode');
    assert.equal(restricted.trustNote, undefined);
    // A server the person trusted, or from user settings, has no chore note.
    assert.equal(mcpRowModel({ name: 'e', source: 'workspace', target: 't', state: 'idle' }).trustNote, undefined);
  });
});
