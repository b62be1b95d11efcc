import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { MemoryLogger } from '../../fakes/memoryLogger';
import { startOAuthMcpServer } from '../../support/oauthMcpServer';
import type { OAuthMcpServer } from '../../support/oauthMcpServer';

const CLIENT = { clientId: 'xaa-bot', clientSecret: 'xaa-secret-5d1c8e' };
const ID_TOKEN = 'eyJ.ci-oidc-id-token.4b7e';
const IDP_CLIENT = 'tasklane-at-idp';

/** An enterprise IdP's RFC 8693 endpoint: records each exchange and mints an ID-JAG for the ID token it issued. */
async function startIdp() {
  const exchanges: Record<string, string>[] = [];
  const minted = new Map<string, { audience: string; resource: string }>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      exchanges.push(body);
      res.setHeader('Content-Type', 'application/json');
      if (body.subject_token !== ID_TOKEN) {
        res.statusCode = 400;
        return res.end(JSON.stringify({ error: 'invalid_grant', error_description: 'Invalid ID token' }));
      }
      const jag = `jag-${randomUUID()}`;
      minted.set(jag, { audience: body.audience ?? '', resource: body.resource ?? '' });
      res.end(JSON.stringify({ access_token: jag, issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`,
    exchanges,
    minted,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('mcp: enterprise-managed authorization (SEP-990), an ID token traded for an ID-JAG', function () {
  this.timeout(60_000);
  let idp: Awaited<ReturnType<typeof startIdp>>;
  let as: OAuthMcpServer;

  beforeEach(async () => {
    idp = await startIdp();
    as = await startOAuthMcpServer({
      jwtBearer: {
        ...CLIENT,
        // The authorization server takes only an ID-JAG the IdP minted for it and for this MCP server.
        accept: (assertion, issuer, resource) => {
          const jag = idp.minted.get(assertion);
          return jag?.audience === issuer && jag.resource === resource;
        },
      },
    });
  });
  afterEach(async () => {
    await as.close();
    await idp.close();
  });

  function serversFor(secrets: () => Record<string, string>, logger = new MemoryLogger(), told: string[] = []) {
    const { servers: defs, problems } = parseMcpServers(
      {
        servers: {
          tracker: {
            type: 'http',
            url: as.url,
            oauth: {
              grant: 'token_exchange',
              clientId: CLIENT.clientId,
              clientSecret: '${env:TASKLANE_SECRET_XAA}',
              idpTokenEndpoint: idp.url,
              idpClientId: IDP_CLIENT,
              idToken: '${env:TASKLANE_SECRET_OIDC}',
            },
          },
        },
      },
      'workspace',
    );
    assert.deepEqual(problems, []);
    return new McpServers({
      definitions: () => defs,
      trusted: () => true,
      workspaceTrusted: () => true,
      cwd: process.cwd(),
      clock: systemClock,
      logger,
      secretEnv: async () => secrets(),
      onSecret: (v) => told.push(v),
    });
  }

  it('exchanges at the IdP with every parameter, signs in with Basic and the ID-JAG, and tells every token to the redactor', async () => {
    const logger = new MemoryLogger();
    const told: string[] = [];
    const servers = serversFor(() => ({ TASKLANE_SECRET_XAA: CLIENT.clientSecret, TASKLANE_SECRET_OIDC: ID_TOKEN }), logger, told);
    try {
      const ran = await servers.call('tracker', 'whoami', { greeting: 'hi' }, { timeoutMs: 10_000 });
      assert.equal(ran.error, undefined);
      assert.equal(ran.output, 'hi, client xaa-bot');
      assert.equal(idp.exchanges.length, 1);
      assert.deepEqual(idp.exchanges[0], {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
        subject_token: ID_TOKEN,
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        // The discovered authorization server's issuer and the MCP server's resource.
        audience: new URL(as.url).origin + '/',
        resource: as.url,
        client_id: IDP_CLIENT,
      });
      assert.deepEqual(as.provider.events, ['jwt_bearer']);

      const jag = [...idp.minted.keys()][0]!;
      const access = [...as.provider.access.keys()][0]!;
      for (const secret of [CLIENT.clientSecret, ID_TOKEN, jag, access]) assert.ok(told.includes(secret), `told the redactor ${secret.slice(0, 6)}…`);
      const redactor = new Redactor();
      for (const value of told) redactor.addSecret(value);
      assert.doesNotMatch(redactor.redact(`Bearer ${access} from ${jag} for ${ID_TOKEN}`), new RegExp(`${access}|${jag}|${ID_TOKEN.replace(/\./g, '\\.')}`));
      assert.ok(!logger.lines.some((line) => [access, jag, ID_TOKEN].some((s) => line.includes(s))), 'no log line carries a token');
    } finally {
      await servers.stopAll();
    }
  });

  it('a wrong client secret is refused by the authorization server and the server does not start', async () => {
    const servers = serversFor(() => ({ TASKLANE_SECRET_XAA: 'not-the-secret', TASKLANE_SECRET_OIDC: ID_TOKEN }));
    try {
      const ran = await servers.call('tracker', 'whoami', {}, { timeoutMs: 10_000 });
      assert.match(ran.error ?? '', /could not start/);
      // The SDK tries once more after invalid_client; both are refused.
      assert.ok(as.provider.events.length >= 1 && as.provider.events.every((e) => e === 'jwt_bearer'), as.provider.events.join());
      assert.equal(as.provider.access.size, 0, 'no access token issued');
    } finally {
      await servers.stopAll();
    }
  });

  it('an ID token the IdP refuses, or none at all, ends the start saying what to set', async () => {
    let secrets: Record<string, string> = { TASKLANE_SECRET_XAA: CLIENT.clientSecret, TASKLANE_SECRET_OIDC: 'stale-token' };
    const servers = serversFor(() => secrets);
    try {
      const refused = await servers.call('tracker', 'whoami', {}, { timeoutMs: 10_000 });
      assert.match(refused.error ?? '', /refused to exchange the ID token in TASKLANE_SECRET_OIDC for an ID-JAG: invalid_grant \(Invalid ID token\)/);
      assert.deepEqual(as.provider.events, [], 'nothing reached the authorization server');
      await servers.stopAll();
      secrets = { TASKLANE_SECRET_XAA: CLIENT.clientSecret };
      const missing = await servers.call('tracker', 'whoami', {}, { timeoutMs: 10_000 });
      assert.match(missing.error ?? '', /reading TASKLANE_SECRET_OIDC, which has no value: declare the secret OIDC under secrets:/);
    } finally {
      await servers.stopAll();
    }
  });

  it('a definition names the IdP, the ID token and the secret by reference; a repository may not read the environment', () => {
    const def = (oauth: Record<string, unknown>) => ({
      type: 'http',
      url: 'https://mcp.example.com/mcp',
      oauth: { clientId: 'x', grant: 'token_exchange', ...oauth },
    });
    const full = { clientSecret: '${env:TASKLANE_SECRET_S}', idToken: '${env:TASKLANE_SECRET_T}', idpTokenEndpoint: 'https://idp.example.com/token' };
    const parsed = parseMcpServers(
      {
        servers: {
          ok: def(full),
          envToken: def({ ...full, idToken: '${env:ACTIONS_ID_TOKEN}' }),
          literal: def({ ...full, idToken: 'eyJhbGciOi' }),
          plainHttp: def({ ...full, idpTokenEndpoint: 'http://idp.example.com/token' }),
          noIdp: def({ clientSecret: full.clientSecret, idToken: full.idToken }),
        },
      },
      'workspace',
    );
    assert.deepEqual(
      parsed.servers.map((s) => s.name),
      ['ok'],
    );
    const why = Object.fromEntries(parsed.problems.map((p) => [p.name, p.message]));
    assert.match(why.envToken ?? '', /may not read your environment \(\$\{env:ACTIONS_ID_TOKEN\}\)/);
    assert.match(why.literal ?? '', /oauth.idToken: write "\$\{env:NAME\}"/);
    assert.match(why.plainHttp ?? '', /must be https/);
    assert.match(why.noIdp ?? '', /token_exchange grant needs idpTokenEndpoint, idToken/);
    // In the person's own settings, a CI's OIDC token in the environment is fine.
    assert.deepEqual(parseMcpServers({ servers: { ci: def({ ...full, idToken: '${env:ACTIONS_ID_TOKEN}' }) } }, 'user').problems, []);
  });

  it('a chore on the command line reaches such a server of mcp.json headless, both values from its secrets', async () => {
    const model = await startModelServer();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-xaa-'));
    try {
      fs.mkdirSync(path.join(dir, '.vscode'));
      fs.mkdirSync(path.join(dir, '.tasklane'));
      const oauth = {
        grant: 'token_exchange',
        clientId: CLIENT.clientId,
        clientSecret: '${env:TASKLANE_SECRET_TRACKER_XAA}',
        idpTokenEndpoint: idp.url,
        idToken: '${env:TASKLANE_SECRET_CI_OIDC}',
      };
      fs.writeFileSync(path.join(dir, '.vscode/mcp.json'), JSON.stringify({ servers: { tracker: { type: 'http', url: as.url, oauth } } }));
      const chores = [
        'chores:',
        '  - id: triage',
        '    name: Triage',
        '    trigger: { cron: "0 2 * * *", timezone: UTC }',
        '    prompt: Ask the tracker who you are.',
        '    actionSets: [files]',
        `    successWhen: "status = 'done'"`,
        '    mcp:',
        '      tracker: { tools: [whoami], secrets: [tracker-xaa, ci-oidc] }',
        '',
      ].join('\n');
      model.script([
        { toolCalls: [{ name: 'mcp_tracker_whoami', arguments: { greeting: 'morning' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output: { status: 'done' } } }] },
      ]);
      const parsed = parseChoresFile(chores);
      const given: Record<string, string> = { 'tracker-xaa': CLIENT.clientSecret, 'ci-oidc': ID_TOKEN };
      const { result, trace } = await runChoreOnce({
        workspace: dir,
        chore: parsed.chores[0]!,
        chores: parsed.chores,
        model: modelFromEnv(
          { TASKLANE_MODEL_PROVIDER: 'openai-compatible', TASKLANE_MODEL_BASE_URL: model.openaiBaseUrl, TASKLANE_MODEL_ID: 'gpt-5-mini', OPENAI_API_KEY: 'k' },
          silentLogger,
        ),
        secrets: (name) => given[name],
        redactor: new Redactor(),
        logger: silentLogger,
        storeDir: path.join(dir, 'store'),
        skillDirs: [path.resolve(__dirname, '../../../skills')],
        env: { PATH: process.env.PATH ?? '' },
      });
      assert.equal(result.status, 'succeeded', JSON.stringify(result));
      assert.deepEqual(
        trace.map((step) => `${step.name}:${step.status}`),
        ['mcp_tracker_whoami:ok', 'task_end:ok'],
      );
      assert.deepEqual(as.provider.events, ['jwt_bearer']);
      const sent = JSON.stringify(model.requests.map((r) => r.body));
      assert.match(sent, /morning, client xaa-bot/);
      assert.ok(!sent.includes(ID_TOKEN) && !sent.includes(CLIENT.clientSecret), 'the model never sees the ID token or the secret');
    } finally {
      await model.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
