/**
 * Signing in with no person: the OAuth client credentials grant (SEP-1046), for a remote server a
 * chore uses headless, on the command line or on CI, where no browser can open. The client
 * authenticates with a client secret (`client_secret_basic`/`_post`, as the authorization server
 * says) or with a `private_key_jwt` assertion signed by its private key; the SDK's own providers
 * (`@modelcontextprotocol/sdk/client/auth-extensions`) do the grant. The secret or key is read at
 * each start, from what the server's chores give it first (their `secrets:`, as TASKLANE_SECRET_*)
 * and then, for a definition in the person's own settings only, from the environment. Tokens stay
 * in memory: a new start asks for new ones, which costs one request and keeps nothing on disk.
 * The third such grant, enterprise-managed authorization (`token_exchange`), is in mcpIdJag.ts.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { CHORE_SECRET_PREFIX } from './mcpConfig';
import { IdJagProvider } from './mcpIdJag';
import type { McpServerDefinition } from './mcpConfig';
import type { McpSdk } from './mcpSdk';

/** Where the variables a definition names are read: the server's chore secrets, then (own settings only) the environment. */
export interface MachineSecrets {
  /** The secrets this server's chores give it at this start (TASKLANE_SECRET_* → value). */
  server: Record<string, string>;
  /** This process's environment (default process.env). */
  env?: (name: string) => string | undefined;
  /** Told each value read, so no log or trace carries it. */
  onSecret?: (value: string) => void;
}

/**
 * The provider of a definition that signs in with the client credentials grant, or undefined when
 * it does not (a person signs in, McpOAuth). Throws naming the variable to set when a secret is missing.
 */
export function machineAuth(sdk: McpSdk, definition: McpServerDefinition, secrets: MachineSecrets): OAuthClientProvider | undefined {
  if (definition.transport !== 'http' || !definition.oauth?.grant) return undefined;
  const { clientId, clientSecretEnv, privateKeyEnv, signingAlgorithm, issuer, idTokenEnv, idpTokenEndpoint, idpClientId } = definition.oauth;
  const read = (variable: string) => readSecret(definition, variable, secrets);
  if (definition.oauth.grant === 'token_exchange') {
    // mcpConfig.ts refuses a token_exchange definition without these three.
    if (!idTokenEnv || !idpTokenEndpoint || !clientSecretEnv)
      throw new Error(`the MCP server ${definition.name} uses the token_exchange grant: set idpTokenEndpoint, idToken and clientSecret`);
    return new IdJagProvider({
      server: definition.name,
      serverUrl: definition.url,
      clientId,
      clientSecret: read(clientSecretEnv),
      ...(issuer ? { issuer } : {}),
      idpTokenEndpoint,
      ...(idpClientId ? { idpClientId } : {}),
      idToken: read(idTokenEnv),
      idTokenSource: idTokenEnv,
      ...(secrets.onSecret ? { onSecret: secrets.onSecret } : {}),
    });
  }
  const common = { clientId, clientName: 'Tasklane', ...(issuer ? { expectedIssuer: issuer } : {}) };
  const provider = privateKeyEnv
    ? new sdk.PrivateKeyJwtProvider({
        ...common,
        // PEM in one line (a CI secret often is): its escaped newlines become real ones.
        privateKey: read(privateKeyEnv).replace(/\\n/g, '\n'),
        algorithm: signingAlgorithm ?? 'RS256',
      })
    : clientSecretEnv
      ? new sdk.ClientCredentialsProvider({ ...common, clientSecret: read(clientSecretEnv) })
      : undefined;
  if (!provider) throw new Error(`the MCP server ${definition.name} uses the client_credentials grant but names no clientSecret or privateKey`);
  // The access token is a secret too: the redactor learns it before anything could echo it.
  const save = provider.saveTokens.bind(provider);
  provider.saveTokens = (tokens) => {
    secrets.onSecret?.(tokens.access_token);
    save(tokens);
  };
  return provider;
}

function readSecret(definition: McpServerDefinition, variable: string, secrets: MachineSecrets): string {
  // A repository's definition reads only the chore secrets given to this server (mcpConfig.ts refuses any other name).
  const fromEnv = definition.source === 'user' ? (secrets.env ?? ((name: string) => process.env[name]))(variable) : undefined;
  const value = secrets.server[variable] ?? fromEnv;
  if (!value) {
    const how = variable.startsWith(CHORE_SECRET_PREFIX)
      ? `declare the secret ${variable.slice(CHORE_SECRET_PREFIX.length)} under secrets: of this server in the chore, and set it`
      : `set the environment variable ${variable}`;
    throw new Error(`the MCP server ${definition.name} signs in with no person, reading ${variable}, which has no value: ${how}`);
  }
  secrets.onSecret?.(value);
  return value;
}
