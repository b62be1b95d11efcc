import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { modelFromEnv } from '../../../src/cli/environment';
import { runChoreOnce } from '../../../src/cli/runChore';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import { McpServers } from '../../../src/core/mcp/mcpServers';
import { silentLogger, systemClock } from '../../../src/core/ports';
import { Redactor } from '../../../src/core/security/redact';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { startOAuthMcpServer } from '../../support/oauthMcpServer';
import type { OAuthMcpServer } from '../../support/oauthMcpServer';

const root = path.resolve(__dirname, '../../..');
const CLIENT = { clientId: 'ci-bot', clientSecret: 'cc-secret-7f3a9d2e' };

describe('mcp: the client credentials grant, with no person and no browser', function () {
  this.timeout(60_000);
  let oauthServer: OAuthMcpServer;
  const dirs: string[] = [];

  beforeEach(async () => {
    oauthServer = await startOAuthMcpServer({ clientCredentials: CLIENT });
  });
  afterEach(async () => {
    await oauthServer.close();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('signs in as the client with the secret the server is given, never asks a person, and says which variable is missing', async () => {
    const { servers: defs, problems } = parseMcpServers(
      {
        servers: {
          tracker: {
            type: 'http',
            url: oauthServer.url,
            oauth: { clientId: CLIENT.clientId, clientSecret: '${env:TASKLANE_SECRET_CC}', grant: 'client_credentials' },
          },
        },
      },
      'workspace',
    );
    assert.deepEqual(problems, []);
    const told: string[] = [];
    let secret: string | undefined = CLIENT.clientSecret;
    // No McpOAuth: headless, nobody could sign in; the grant needs nobody.
    const servers = new McpServers({
      definitions: () => defs,
      trusted: () => true,
      workspaceTrusted: () => true,
      cwd: root,
      clock: systemClock,
      logger: new MemoryLogger(),
      secretEnv: async (): Promise<Record<string, string>> => (secret ? { TASKLANE_SECRET_CC: secret } : {}),
      onSecret: (v) => told.push(v),
    });
    try {
      const ran = await servers.call('tracker', 'whoami', { greeting: 'hi' }, { timeoutMs: 10_000 });
      assert.equal(ran.error, undefined);
      assert.equal(ran.output, 'hi, client ci-bot');
      assert.deepEqual(oauthServer.provider.events, ['client_credentials']);
      assert.ok(told.includes(CLIENT.clientSecret), 'the secret is told to the redactor');
      assert.ok(
        told.some((v) => oauthServer.provider.access.has(v)),
        'and so is the access token',
      );

      await servers.stopAll();
      secret = undefined;
      const missing = await servers.call('tracker', 'whoami', {}, { timeoutMs: 10_000 });
      assert.match(missing.error ?? '', /signs in with no person, reading TASKLANE_SECRET_CC, which has no value: declare the secret CC under secrets:/);
    } finally {
      await servers.stopAll();
    }
  });

  it("a repository's definition may name a chore's secret, never another variable of the environment", () => {
    const oauth = (clientSecret: string) => ({
      type: 'http',
      url: 'https://mcp.example.com/mcp',
      oauth: { clientId: 'x', clientSecret, grant: 'client_credentials' },
    });
    const parsed = parseMcpServers({ servers: { a: oauth('${env:TASKLANE_SECRET_CC}'), b: oauth('${env:AWS_SECRET_ACCESS_KEY}') } }, 'workspace');
    assert.deepEqual(
      parsed.servers.map((s) => s.name),
      ['a'],
    );
    assert.match(parsed.problems[0]?.message ?? '', /may not read your environment \(\$\{env:AWS_SECRET_ACCESS_KEY\}\)/);
    const noSecret = parseMcpServers(
      { servers: { c: { type: 'http', url: 'https://mcp.example.com/mcp', oauth: { clientId: 'x', grant: 'client_credentials' } } } },
      'user',
    );
    assert.match(noSecret.problems[0]?.message ?? '', /client_credentials grant needs clientSecret or privateKey/);
  });

  describe('a chore run on the command line', () => {
    let model: ModelServer;
    before(async () => {
      model = await startModelServer();
    });
    after(async () => {
      await model.close();
    });

    it('uses a client-credentials server of mcp.json headless, its secret from the chore, and the model never sees it', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cc-'));
      dirs.push(dir);
      fs.mkdirSync(path.join(dir, '.vscode'));
      fs.mkdirSync(path.join(dir, '.tasklane'));
      fs.writeFileSync(
        path.join(dir, '.vscode/mcp.json'),
        JSON.stringify({
          servers: {
            tracker: {
              type: 'http',
              url: oauthServer.url,
              oauth: { clientId: CLIENT.clientId, clientSecret: '${env:TASKLANE_SECRET_TRACKER_CC}', grant: 'client_credentials' },
            },
          },
        }),
      );
      fs.writeFileSync(
        path.join(dir, '.tasklane/chores.yaml'),
        [
          'chores:',
          '  - id: triage',
          '    name: Triage',
          '    trigger: { cron: "0 2 * * *", timezone: UTC }',
          '    prompt: Ask the tracker who you are.',
          '    actionSets: [files]',
          `    successWhen: "status = 'done'"`,
          '    mcp:',
          '      tracker: { tools: [whoami], secrets: [tracker-cc] }',
          '',
        ].join('\n'),
      );
      model.script([
        { toolCalls: [{ name: 'mcp_tracker_whoami', arguments: { greeting: 'morning' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output: { status: 'done' } } }] },
      ]);
      const store = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cc-store-'));
      dirs.push(store);
      const { chores, diagnostics } = parseChoresFile(fs.readFileSync(path.join(dir, '.tasklane/chores.yaml'), 'utf8'));
      assert.deepEqual(
        diagnostics.filter((d) => d.severity === 'error'),
        [],
      );
      const env = {
        TASKLANE_MODEL_PROVIDER: 'openai-compatible',
        TASKLANE_MODEL_BASE_URL: model.openaiBaseUrl,
        TASKLANE_MODEL_ID: 'gpt-5-mini',
        OPENAI_API_KEY: 'k',
      };
      const { result, trace } = await runChoreOnce({
        workspace: dir,
        chore: chores[0]!,
        chores,
        model: modelFromEnv(env, silentLogger),
        secrets: (name) => (name === 'tracker-cc' ? CLIENT.clientSecret : undefined),
        redactor: new Redactor(),
        logger: silentLogger,
        storeDir: store,
        skillDirs: [path.join(root, 'skills')],
        env: { PATH: process.env.PATH ?? '' },
      });
      assert.equal(result.status, 'succeeded', JSON.stringify(result));
      assert.deepEqual(
        trace.map((s) => `${s.name}:${s.status}`),
        ['mcp_tracker_whoami:ok', 'task_end:ok'],
      );
      assert.match(JSON.stringify((model.requests[1]?.body as { messages: unknown[] }).messages.at(-1)), /morning, client ci-bot/);
      assert.deepEqual(oauthServer.provider.events, ['client_credentials']);
      assert.ok(!JSON.stringify(model.requests.map((r) => r.body)).includes(CLIENT.clientSecret));
    });
  });
});
