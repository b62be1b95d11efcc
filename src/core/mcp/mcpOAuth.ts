/**
 * Signing in to remote (HTTP) MCP servers with OAuth: the SDK's client auth provider
 * (`OAuthClientProvider`) does discovery, dynamic client registration, the authorization code
 * flow with PKCE, the token exchange and the refresh; this module keeps what it saves and brings
 * the browser's answer back. Per server, the registration and the tokens live in one entry of
 * the host's secret store (VS Code's SecretStorage), bound to the server's URL: tokens saved for
 * one URL are never sent to another. Nothing of them is logged, and each token is told to the
 * redactor. A sign-in is started by a server answering 401 and always asks the person before the
 * browser opens; the redirect comes back through the host's URI handler (`deliver`), matched by
 * the `state` this module made.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Clock, Logger } from '../ports';
import type { McpOAuthClient } from './mcpConfig';

/** Where sign-in state is kept: the host's secret store (SecretStorage in VS Code, a map in tests). */
export interface McpSecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

/** The person's side of a sign-in. */
export interface McpSignInPort {
  /** Where the browser is sent back to: the extension's URI handler, as the browser can reach it. */
  redirectUri(): Promise<string>;
  /**
   * Asks the person whether to sign in to `server` (naming `serverUrl`, where the token will be
   * sent, and the site that will ask for their credentials) and opens `authorizationUrl` in their
   * browser; false when they said no.
   */
  open(server: string, authorizationUrl: URL, serverUrl?: string): Promise<boolean>;
}

export interface McpOAuthDeps {
  secrets: McpSecretStore;
  signIn: McpSignInPort;
  clock: Clock;
  logger: Logger;
  /** Told each token as it is read or saved, so no trace, log or payload can carry it. */
  onSecret?: (value: string) => void;
  /** How long a sign-in waits for the browser to come back (default 5 minutes). */
  redirectTimeoutMs?: number;
  /** Reads the environment variable a definition names for a client secret (default: this process's). */
  env?: (name: string) => string | undefined;
}

/** What one server's entry in the secret store holds. */
interface SavedAuth {
  /** The server URL this was obtained for. */
  url: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  discovery?: OAuthDiscoveryState;
}

const KEY_PREFIX = 'tasklane.mcp.oauth/';
const PATH = '/mcp/oauth';

/** Thrown when a server needs a sign-in the person did not give (declined, or no browser came back). */
export class McpSignInNeeded extends Error {}

export class McpOAuth {
  /** Sign-ins waiting for the browser, by the `state` they sent. */
  private readonly waiting = new Map<string, { resolve(code: string): void; reject(error: Error): void; issuer?: Issuer }>();
  /** Servers whose sign-in the person declined in this window: not asked again until they sign in by command. */
  private readonly declined = new Set<string>();

  constructor(private readonly deps: McpOAuthDeps) {}

  /** The redirect path the host's URI handler routes here. */
  static readonly path = PATH;

  /** A provider for one server's transport, with the redirect URI resolved; `client` is the definition's own OAuth client. */
  async provider(server: string, url: string, client?: McpOAuthClient): Promise<ServerOAuth> {
    return new ServerOAuth(this, server, url, await this.deps.signIn.redirectUri(), client);
  }

  /** @internal A pre-registered client's secret, read from the variable its definition names; throws naming a missing one. */
  clientSecret(server: string, variable: string): string {
    const value = (this.deps.env ?? ((name) => process.env[name]))(variable);
    if (!value) throw new McpSignInNeeded(`the MCP server ${server} signs in with a client secret from the environment variable ${variable}, which is not set`);
    this.deps.onSecret?.(value);
    return value;
  }

  /** Whether tokens are saved for `server` (at `url`). */
  async signedIn(server: string, url: string): Promise<boolean> {
    return (await this.load(server, url)).tokens !== undefined;
  }

  /**
   * Forgets the server's tokens and registration (and tries to revoke the refresh token where the
   * authorization server offers revocation). The next use signs in again.
   */
  async signOut(server: string): Promise<boolean> {
    const raw = await this.deps.secrets.get(KEY_PREFIX + server);
    this.declined.delete(server);
    if (raw === undefined) return false;
    await this.deps.secrets.delete(KEY_PREFIX + server);
    this.deps.logger.info('HOST', `MCP server ${server}: signed out (its tokens were deleted)`);
    await this.revoke(server, raw);
    return true;
  }

  /** Lets a server whose sign-in was declined ask again (the person chose Sign In). */
  allowSignIn(server: string): void {
    this.declined.delete(server);
  }

  /**
   * The browser came back to the URI handler. True when it answered a sign-in of this window;
   * the authorization server's error, if any, ends that sign-in with its words.
   */
  deliver(uri: string): boolean {
    let parsed: URL;
    try {
      parsed = new URL(uri);
    } catch {
      return false;
    }
    if (parsed.pathname !== PATH) return false;
    const state = parsed.searchParams.get('state') ?? '';
    const pending = this.waiting.get(state);
    if (!pending) {
      this.deps.logger.warn('HOST', 'an MCP sign-in redirect arrived that no sign-in of this window is waiting for; ignored');
      return false;
    }
    this.waiting.delete(state);
    const wrongIssuer = issuerProblem(pending.issuer, parsed.searchParams.get('iss'));
    if (wrongIssuer) {
      pending.reject(new McpSignInNeeded(`the sign-in was refused: ${wrongIssuer}`));
      return true;
    }
    const code = parsed.searchParams.get('code');
    const error = parsed.searchParams.get('error');
    if (code && !error) pending.resolve(code);
    else pending.reject(new McpSignInNeeded(`the sign-in was not completed: ${error ?? 'no code'}${describe(parsed.searchParams.get('error_description'))}`));
    return true;
  }

  /** @internal Asks the person, opens the browser and waits for the redirect; the code it carried. */
  async authorize(server: string, authorizationUrl: URL, serverUrl?: string, issuer?: Issuer): Promise<string> {
    if (this.declined.has(server)) throw new McpSignInNeeded(`the MCP server ${server} needs you to sign in; run "Tasklane: Sign In to MCP Server" to do it`);
    if (!safeAuthorizationUrl(authorizationUrl))
      throw new McpSignInNeeded(`the MCP server ${server} sent a sign-in page that is not https (${authorizationUrl.origin}); it was not opened`);
    const state = authorizationUrl.searchParams.get('state');
    if (!state) throw new McpSignInNeeded('the sign-in request carries no state; it was not opened');
    const code = new Promise<string>((resolve, reject) => this.waiting.set(state, { resolve, reject, ...(issuer ? { issuer } : {}) }));
    // Settled by the timer or the person's no as well: nothing may be left unhandled.
    code.catch(() => undefined);
    const ms = this.deps.redirectTimeoutMs ?? 5 * 60_000;
    const timer = this.deps.clock.setTimeout(() => this.fail(state, `no sign-in came back from the browser within ${Math.round(ms / 1000)} s`), ms);
    try {
      if (!(await this.deps.signIn.open(server, authorizationUrl, serverUrl))) {
        this.declined.add(server);
        this.fail(state, `you did not sign in to the MCP server ${server}; run "Tasklane: Sign In to MCP Server" to do it`);
      }
      return await code;
    } finally {
      timer.cancel();
      this.waiting.delete(state);
    }
  }

  private fail(state: string, message: string): void {
    this.waiting.get(state)?.reject(new McpSignInNeeded(message));
    this.waiting.delete(state);
  }

  /** @internal */
  async load(server: string, url: string): Promise<SavedAuth> {
    const raw = await this.deps.secrets.get(KEY_PREFIX + server);
    if (raw === undefined) return { url };
    try {
      const saved = JSON.parse(raw) as SavedAuth;
      // Saved for another URL (the definition was edited): none of it is sent to this one.
      if (saved.url !== url) return { url };
      this.tell(saved.tokens);
      return saved;
    } catch {
      return { url };
    }
  }

  /** @internal */
  async save(server: string, url: string, change: (saved: SavedAuth) => SavedAuth): Promise<void> {
    const next = change(await this.load(server, url));
    this.tell(next.tokens);
    await this.deps.secrets.store(KEY_PREFIX + server, JSON.stringify(next));
  }

  private tell(tokens: OAuthTokens | undefined): void {
    if (!tokens) return;
    for (const value of [tokens.access_token, tokens.refresh_token, tokens.id_token]) if (value) this.deps.onSecret?.(value);
  }

  /** Best effort (RFC 7009): a server without a revocation endpoint, or one that fails, still ends signed out here. */
  private async revoke(server: string, raw: string): Promise<void> {
    try {
      const saved = JSON.parse(raw) as SavedAuth;
      const endpoint = (saved.discovery?.authorizationServerMetadata as { revocation_endpoint?: string } | undefined)?.revocation_endpoint;
      const token = saved.tokens?.refresh_token ?? saved.tokens?.access_token;
      if (!endpoint || !token || !saved.client) return;
      const body = new URLSearchParams({
        token,
        token_type_hint: saved.tokens?.refresh_token ? 'refresh_token' : 'access_token',
        client_id: saved.client.client_id,
      });
      if (saved.client.client_secret) body.set('client_secret', saved.client.client_secret);
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      this.deps.logger.info('HOST', `MCP server ${server}: token revocation answered ${response.status}`);
    } catch (error) {
      this.deps.logger.warn(
        'HOST',
        `MCP server ${server}: could not revoke its token (${error instanceof Error ? error.message : String(error)}); it was deleted here`,
      );
    }
  }
}

/** https, or http only to this machine (a server under development): localhost, 127.0.0.0/8, [::1]. */
function safeAuthorizationUrl(url: URL): boolean {
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && (['localhost', '[::1]'].includes(url.hostname) || /^127(\.\d{1,3}){3}$/.test(url.hostname));
}

/** An https URL with a path: what a client ID metadata document's id is (SEP-991). */
function isMetadataDocumentUrl(id: string): boolean {
  try {
    const url = new URL(id);
    return url.protocol === 'https:' && url.pathname !== '/';
  } catch {
    return false;
  }
}

/** The authorization server the sign-in went to, and whether it said it names itself in the redirect. */
interface Issuer {
  issuer: string;
  required: boolean;
}

/**
 * RFC 9207 (SEP-2468): a redirect naming another issuer than the one the sign-in went to is a
 * mix-up attack, and one without `iss` from a server that promised it is refused too.
 */
export function issuerProblem(expected: Issuer | undefined, iss: string | null): string | undefined {
  if (!expected) return undefined;
  if (iss === null) return expected.required ? `the authorization server ${expected.issuer} names itself in its answers, and this one did not` : undefined;
  return iss === expected.issuer ? undefined : `the answer came from ${iss.slice(0, 200)}, not from ${expected.issuer}, where the sign-in went`;
}

function describe(text: string | null): string {
  return text ? ` (${text.slice(0, 200)})` : '';
}

/**
 * The SDK's view of one server's sign-in. The SDK calls these while it connects or refreshes;
 * `redirectToAuthorization` only records the page, and the connection runs `authorize` (the
 * person is asked there, not inside the SDK's request).
 */
export class ServerOAuth implements OAuthClientProvider {
  private verifier: string | undefined;
  private pendingUrl: URL | undefined;

  constructor(
    private readonly owner: McpOAuth,
    readonly server: string,
    private readonly url: string,
    private readonly redirect: string,
    private readonly client?: McpOAuthClient,
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }

  /**
   * A client ID metadata document (the definition's `oauth.clientId` is its https URL): the SDK
   * uses it as the client id where the authorization server says it accepts them, and registers
   * dynamically elsewhere.
   */
  get clientMetadataUrl(): string | undefined {
    return this.client && isMetadataDocumentUrl(this.client.clientId) ? this.client.clientId : undefined;
  }

  /** A client registered beforehand (the definition's `oauth.clientId`, not a URL). */
  private get preRegistered(): McpOAuthClient | undefined {
    return this.client && !isMetadataDocumentUrl(this.client.clientId) ? this.client : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    // The SDK's type predates `application_type`; the registration request carries it as written.
    return {
      client_name: 'Tasklane (VS Code)',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // An editor on the person's machine, with a custom-scheme redirect (SEP-837): the
      // authorization server then allows that redirect and issues no secret it could not keep.
      application_type: 'native',
    } as OAuthClientMetadata;
  }

  state(): string {
    return randomBytes(24).toString('base64url');
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    // Registered beforehand: its id from the definition, its secret from the environment, each time (never saved here).
    const own = this.preRegistered;
    if (own) {
      const secret = own.clientSecretEnv ? this.owner.clientSecret(this.server, own.clientSecretEnv) : undefined;
      return { client_id: own.clientId, ...(secret ? { client_secret: secret } : {}) };
    }
    const client = (await this.owner.load(this.server, this.url)).client;
    // Registered for another redirect (another editor build, a remote window): register again.
    const uris = (client as { redirect_uris?: string[] } | undefined)?.redirect_uris;
    return client && (!uris || uris.includes(this.redirect)) ? client : undefined;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    if (this.preRegistered) return;
    await this.owner.save(this.server, this.url, (saved) => ({ ...saved, client }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.owner.load(this.server, this.url)).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.owner.save(this.server, this.url, (saved) => ({ ...saved, tokens }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.owner.load(this.server, this.url)).discovery;
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.owner.save(this.server, this.url, (saved) => ({ ...saved, discovery }));
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.pendingUrl = authorizationUrl;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no sign-in is under way for this server');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    await this.owner.save(this.server, this.url, (saved) => ({
      url: saved.url,
      ...(scope !== 'all' && scope !== 'client' && saved.client ? { client: saved.client } : {}),
      ...(scope !== 'all' && scope !== 'tokens' && saved.tokens ? { tokens: saved.tokens } : {}),
      ...(scope !== 'all' && scope !== 'discovery' && saved.discovery ? { discovery: saved.discovery } : {}),
    }));
  }

  /** The sign-in page the SDK asked for, once: the connection asks the person about it. */
  takeAuthorizationUrl(): URL | undefined {
    const url = this.pendingUrl;
    this.pendingUrl = undefined;
    return url;
  }

  /** Asks the person and waits for the browser: the authorization code. */
  async authorize(authorizationUrl: URL): Promise<string> {
    const metadata = (await this.owner.load(this.server, this.url)).discovery?.authorizationServerMetadata as
      { issuer?: string; authorization_response_iss_parameter_supported?: boolean } | undefined;
    const issuer = metadata?.issuer ? { issuer: metadata.issuer, required: metadata.authorization_response_iss_parameter_supported === true } : undefined;
    // The server's own address names who receives the token in the sign-in modal; the issuer is checked on the redirect.
    return this.owner.authorize(this.server, authorizationUrl, this.url, issuer);
  }
}
