import * as assert from 'node:assert/strict';
import { parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import { McpOAuth } from '../../../src/core/mcp/mcpOAuth';
import type { McpSignInPort } from '../../../src/core/mcp/mcpOAuth';
import { McpServers } from '../../../src/core/mcp/mcpServers';
import { systemClock } from '../../../src/core/ports';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { startOAuthMcpServer } from '../../support/oauthMcpServer';
import type { OAuthMcpServer } from '../../support/oauthMcpServer';
import { MemorySecrets } from '../../fakes/memorySecrets';

/** SecretStorage as a map (VS Code's is the same three calls). */
const REDIRECT = 'vscode://tasklane.tasklane/mcp/oauth';

/**
 * The person and their browser: says yes (or no) to signing in, follows the authorization URL as
 * a browser would, and hands where it was sent back to the extension's URI handler.
 */
class Browser implements McpSignInPort {
  readonly asked: Array<{ server: string; url: URL; serverUrl?: string }> = [];
  answer = true;
  /** What reaches the URI handler instead of the real redirect (an attacker's rewrite). */
  tamper: (location: string) => string = (l) => l;
  deliver: (uri: string) => boolean = () => false;
  async redirectUri() {
    return REDIRECT;
  }
  async open(server: string, url: URL, serverUrl?: string): Promise<boolean> {
    this.asked.push({ server, url, serverUrl });
    if (!this.answer) return false;
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    assert.ok(location?.startsWith(REDIRECT), `the authorization server sent the browser to ${location}`);
    // The redirect arrives after the page was opened, as the URI handler's call would.
    setImmediate(() => assert.ok(this.deliver(this.tamper(location!))));
    return true;
  }
}

describe('mcp: remote servers that ask for OAuth', function () {
  this.timeout(30_000);
  let server: OAuthMcpServer;
  let secrets: MemorySecrets;
  let browser: Browser;
  let oauth: McpOAuth;
  let servers: McpServers;
  let logger: MemoryLogger;
  const told: string[] = [];

  beforeEach(async () => {
    server = await startOAuthMcpServer();
    secrets = new MemorySecrets();
    browser = new Browser();
    logger = new MemoryLogger();
    oauth = new McpOAuth({ secrets, signIn: browser, clock: systemClock, logger, onSecret: (v) => told.push(v) });
    browser.deliver = (uri) => oauth.deliver(uri);
    const { servers: defs } = parseMcpServers({ servers: { tracker: { type: 'http', url: server.url } } }, 'user');
    servers = new McpServers({ definitions: () => defs, trusted: () => true, workspaceTrusted: () => true, cwd: '/', clock: systemClock, logger, oauth });
  });

  afterEach(async () => {
    await servers.stopAll();
    await server.close();
  });

  it('refuses a redirect that names another issuer than the one the sign-in went to (RFC 9207), and takes the right one', async () => {
    browser.tamper = (location) => `${location}&iss=${encodeURIComponent('https://mix-up.example.com')}`;
    const refused = await servers.call('tracker', 'whoami', {}, { timeoutMs: 10_000 });
    assert.match(refused.error ?? '', /the sign-in was refused: the answer came from https:\/\/mix-up\.example\.com, not from http:\/\/127\.0\.0\.1:\d+\//);
    assert.deepEqual(server.provider.events, ['authorize'], 'no code was traded');
    await servers.stopAll();
    oauth.allowSignIn('tracker');
    const issuer = new URL(server.url).origin + '/';
    browser.tamper = (location) => `${location}&iss=${encodeURIComponent(issuer)}`;
    assert.match(await whoami('again'), /^again, client /);
  });

  const whoami = async (greeting: string) => {
    const result = await servers.call('tracker', 'whoami', { greeting }, { timeoutMs: 10_000 });
    assert.equal(result.error, undefined);
    return result.output;
  };

  it('signs in with the authorization code and PKCE, calls a tool, refreshes an expired token and signs out', async () => {
    // First use: the server answers 401, the person is asked, the browser signs in, the call goes through.
    assert.match(await whoami('hello'), /^hello, client [0-9a-f-]{36}$/);
    assert.equal(browser.asked.length, 1);
    const page = browser.asked[0]!.url;
    assert.equal(browser.asked[0]!.server, 'tracker');
    // The modal names where the token goes (review 2026-12c finding 11), not only the sign-in site.
    assert.equal(browser.asked[0]!.serverUrl, server.url);
    assert.equal(page.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(page.searchParams.get('code_challenge'));
    assert.equal(page.searchParams.get('redirect_uri'), REDIRECT);
    assert.ok(page.searchParams.get('state'));
    assert.deepEqual(server.provider.events, ['authorize', 'code']);
    assert.ok(server.statuses.includes(401));

    // The tokens are in the secret store, bound to this URL, and were told to the redactor; the log has none.
    const saved = JSON.parse(secrets.values.get('tasklane.mcp.oauth/tracker')!) as { url: string; tokens: { access_token: string; refresh_token: string } };
    assert.equal(saved.url, server.url);
    assert.ok(told.includes(saved.tokens.access_token) && told.includes(saved.tokens.refresh_token));
    assert.ok(!logger.lines.some((l) => l.includes(saved.tokens.access_token) || l.includes(saved.tokens.refresh_token)));
    assert.equal(await oauth.signedIn('tracker', server.url), true);
    assert.equal(await oauth.signedIn('tracker', 'https://elsewhere.example/mcp'), false, 'tokens never go to another URL');

    // Expired: the server answers 401 again and the SDK refreshes; the person is not asked.
    server.provider.expireAll();
    assert.match(await whoami('again'), /^again, client /);
    assert.deepEqual(server.provider.events, ['authorize', 'code', 'refresh']);
    assert.equal(browser.asked.length, 1);
    const refreshed = JSON.parse(secrets.values.get('tasklane.mcp.oauth/tracker')!) as { tokens: { access_token: string } };
    assert.notEqual(refreshed.tokens.access_token, saved.tokens.access_token);

    // A new window (a fresh McpServers over the same secret store) uses the saved tokens: no sign-in.
    await servers.stopAll();
    assert.match(await whoami('restarted'), /^restarted, client /);
    assert.equal(browser.asked.length, 1);

    // Sign out: the tokens are deleted and revoked at the server; the next use asks again.
    assert.equal(await servers.signOut('tracker'), true);
    assert.equal(secrets.values.has('tasklane.mcp.oauth/tracker'), false);
    assert.deepEqual(server.provider.events, ['authorize', 'code', 'refresh', 'revoke']);
    assert.match(await whoami('back'), /^back, client /);
    assert.equal(browser.asked.length, 2);
  });

  it('a declined sign-in fails the start with what to do, and is not asked again until the person signs in', async () => {
    browser.answer = false;
    const declined = await servers.call('tracker', 'whoami', {}, { timeoutMs: 10_000 });
    assert.match(declined.error ?? '', /you did not sign in to the MCP server tracker; run "Tasklane: Sign In to MCP Server"/);
    assert.equal(browser.asked.length, 1);
    assert.equal(servers.status()[0]?.state, 'crashed');
    browser.answer = true;
    await servers.signIn('tracker');
    assert.equal(browser.asked.length, 2);
    assert.match(await whoami('signed in'), /^signed in, client /);
  });

  it('a server that lets the client initialize and asks for a sign-in only to list its tools gets one', async () => {
    // As the conformance suite's scope scenarios do: initialize answers without a token, tools/list answers 401.
    await server.close();
    server = await startOAuthMcpServer({ open: ['initialize', 'notifications/initialized'] });
    const { servers: defs } = parseMcpServers({ servers: { tracker: { type: 'http', url: server.url } } }, 'user');
    servers = new McpServers({ definitions: () => defs, trusted: () => true, workspaceTrusted: () => true, cwd: '/', clock: systemClock, logger, oauth });
    await servers.startAll();
    assert.equal(browser.asked.length, 1);
    assert.deepEqual(server.provider.events, ['authorize', 'code']);
    assert.equal(servers.status()[0]?.state, 'ready');
    assert.match(await whoami('listed'), /^listed, client /);
    assert.equal(browser.asked.length, 1);
  });

  it('a redirect with a state no sign-in sent is ignored, and an error from the authorization server ends the sign-in', async () => {
    assert.equal(oauth.deliver(`${REDIRECT}?code=stolen&state=forged`), false);
    assert.equal(oauth.deliver('vscode://tasklane.tasklane/approve?id=1'), false);
    browser.open = async (name, url) => {
      browser.asked.push({ server: name, url });
      setImmediate(() => oauth.deliver(`${REDIRECT}?error=access_denied&error_description=nope&state=${url.searchParams.get('state')}`));
      return true;
    };
    const result = await servers.call('tracker', 'whoami', {}, { timeoutMs: 10_000 });
    assert.match(result.error ?? '', /the sign-in was not completed: access_denied \(nope\)/);
  });
  it('a client registered beforehand: its id from the definition, its secret from the environment, never registered or saved', async () => {
    server.provider.clients.set('pre-registered', {
      client_id: 'pre-registered',
      client_secret: 'the-app-secret',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    oauth = new McpOAuth({ secrets, signIn: browser, clock: systemClock, logger, env: (name) => (name === 'TRACKER_SECRET' ? 'the-app-secret' : undefined) });
    browser.deliver = (uri) => oauth.deliver(uri);
    const raw = { servers: { tracker: { type: 'http', url: server.url, oauth: { clientId: 'pre-registered', clientSecret: '${env:TRACKER_SECRET}' } } } };
    const { servers: defs, problems } = parseMcpServers(raw, 'user');
    assert.deepEqual(problems, []);
    servers = new McpServers({ definitions: () => defs, trusted: () => true, workspaceTrusted: () => true, cwd: '/', clock: systemClock, logger, oauth });
    assert.equal(await whoami('registered'), 'registered, client pre-registered');
    assert.ok(!server.requests.some((r) => r.startsWith('POST /register')), 'no dynamic registration');
    assert.ok(![...secrets.values.values()].some((v) => v.includes('the-app-secret')), 'the client secret is not saved');
  });

  it('a client secret in a definition is only ever a reference to the environment, and never from a repository', () => {
    const literal = parseMcpServers(
      { servers: { t: { type: 'http', url: 'https://x.example/mcp', oauth: { clientId: 'id', clientSecret: 'hunter2' } } } },
      'user',
    );
    assert.match(literal.problems[0]?.message ?? '', /oauth\.clientSecret: write "\$\{env:NAME\}"/);
    const fromRepo = parseMcpServers(
      { servers: { t: { type: 'http', url: 'https://x.example/mcp', oauth: { clientId: 'id', clientSecret: '${env:AWS_SECRET}' } } } },
      'workspace',
    );
    assert.match(fromRepo.problems[0]?.message ?? '', /a repository's .vscode\/mcp\.json may not read your environment/);
    const cimd = parseMcpServers(
      { servers: { t: { type: 'http', url: 'https://x.example/mcp', oauth: { clientId: 'https://app.example/client.json' } } } },
      'workspace',
    );
    const plain = parseMcpServers({ servers: { t: { type: 'http', url: 'https://x.example/mcp' } } }, 'workspace');
    assert.equal(cimd.servers[0]?.transport === 'http' && cimd.servers[0].oauth?.clientId, 'https://app.example/client.json');
    assert.notEqual(cimd.servers[0]?.hash, plain.servers[0]?.hash, 'consent binds to the OAuth client too');
  });
});
