/**
 * An OAuth-protected MCP server on localhost, built from the SDK's own server-side auth helpers:
 * `mcpAuthRouter` (metadata, dynamic registration, authorize, token, revoke) over an in-memory
 * provider, and `requireBearerAuth` in front of a stateless Streamable HTTP MCP server whose one
 * tool says which client called it. Methods named in `open` are answered without a token (a server
 * that lets a client initialize and asks for a sign-in only when it lists or calls tools). The provider approves every authorization at once (the test
 * plays the browser) and can expire every access token, so a refresh can be forced without waiting.
 */
import './insecureIssuer';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

interface Issued {
  clientId: string;
  expiresAt: number;
}

class MemoryProvider implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  private readonly codes = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams }>();
  readonly access = new Map<string, Issued>();
  readonly refresh = new Map<string, string>();
  /** What happened, in order: `authorize`, `code`, `refresh`, `revoke`. */
  readonly events: string[] = [];

  readonly clientsStore: OAuthRegisteredClientsStore = {
    getClient: (id) => this.clients.get(id),
    registerClient: (client) => {
      const full = { ...client, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) };
      this.clients.set(full.client_id, full);
      return full;
    },
  };

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: { redirect(url: string): void }): Promise<void> {
    this.events.push('authorize');
    const code = randomUUID();
    this.codes.set(code, { client, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(target.toString());
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const entry = this.codes.get(code);
    if (!entry) throw new InvalidGrantError('unknown code');
    return entry.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const entry = this.codes.get(code);
    if (!entry || entry.client.client_id !== client.client_id) throw new InvalidGrantError('unknown code');
    this.codes.delete(code);
    this.events.push('code');
    return this.issue(client.client_id);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    if (this.refresh.get(refreshToken) !== client.client_id) throw new InvalidGrantError('unknown refresh token');
    this.refresh.delete(refreshToken);
    this.events.push('refresh');
    return this.issue(client.client_id);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const issued = this.access.get(token);
    if (!issued) throw new InvalidTokenError('unknown token');
    return { token, clientId: issued.clientId, scopes: [], expiresAt: issued.expiresAt };
  }

  async revokeToken(_client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    this.events.push('revoke');
    this.refresh.delete(request.token);
    this.access.delete(request.token);
  }

  /** Every access token given so far is now past its expiry. */
  expireAll(): void {
    for (const issued of this.access.values()) issued.expiresAt = Math.floor(Date.now() / 1000) - 60;
  }

  /** @internal Tokens for `clientId` (the client credentials grant below issues them too). */
  issue(clientId: string): OAuthTokens {
    const access = randomUUID();
    const refresh = randomUUID();
    this.access.set(access, { clientId, expiresAt: Math.floor(Date.now() / 1000) + 3600 });
    this.refresh.set(refresh, clientId);
    return { access_token: access, token_type: 'bearer', expires_in: 3600, refresh_token: refresh };
  }
}

/**
 * The RFC 7523 JWT-bearer grant (SEP-990's second step): this client, by client_secret_basic only
 * (as the authorization server's metadata then says), with an assertion `accept` approves, given
 * this server's issuer and MCP resource to check it against.
 */
export interface JwtBearerClient {
  clientId: string;
  clientSecret: string;
  accept(assertion: string, issuer: string, resource: string): boolean;
}

export interface OAuthMcpServer {
  /** The MCP endpoint. */
  url: string;
  provider: MemoryProvider;
  /** Requests to the MCP endpoint, with the status they got. */
  statuses: number[];
  /** Every request to the server (MCP endpoint, metadata, authorization, token), as `METHOD path status`. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * `host` is the loopback address it listens on (default 127.0.0.1). Another one of 127.0.0.0/8
 * serves a test in VS Code for the web: the workbench forwards ports of localhost and 127.0.0.1
 * only, and re-encodes the query of a URL it forwards, which mangles an authorization URL.
 */
export async function startOAuthMcpServer(
  options: { open?: string[]; host?: string; clientCredentials?: { clientId: string; clientSecret: string }; jwtBearer?: JwtBearerClient } = {},
): Promise<OAuthMcpServer> {
  const host = options.host ?? '127.0.0.1';
  const open = new Set(options.open ?? []);
  const provider = new MemoryProvider();
  const statuses: number[] = [];
  const requests: string[] = [];
  const app = createMcpExpressApp({ host, ...(host === '127.0.0.1' ? {} : { allowedHosts: [host] }) });
  const listener = await new Promise<Server>((resolve) => {
    const server = app.listen(0, host, () => resolve(server));
  });
  // On the HTTP server, so a request the app refuses early (a Host it does not accept) is seen too.
  listener.on('request', (req: IncomingMessage, res: ServerResponse) =>
    res.on('finish', () => requests.push(`${req.method} ${((req as { originalUrl?: string }).originalUrl ?? req.url ?? '').split('?')[0]} ${res.statusCode}`)),
  );
  const base = `http://${host}:${(listener.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  const machine = options.clientCredentials ?? options.jwtBearer;
  const grant = options.jwtBearer ? 'urn:ietf:params:oauth:grant-type:jwt-bearer' : 'client_credentials';
  if (options.jwtBearer) {
    // The metadata an enterprise-managed authorization server publishes: the JWT-bearer grant, Basic authentication.
    app.get('/.well-known/oauth-authorization-server', (_req: unknown, res: { json(v: unknown): void }) =>
      res.json({
        issuer: `${base}/`,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        response_types_supported: ['code'],
        grant_types_supported: [grant],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      }),
    );
  }
  if (machine) {
    // The client credentials grant (SEP-1046), which the SDK's token handler does not serve: the
    // client's id and secret, by client_secret_basic or client_secret_post, for an access token.
    type Reply = { status(n: number): Reply; json(v: unknown): void };
    app.post('/token', (req: IncomingMessage, res: Reply, next: () => void) => {
      // Read here, not by a body parser: one that consumed the stream would leave none for the SDK's handler.
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        if (body.get('grant_type') !== grant) {
          // Not this grant: give the SDK's handler the body, marked as parsed (body-parser's own flag).
          Object.assign(req, { body: Object.fromEntries(body), _body: true });
          return next();
        }
        provider.events.push(options.jwtBearer ? 'jwt_bearer' : 'client_credentials');
        const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const [id, secret] = basic
          ? Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent)
          : options.jwtBearer
            ? []
            : [body.get('client_id'), body.get('client_secret')];
        if (id !== machine.clientId || secret !== machine.clientSecret) return res.status(401).json({ error: 'invalid_client' });
        if (options.jwtBearer && !options.jwtBearer.accept(body.get('assertion') ?? '', `${base}/`, mcpUrl.toString()))
          return res.status(400).json({ error: 'invalid_grant', error_description: 'the assertion is not an ID-JAG for this server' });
        const { refresh_token: _unused, ...tokens } = provider.issue(machine.clientId);
        return res.json(tokens);
      });
    });
  }
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl, resourceName: 'test server' }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.all('/mcp', (_req: unknown, res: { on(e: string, f: () => void): void; statusCode: number }, next: () => void) => {
    res.on('finish', () => statuses.push(res.statusCode));
    next();
  });
  const bearerUnlessOpen = (req: { body?: { method?: unknown } }, res: never, next: () => void) =>
    open.has(String(req.body?.method)) ? next() : (bearer as (req: unknown, res: unknown, next: () => void) => void)(req, res, next);
  app.post('/mcp', bearerUnlessOpen, async (req: { auth?: AuthInfo; body: unknown }, res: never) => {
    const server = new McpServer({ name: 'oauth-test', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Says which OAuth client called', inputSchema: { greeting: z.string().optional() } }, (args, extra) => ({
      content: [{ type: 'text', text: `${args.greeting ?? 'hello'}, client ${extra.authInfo?.clientId ?? 'nobody'}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(req as never, res, req.body);
  });
  app.get('/mcp', bearer, (_req: unknown, res: { status(n: number): { end(): void } }) => res.status(405).end());
  app.delete('/mcp', bearer, (_req: unknown, res: { status(n: number): { end(): void } }) => res.status(405).end());
  return {
    url: mcpUrl.toString(),
    provider,
    statuses,
    requests,
    close: () => new Promise<void>((resolve) => listener.close(() => resolve())),
  };
}
