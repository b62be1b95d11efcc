/**
 * Enterprise-managed authorization (SEP-990, "cross-app access"), for a server a chore uses with
 * no person: an ID token the environment already holds (a CI's OIDC token, or one a person put in
 * the chore's secrets) is traded at the enterprise IdP for an ID-JAG (RFC 8693 token exchange),
 * and the ID-JAG at the MCP server's authorization server for an access token (RFC 7523
 * JWT-bearer grant, the client authenticating with its secret). SDK 1.32.2 has no provider for
 * it; the SDK still does the discovery, the client authentication and the token request: this
 * provider only says which grant to send (`prepareTokenRequest`), after the exchange at the IdP.
 * The authorization server's issuer and the MCP server's resource come from that discovery, so
 * the ID-JAG is minted for exactly the server being reached.
 */
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';

export interface IdJagOptions {
  /** The server's name, for errors. */
  server: string;
  /** The MCP server's URL: the resource when its metadata names none. */
  serverUrl: string;
  /** The client at the authorization server (client_secret_basic, or what the server advertises). */
  clientId: string;
  clientSecret: string;
  /** The authorization server the client was registered with (`oauth.issuer`): the secret is sent to no other. */
  issuer?: string;
  /** The IdP's RFC 8693 token endpoint, and Tasklane's client id there when it wants one. */
  idpTokenEndpoint: string;
  idpClientId?: string;
  /** The ID token to trade, read at each start; `idTokenSource` says where, for errors. */
  idToken: string;
  idTokenSource: string;
  /** Told the ID-JAG and the access token, so no log or trace carries them. */
  onSecret?: (value: string) => void;
  fetch?: typeof fetch;
}

/** The SDK's provider for the SEP-990 grant: no redirect (a non-interactive flow), tokens in memory. */
export class IdJagProvider implements OAuthClientProvider {
  private tokensValue: OAuthTokens | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  private info: OAuthClientInformationMixed;

  constructor(private readonly options: IdJagOptions) {
    this.info = { client_id: options.clientId, client_secret: options.clientSecret, ...(options.issuer ? { issuer: options.issuer } : {}) };
  }

  get redirectUrl(): undefined {
    return undefined;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Tasklane', redirect_uris: [], grant_types: [JWT_BEARER_GRANT], token_endpoint_auth_method: 'client_secret_basic' };
  }
  clientInformation(): OAuthClientInformationMixed {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.tokensValue;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.options.onSecret?.(tokens.access_token);
    this.tokensValue = tokens;
  }
  redirectToAuthorization(): never {
    throw new Error(`the MCP server ${this.options.server} signs in with the token_exchange grant, which opens no browser`);
  }
  saveCodeVerifier(): void {}
  codeVerifier(): never {
    throw new Error('the token_exchange grant uses no PKCE verifier');
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  /** Called by the SDK after discovery: the exchange at the IdP, then the JWT-bearer grant's parameters. */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const audience = this.discovery?.authorizationServerMetadata?.issuer ?? this.discovery?.authorizationServerUrl;
    if (!audience) throw new Error(`the MCP server ${this.options.server}: its authorization server was not discovered, so no ID-JAG can be asked for`);
    const resource = this.discovery?.resourceMetadata?.resource ?? this.options.serverUrl;
    const assertion = await this.exchange(audience, resource, scope);
    const params = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion });
    if (scope) params.set('scope', scope);
    return params;
  }

  /** RFC 8693 at the IdP: the ID token for an ID-JAG whose audience is the authorization server and resource this server. */
  private async exchange(audience: string, resource: string, scope: string | undefined): Promise<string> {
    const { idpTokenEndpoint, server } = this.options;
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE_GRANT,
      requested_token_type: ID_JAG_TYPE,
      subject_token: this.options.idToken,
      subject_token_type: ID_TOKEN_TYPE,
      audience,
      resource,
    });
    if (scope) body.set('scope', scope);
    if (this.options.idpClientId) body.set('client_id', this.options.idpClientId);
    const response = await (this.options.fetch ?? fetch)(idpTokenEndpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body,
    });
    const answer = (await response.json().catch(() => ({}))) as {
      access_token?: unknown;
      issued_token_type?: unknown;
      error?: unknown;
      error_description?: unknown;
    };
    if (!response.ok || typeof answer.access_token !== 'string') {
      const why =
        typeof answer.error === 'string'
          ? `${answer.error}${typeof answer.error_description === 'string' ? ` (${answer.error_description})` : ''}`
          : `HTTP ${response.status}`;
      throw new Error(
        `the MCP server ${server}: the IdP at ${idpTokenEndpoint} refused to exchange the ID token in ${this.options.idTokenSource} for an ID-JAG: ${why}; check that it is a current ID token the IdP issued`,
      );
    }
    if (answer.issued_token_type !== undefined && answer.issued_token_type !== ID_JAG_TYPE)
      throw new Error(`the MCP server ${server}: the IdP at ${idpTokenEndpoint} answered a ${String(answer.issued_token_type)}, not an ID-JAG`);
    this.options.onSecret?.(answer.access_token);
    return answer.access_token;
  }
}
