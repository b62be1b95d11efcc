import * as path from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerDefinition } from './mcpConfig';
import { limitedFetch } from './mcpLimits';
import { resolveVariables } from './mcpVariables';
import type { McpSdk } from './mcpSdk';

/** How a server's transport is opened: where it runs, what it may see, where its stderr goes. */
export interface TransportOptions {
  /** Where a stdio server runs when its definition names no `cwd`. */
  cwd: string;
  /** The sign-in of an HTTP server that asks for OAuth: a person's (ServerOAuth) or the client's own (mcpMachineAuth). */
  auth?: OAuthClientProvider | undefined;
  /** Variables only this server gets (its chores' secrets), after the definition's own. */
  secrets: Record<string, string>;
  /** The values of the definition's `${input:ID}` (mcpInputs.ts), given or asked before the start. */
  inputs?: Record<string, string>;
  /** The process environment the basics are picked from (default process.env, through the SDK). */
  baseEnv?: () => Record<string, string>;
  /** Each non-empty line the server writes to stderr, cut at 500 characters. */
  stderr: (line: string) => void;
}

/** The transport of one server: Streamable HTTP with bounded reads, or a stdio process with a minimal environment. */
export function openTransport(sdk: McpSdk, written: McpServerDefinition, options: TransportOptions): Transport {
  // Resolved now, at the start: the review and the hash keep the definition as written.
  const def = resolveVariables(written, { workspaceFolder: options.cwd, ...(options.inputs ? { inputs: options.inputs } : {}) });
  const { getDefaultEnvironment, StdioClientTransport, StreamableHTTPClientTransport, SSEClientTransport } = sdk;
  if (def.transport === 'http') {
    const http = { requestInit: { headers: def.headers }, fetch: limitedFetch(), ...(options.auth ? { authProvider: options.auth } : {}) };
    // As VS Code does: "sse" opens the legacy transport (a GET stream, then POSTs to the endpoint it names).
    return def.sse ? new SSEClientTransport(new URL(def.url), http) : new StreamableHTTPClientTransport(new URL(def.url), http);
  }
  const transport = new StdioClientTransport({
    command: def.command,
    args: def.args,
    // Only the basics and what the definition names: API keys in the editor's environment stay there.
    env: { ...(options.baseEnv?.() ?? getDefaultEnvironment()), ...def.env, ...options.secrets },
    // A relative `cwd` is the workspace folder's, as the Trust review resolved and showed it
    // (review 2026-12c finding 14), never the editor process's own working folder.
    cwd: def.cwd ? path.resolve(options.cwd, def.cwd) : options.cwd,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim()))
      options.stderr(line.slice(0, 500));
  });
  return transport;
}
