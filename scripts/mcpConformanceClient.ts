/**
 * The client command the MCP conformance suite runs (`npm run conformance:mcp`): Tasklane's own
 * MCP client path against the suite's scenario server. The suite appends the server URL as the
 * last argument and names the scenario in MCP_CONFORMANCE_SCENARIO.
 *
 * What runs is the product's path: McpServers over a remote (`http`) definition, McpOAuth with a
 * secret store in memory and a "browser" that follows the authorization page and hands the
 * redirect to the URI handler (as the person would by signing in), and a form that accepts every
 * elicitation with the defaults it was shown. Each tool is offered as the model sees it and called
 * through its action, its approval answered yes, with arguments built from its input schema (what
 * a model must send: every required property, of its type). Where the scenario hands over a client
 * for the client credentials grant or an enterprise IdP's ID token (SEP-990), the definition says so, as a person configuring a chore's
 * server would; no person signs in then. Exit 0 when every call went through.
 */
import { z } from 'zod';
import { parseMcpServers } from '../src/core/mcp/mcpConfig';
import type { ElicitationAnswer, ElicitationPort, ElicitationRequest, ElicitValue } from '../src/core/mcp/mcpElicitation';
import { McpOAuth } from '../src/core/mcp/mcpOAuth';
import type { McpSignInPort } from '../src/core/mcp/mcpOAuth';
import { McpServers } from '../src/core/mcp/mcpServers';
import type { ActionContext } from '../src/core/actions/types';
import type { CommandService } from '../src/core/approval/commands/commandService';
import { systemClock } from '../src/core/ports';
import type { Logger, LogTag } from '../src/core/ports';
import { MemorySecrets } from '../test/fakes/memorySecrets';

const SERVER = 'conformance';
const REDIRECT = 'vscode://tasklane.tasklane/mcp/oauth';
/** The client ID metadata document the suite's CIMD scenario expects as the client id. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
const SECRET_VARIABLE = 'TASKLANE_CONFORMANCE_CLIENT_SECRET';
const KEY_VARIABLE = 'TASKLANE_CONFORMANCE_PRIVATE_KEY';
const ID_TOKEN_VARIABLE = 'TASKLANE_CONFORMANCE_ID_TOKEN';

const logger: Logger = {
  trace: () => undefined,
  info: (tag: LogTag, message: string) => console.error(`[${tag}] ${message}`),
  warn: (tag: LogTag, message: string) => console.error(`[${tag}] warn: ${message}`),
  error: (tag: LogTag, message: string, error?: unknown) => console.error(`[${tag}] error: ${message}${error ? `: ${String(error)}` : ''}`),
};

/** The person says yes to signing in; their browser follows the page and comes back to the URI handler. */
class Browser implements McpSignInPort {
  deliver: (uri: string) => boolean = () => false;
  async redirectUri() {
    return REDIRECT;
  }
  async open(_server: string, url: URL): Promise<boolean> {
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (!location?.startsWith(REDIRECT)) throw new Error(`the authorization page answered ${response.status} and sent the browser to ${location ?? 'nowhere'}`);
    setImmediate(() => this.deliver(location));
    return true;
  }
}

/** The form, accepted as shown: every field at the default the server asked for. */
class AcceptDefaults implements ElicitationPort {
  async elicit(request: ElicitationRequest): Promise<ElicitationAnswer> {
    const content: Record<string, ElicitValue> = {};
    for (const field of request.fields) if (field.default !== undefined) content[field.key] = field.default;
    return { action: 'accept', content };
  }
}

/** What a model sends: every required property, a value of its type (the first of an enum, the default where there is one). */
function argumentsFor(schema: unknown): Record<string, unknown> {
  const s = (schema ?? {}) as { properties?: Record<string, unknown>; required?: string[] };
  const out: Record<string, unknown> = {};
  for (const key of s.required ?? []) out[key] = valueFor(s.properties?.[key]);
  return out;
}

function valueFor(schema: unknown): unknown {
  const s = (schema ?? {}) as { type?: string | string[]; enum?: unknown[]; default?: unknown; const?: unknown; items?: unknown };
  if (s.const !== undefined) return s.const;
  if (s.default !== undefined) return s.default;
  if (s.enum?.length) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  if (type === 'object') return argumentsFor(s);
  if (type === 'null') return null;
  return 'conformance';
}

async function main(): Promise<number> {
  const url = process.argv.at(-1);
  if (!url || !/^https?:\/\//.test(url)) throw new Error('usage: mcpConformanceClient <server-url>');
  console.error(`scenario ${process.env.MCP_CONFORMANCE_SCENARIO ?? '(none)'} at ${url}`);

  const browser = new Browser();
  const oauth = new McpOAuth({ secrets: new MemorySecrets(), signIn: browser, clock: systemClock, logger });
  browser.deliver = (uri) => oauth.deliver(uri);
  // As a person would configure the client: a client registered beforehand when the scenario
  // hands one over (its secret through the environment, never the definition), else a client ID
  // metadata document, which the SDK uses only where the authorization server accepts them.
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
    client_id?: string;
    client_secret?: string;
    private_key_pem?: string;
    signing_algorithm?: string;
    idp_client_id?: string;
    idp_id_token?: string;
    idp_token_endpoint?: string;
  };
  if (context.client_secret) process.env[SECRET_VARIABLE] = context.client_secret;
  if (context.private_key_pem) process.env[KEY_VARIABLE] = context.private_key_pem;
  if (context.idp_id_token) process.env[ID_TOKEN_VARIABLE] = context.idp_id_token;
  // Enterprise-managed authorization: the ID token (as a CI's OIDC token would be) from the environment.
  const machine = scenario.includes('client-credentials')
    ? { grant: 'client_credentials' }
    : context.idp_token_endpoint
      ? {
          grant: 'token_exchange',
          idpTokenEndpoint: context.idp_token_endpoint,
          idToken: `\${env:${ID_TOKEN_VARIABLE}}`,
          ...(context.idp_client_id ? { idpClientId: context.idp_client_id } : {}),
        }
      : {};
  const client = context.client_id
    ? {
        clientId: context.client_id,
        ...machine,
        ...(context.client_secret ? { clientSecret: `\${env:${SECRET_VARIABLE}}` } : {}),
        ...(context.private_key_pem ? { privateKey: `\${env:${KEY_VARIABLE}}`, signingAlgorithm: context.signing_algorithm ?? 'ES256' } : {}),
      }
    : { clientId: CLIENT_METADATA_URL };
  const { servers: definitions, problems } = parseMcpServers({ servers: { [SERVER]: { type: 'http', url, oauth: client } } }, 'user');
  if (problems.length) throw new Error(JSON.stringify(problems));
  const servers = new McpServers({
    definitions: () => definitions,
    trusted: () => true,
    workspaceTrusted: () => true,
    cwd: process.cwd(),
    clock: systemClock,
    logger,
    elicit: new AcceptDefaults(),
    oauth,
  });

  let failures = 0;
  // Approved at once: the call runs as an approved one does, through McpServers.call.
  const service: Pick<CommandService, 'request'> = {
    async request(spec) {
      const [server, ...tool] = spec.command.split('/');
      const ran = await servers.call(server!, tool.join('/'), JSON.parse(spec.input ?? '{}') as Record<string, unknown>, { timeoutMs: 20_000 });
      if (ran.error !== undefined || ran.exitCode !== 0) failures++;
      return { ran };
    },
  };
  const ctx = { taskId: 'conformance', sessionId: 'conformance', turn: { needsApproval: () => undefined } } as unknown as ActionContext;

  try {
    await servers.startAll();
    const actions = await servers.actions(service);
    console.error(`offered: ${actions.map((a) => a.name).join(', ') || '(no tools)'}`);
    for (const action of actions) {
      const output = await action.run(argumentsFor(z.toJSONSchema(action.input)), ctx);
      console.log(`${action.name}: ${String(output).slice(0, 500)}`);
    }
  } finally {
    await servers.stopAll();
  }
  return failures ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
