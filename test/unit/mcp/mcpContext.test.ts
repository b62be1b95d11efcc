import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import type { McpServerDefinition } from '../../../src/core/mcp/mcpConfig';
import { bound, MCP_CONTEXT_MAX_CHARS, McpContext } from '../../../src/core/mcp/mcpContext';
import type { McpContextEntry } from '../../../src/core/mcp/mcpContext';
import { McpServers } from '../../../src/core/mcp/mcpServers';
import { systemClock } from '../../../src/core/ports';
import { withAttachments } from '../../../src/shared/contextProtocol';
import { parseParams } from '../../../src/shared/sidebarSchemas';
import { MemoryLogger } from '../../fakes/memoryLogger';

// Issue #15: MCP resources and prompts attachable through the `@` picker, from the real
// server-everything over stdio (not written here).
const root = path.resolve(__dirname, '../../..');
const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

function stdio(name: string, args: string[], source: 'workspace' | 'user' = 'workspace'): McpServerDefinition {
  const { servers, problems } = parseMcpServers({ servers: { [name]: { type: 'stdio', command: process.execPath, args } } }, source);
  assert.deepEqual(problems, []);
  return servers[0]!;
}

describe('mcp: resources and prompts as attachable context', function () {
  this.timeout(60_000);
  let dir: string;
  let servers: McpServers | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-mcp-context-'));
  });
  afterEach(async () => {
    await servers?.stopAll();
    servers = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function make(definitions: McpServerDefinition[], trusted: (d: McpServerDefinition) => boolean = () => true, states: string[] = []): McpContext {
    servers = new McpServers({
      definitions: () => definitions,
      trusted,
      workspaceTrusted: () => true,
      cwd: dir,
      clock: systemClock,
      logger: new MemoryLogger(),
      onStateChange: (_s, state) => states.push(state),
    });
    return new McpContext(servers);
  }

  const noAsk = () => Promise.reject(new Error('nothing should be asked'));
  const find = (entries: McpContextEntry[], test: (e: McpContextEntry) => boolean, what: string) => {
    const entry = entries.find(test);
    assert.ok(entry, `no ${what} among ${entries.map((e) => e.label).join(', ')}`);
    return entry;
  };

  it("lists server-everything's resources and prompts, starting it lazily; picking a resource yields its text", async () => {
    const states: string[] = [];
    const context = make([stdio('everything', [everything, 'stdio'])], () => true, states);
    assert.equal(states.length, 0, 'nothing starts before the picker asks');
    const entries = await context.entries();
    assert.ok(states.includes('ready'), 'listing started the server');
    const resource = find(entries, (e) => e.kind === 'resource' && e.uri === 'demo://resource/static/document/architecture.md', 'architecture.md resource');
    assert.ok(
      entries.some((e) => e.kind === 'prompt' && e.name === 'simple-prompt'),
      'the simple prompt is listed',
    );
    const attachment = await context.attach(resource, noAsk);
    const onDisk = fs.readFileSync(path.join(path.dirname(everything), 'docs/architecture.md'), 'utf8');
    assert.equal(attachment?.label, 'everything: demo://resource/static/document/architecture.md');
    assert.equal(attachment?.text, bound(onDisk));
  });

  it('a prompt without arguments is fetched with prompts/get; one with arguments asks for them, and a cancel attaches nothing', async () => {
    const context = make([stdio('everything', [everything, 'stdio'])]);
    const entries = await context.entries();
    const simple = find(entries, (e) => e.kind === 'prompt' && e.name === 'simple-prompt', 'simple-prompt');
    assert.deepEqual(await context.attach(simple, noAsk), {
      label: 'everything prompt simple-prompt',
      text: 'user: This is a simple prompt without arguments.',
    });

    const withArgs = find(entries, (e) => e.kind === 'prompt' && e.name === 'args-prompt', 'args-prompt');
    assert.match(withArgs.detail, /asks for city, state\?/);
    const asked: string[] = [];
    const answers: Record<string, string> = { city: 'Lyon', state: '' };
    const attached = await context.attach(withArgs, async (_prompt, arg) => {
      asked.push(`${arg.name}${arg.required ? '' : '?'}`);
      return answers[arg.name];
    });
    assert.deepEqual(asked, ['city', 'state?']);
    assert.equal(attached?.text, "user: What's weather in Lyon?");
    assert.equal(await context.attach(withArgs, async () => undefined), undefined);
  });

  it("a picked prompt travels as the message's attachment: the sidebar's send is accepted and the model's text carries it", async () => {
    const context = make([stdio('everything', [everything, 'stdio'])]);
    const simple = find(await context.entries(), (e) => e.kind === 'prompt' && e.name === 'simple-prompt', 'simple-prompt');
    const attached = await context.attach(simple, noAsk);
    assert.ok(attached);
    const parsed = parseParams('send', { requestId: 'r1', text: 'Use this', attachments: [{ kind: 'mcp', ...attached }] });
    const sent = withAttachments(parsed.text, parsed.attachments ?? []);
    assert.equal(
      sent,
      'Use this\n\n<attachment kind="mcp" name="everything prompt simple-prompt">\nuser: This is a simple prompt without arguments.\n</attachment>',
    );
  });

  it('an untrusted server is not listed and starts nothing', async () => {
    const states: string[] = [];
    const context = make([stdio('everything', [everything, 'stdio'])], () => false, states);
    assert.deepEqual(await context.entries(), []);
    assert.equal(states.length, 0, 'no server started');
  });

  it('bounds a long text at 32 KB with a note', function () {
    const long = 'x'.repeat(MCP_CONTEXT_MAX_CHARS + 10);
    const text = bound(long);
    assert.ok(text.startsWith('x'.repeat(MCP_CONTEXT_MAX_CHARS)));
    assert.match(text, /cut: 10 of 32778 characters left out/);
    assert.equal(bound('short'), 'short');
  });
});
