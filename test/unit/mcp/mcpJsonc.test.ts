import * as assert from 'node:assert/strict';
import { parseJsonc, parseMcpServers } from '../../../src/core/mcp/mcpConfig';

describe('mcp: mcp.json read as VS Code reads it (JSONC)', () => {
  it('keeps text inside strings as written: commas before brackets, comment markers, escapes', () => {
    const text = `{
      // a comment
      "servers": {
        "tool": {
          "type": "stdio",
          "command": "node", /* another */
          "args": ["--sep=,]", "x, }", "http://example.com//path", "a \\"/* not a comment */\\"",],
        },
      },
    }`;
    const { servers, problems } = parseMcpServers(parseJsonc(text), 'workspace');
    assert.deepEqual(problems, []);
    assert.deepEqual(servers[0]?.transport === 'stdio' && servers[0].args, ['--sep=,]', 'x, }', 'http://example.com//path', 'a "/* not a comment */"']);
  });

  it('says where a file is broken', () => {
    assert.throws(() => parseJsonc('{\n  "servers": {\n    "a": { "command": "x" \n  }\n'), /at line \d+, column \d+/);
  });
});
