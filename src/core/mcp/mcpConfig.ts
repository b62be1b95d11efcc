/**
 * MCP server definitions, in VS Code's own `.vscode/mcp.json` format
 * (`{"servers": {name: {"type": "stdio", "command", "args", "env"} | {"type": "http", "url", "headers"}}}`)
 * and from the user's Tasklane settings. A definition a repository ships is code that would run
 * on the person's machine: it carries a hash of everything that decides what runs, so consent is
 * bound to exactly that definition and any change asks again.
 */
import { createHash } from 'node:crypto';
import { parse, printParseErrorCode } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import * as z from 'zod/v4';
import { inputReferences, parseMcpInputs } from './mcpInputs';
import type { McpInput } from './mcpInputs';

/** The workspace's MCP servers, in VS Code's own format; the command line reads the same file. */
export const MCP_FILE = '.vscode/mcp.json';

/** Where a definition came from: a repository's file (needs the person's trust) or their own settings. */
export type McpSource = 'workspace' | 'user';

const nameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, 'a server name is letters, digits, ".", "_" or "-" (at most 63)');

const stdioSchema = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
});

/** Where a chore's secrets reach its servers (chores/secretScope.ts `secretVariable`). */
export const CHORE_SECRET_PREFIX = 'TASKLANE_SECRET_';

/** `${env:NAME}`: the only form a client secret may take in a definition. */
const ENV_REFERENCE = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

const secretReference = (what: string) =>
  z.string().regex(ENV_REFERENCE, `write "\${env:NAME}" and put the ${what} in that environment variable: a secret is never kept in mcp.json or settings`);

const oauthSchema = z
  .object({
    clientId: z.string().min(1).max(2_000),
    clientSecret: secretReference('secret').optional(),
    /**
     * `client_credentials`: the client signs in as itself, with no person and no browser (a chore
     * on CI); `token_exchange`: enterprise-managed authorization (SEP-990), an ID token the
     * environment holds (a CI OIDC token) traded at the enterprise IdP for an ID-JAG, then at the
     * authorization server for an access token (mcpIdJag.ts); `authorization_code` (the default):
     * a person signs in in their browser.
     */
    grant: z.enum(['authorization_code', 'client_credentials', 'token_exchange']).default('authorization_code'),
    /** A private key (PEM) for a `private_key_jwt` assertion instead of a client secret. */
    privateKey: secretReference('private key (PEM)').optional(),
    signingAlgorithm: z.enum(['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'EdDSA']).optional(),
    /** The authorization server the credentials were registered with: they are never sent to another. */
    issuer: z.url().optional(),
    /** `token_exchange`: the enterprise IdP's token endpoint (RFC 8693), https or http to this machine. */
    idpTokenEndpoint: z
      .url()
      .refine((u) => /^https:/i.test(u) || /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?\//i.test(u), {
        message: 'the IdP token endpoint must be https (or http to this machine)',
      })
      .optional(),
    /** `token_exchange`: the client id Tasklane has at the IdP, when the IdP wants one with the exchange. */
    idpClientId: z.string().min(1).max(2_000).optional(),
    /** `token_exchange`: the ID token to trade, e.g. a CI's OIDC token. */
    idToken: secretReference('ID token').optional(),
  })
  .refine((o) => o.grant !== 'client_credentials' || o.clientSecret !== undefined || o.privateKey !== undefined, {
    message: 'the client_credentials grant needs clientSecret or privateKey ("${env:NAME}")',
  })
  .refine((o) => o.grant !== 'token_exchange' || (o.clientSecret !== undefined && o.idToken !== undefined && o.idpTokenEndpoint !== undefined), {
    message: 'the token_exchange grant needs idpTokenEndpoint, idToken ("${env:NAME}") and clientSecret ("${env:NAME}")',
  });

/** The grants where the client signs in with no person (mcpMachineAuth.ts): the only HTTP definitions a chore's secrets reach. */
export function signsInWithoutPerson(definition: McpServerDefinition | undefined): boolean {
  return definition?.transport === 'http' && definition.oauth?.grant !== undefined;
}

const httpSchema = z.object({
  type: z.enum(['http', 'sse']),
  // A URL once its variables (mcpVariables.ts) are resolved, which happens at the start.
  url: z.string().refine((url) => /^https?:\/\//i.test(url) && URL.canParse(url.replace(/\$\{[^}]+\}/g, 'x')), { message: 'expected an http(s) URL' }),
  headers: z.record(z.string(), z.string()).default({}),
  oauth: oauthSchema.optional(),
});

/**
 * A remote server's OAuth client, when the person does not want dynamic registration: a client
 * registered beforehand (`clientId`, and for a confidential one the environment variable holding
 * its secret), or a client ID metadata document (`clientId` is its https URL), which the SDK
 * uses with authorization servers that accept them and registers otherwise.
 */
export interface McpOAuthClient {
  clientId: string;
  /** The environment variable holding the client secret (`${env:NAME}` in the definition). */
  clientSecretEnv?: string;
  /** `client_credentials` or `token_exchange`: no person signs in (see mcpMachineAuth.ts); absent: the authorization code flow. */
  grant?: 'client_credentials' | 'token_exchange';
  /** The environment variable holding a PEM private key for a `private_key_jwt` assertion. */
  privateKeyEnv?: string;
  signingAlgorithm?: string;
  /** The authorization server the credentials belong to. */
  issuer?: string;
  /** `token_exchange`: the environment variable holding the ID token to trade at the IdP. */
  idTokenEnv?: string;
  /** `token_exchange`: the IdP's RFC 8693 token endpoint. */
  idpTokenEndpoint?: string;
  /** `token_exchange`: Tasklane's client id at the IdP. */
  idpClientId?: string;
}

/**
 * One server as Tasklane runs it. `inputs`: the declarations of the `${input:ID}` it names
 * (mcpInputs.ts), asked at its start; outside the hash, as the values are the person's answers.
 */
export type McpServerDefinition =
  | {
      name: string;
      source: McpSource;
      transport: 'stdio';
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
      inputs?: McpInput[];
      hash: string;
    }
  | {
      name: string;
      inputs?: McpInput[];
      source: McpSource;
      transport: 'http';
      url: string;
      headers: Record<string, string>;
      oauth?: McpOAuthClient;
      /** `"type": "sse"`: the legacy HTTP+SSE transport (protocol 2024-11-05), which many hosted servers still serve. */
      sse?: true;
      hash: string;
    };

/** A server entry that could not be read, with what is wrong. */
export interface McpConfigProblem {
  name: string;
  source: McpSource;
  message: string;
}

/** Parses the `servers` object of mcp.json (or of the user setting). Never throws: a bad entry is a problem, the others load. */
export function parseMcpServers(raw: unknown, source: McpSource): { servers: McpServerDefinition[]; problems: McpConfigProblem[] } {
  const servers: McpServerDefinition[] = [];
  const problems: McpConfigProblem[] = [];
  const file = raw && typeof raw === 'object' && 'servers' in raw ? (raw as { servers: unknown; inputs?: unknown }) : undefined;
  const entries = file ? file.servers : raw;
  const declared = parseMcpInputs(file?.inputs);
  for (const message of declared.problems) problems.push({ name: '(inputs)', source, message });
  if (!entries || typeof entries !== 'object' || Array.isArray(entries)) {
    if (entries !== undefined) problems.push({ name: '(file)', source, message: 'expected {"servers": {"<name>": {...}}}' });
    return { servers, problems };
  }
  for (const [name, value] of Object.entries(entries as Record<string, unknown>)) {
    if (!nameSchema.safeParse(name).success) {
      problems.push({ name, source, message: 'a server name is letters, digits, ".", "_" or "-" (at most 63)' });
      continue;
    }
    const isHttp = value && typeof value === 'object' && ['http', 'sse'].includes(String((value as { type?: unknown }).type));
    const parsed = isHttp ? httpSchema.safeParse(value) : stdioSchema.safeParse(value);
    if (!parsed.success) {
      problems.push({ name, source, message: parsed.error.issues.map((i) => `${i.path.join('.') || 'entry'}: ${i.message}`).join('; ') });
      continue;
    }
    const def = parsed.data;
    const named = inputReferences(
      'command' in def ? [def.command, ...def.args, ...Object.values(def.env), def.cwd ?? ''] : [def.url, ...Object.values(def.headers)],
    );
    const undeclared = named.filter((id) => !declared.inputs.has(id));
    if (undeclared.length) {
      const list = undeclared.map((id) => `\${input:${id}}`).join(', ');
      problems.push({
        name,
        source,
        message: `names ${list}, which the file's "inputs" does not declare: add {"type": "promptString", "id", "description"} for each`,
      });
      continue;
    }
    const inputs = named.length ? { inputs: named.map((id) => declared.inputs.get(id)!) } : {};
    if ('command' in def) {
      const body = { transport: 'stdio' as const, command: def.command, args: def.args, env: def.env, ...(def.cwd ? { cwd: def.cwd } : {}) };
      servers.push({ name, source, ...body, ...inputs, hash: definitionHash({ name, ...body }) });
    } else {
      const secretEnv = def.oauth?.clientSecret?.match(ENV_REFERENCE)?.[1];
      const keyEnv = def.oauth?.privateKey?.match(ENV_REFERENCE)?.[1];
      const idTokenEnv = def.oauth?.idToken?.match(ENV_REFERENCE)?.[1];
      // A repository's file naming a variable would send whatever it holds to a site the repository
      // chose. A chore's secret (TASKLANE_SECRET_*) is the exception: it is read only from what the
      // person's reviewed chore gives this very server (McpConnectionOptions.secretEnv), never from
      // the environment.
      const foreign = [secretEnv, keyEnv, idTokenEnv].find((v) => v !== undefined && !v.startsWith(CHORE_SECRET_PREFIX));
      if (foreign && source === 'workspace') {
        problems.push({
          name,
          source,
          message: `oauth: a repository's ${MCP_FILE} may not read your environment (\${env:${foreign}}); name a chore secret (\${env:${CHORE_SECRET_PREFIX}NAME}, given by a chore's secrets: [NAME]) or define this server in your own settings (tasklane.mcp.servers)`,
        });
        continue;
      }
      const o = def.oauth;
      const oauth = o
        ? {
            clientId: o.clientId,
            ...(secretEnv ? { clientSecretEnv: secretEnv } : {}),
            ...(o.grant !== 'authorization_code' ? { grant: o.grant } : {}),
            ...(keyEnv ? { privateKeyEnv: keyEnv } : {}),
            ...(o.signingAlgorithm ? { signingAlgorithm: o.signingAlgorithm } : {}),
            ...(o.issuer ? { issuer: o.issuer } : {}),
            ...(idTokenEnv ? { idTokenEnv } : {}),
            ...(o.idpTokenEndpoint ? { idpTokenEndpoint: o.idpTokenEndpoint } : {}),
            ...(o.idpClientId ? { idpClientId: o.idpClientId } : {}),
          }
        : undefined;
      const body = {
        transport: 'http' as const,
        url: def.url,
        headers: def.headers,
        ...(oauth ? { oauth } : {}),
        ...(def.type === 'sse' ? { sse: true as const } : {}),
      };
      servers.push({ name, source, ...body, ...inputs, hash: definitionHash({ name, ...body }) });
    }
  }
  return { servers, problems };
}

/** sha256 of the definition's canonical JSON (keys sorted), so formatting and key order do not ask again. */
export function definitionHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * mcp.json as VS Code reads it: JSON with comments and trailing commas (JSONC), parsed by
 * `jsonc-parser`, VS Code's own parser, so text inside strings is never touched. Throws with the
 * first error's kind and line:column, as a person can find it in the file.
 */
export function parseJsonc(text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const before = text.slice(0, first.offset).split('\n');
    throw new Error(`${printParseErrorCode(first.error)} at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`);
  }
  return value;
}
