import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ActionRegistry } from '../../../src/core/actions/registry';
import { parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import { repoRoot, trustedServers } from '../../support/mcpServers';

// A tool's input schema reaches the model as its server wrote it: JSON Schema 2020-12 with `$defs`
// and `$ref` is not round-tripped through zod (which inlines, loosens or drops what it cannot
// express); only the top-level `$schema` is left out. The zod form still validates each call.
const fixture = path.join(repoRoot, 'test/fixtures/schemaMcpServer.mjs');
const sent = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test/fixtures/planTripSchema.json'), 'utf8')) as Record<string, unknown>;

describe('mcp: a tool schema offered as the server sent it', function () {
  this.timeout(30_000);

  it('$defs, $ref, prefixItems and const reach the tool list unchanged; a call is still validated', async () => {
    const { servers: defs } = parseMcpServers({ servers: { schemas: { type: 'stdio', command: process.execPath, args: [fixture] } } }, 'user');
    const servers = trustedServers(defs);
    try {
      const actions = await servers.actions({ request: () => Promise.reject(new Error('no call in this test')) });
      const registry = new ActionRegistry(actions);
      const [tool] = registry.tools(['mcp:schemas']);
      const { $schema: _dialect, ...expected } = sent;
      assert.deepEqual(tool?.inputSchema, expected);
      assert.equal(registry.tools(['mcp:schemas'])[0], tool, 'the same object at every request (the stable prefix)');

      const action = registry.get('mcp_schemas_plan_trip')!;
      const paris = { city: 'Paris', country: 'FR' };
      assert.equal(action.input.safeParse({ from: paris, to: { city: 'Rome', country: 'IT' }, kind: 'trip' }).success, true);
      assert.equal(action.input.safeParse({ to: paris }).success, false, 'a required property is still checked');
    } finally {
      await servers.stopAll();
    }
  });
});
