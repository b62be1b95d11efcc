/**
 * The sidebar protocol's MCP part: the configured MCP servers with their state and last error, and
 * the Trust… gesture. (src/shared/protocol.ts joins it with the rest.) The webview never trusts a
 * server itself: `mcp.trust` makes the host run `tasklane.trustMcpServer <name>`, which shows the
 * command line in a modal and asks.
 */
import * as z from 'zod/v4';

/**
 * How a server stands, as the person reads it: `untrusted` (a repository's server waiting for the
 * person's yes), `restricted` (the workspace is in Restricted Mode: no server runs until the folder
 * is trusted, whatever the server's own consent), `idle` (trusted, not running: it starts on first use),
 * `starting`, `running`, `crashed` (it ran, then its process exited: it restarts on next use after
 * a backoff) or `failed` (it could not start: bad command, refused connection…).
 */
export type McpServerStateView = 'untrusted' | 'restricted' | 'idle' | 'starting' | 'running' | 'crashed' | 'failed';

/** One configured MCP server, for the sidebar's "MCP servers" section. */
export interface McpServerView {
  name: string;
  /** `workspace`: the repository's .vscode/mcp.json; `user`: the person's own tasklane.mcp.servers setting. */
  source: 'workspace' | 'user';
  /** What runs: the command line or the URL. */
  target: string;
  state: McpServerStateView;
  /** The last start or crash error, kept until the server runs again. */
  lastError?: string;
  /** How many tools it offers, once listed. */
  tools?: number;
  /**
   * Set when the server may run only because enabled chores declare it (the person never trusted
   * it by itself): each chore's id and the tools it may call.
   */
  trustedFor?: Array<{ chore: string; tools: string[] }>;
}

export type McpHostMessage = { type: 'mcpServers'; servers: McpServerView[] };

export const mcpMessageSchemas = [
  /** Trust… on an untrusted server's row: the host runs tasklane.trustMcpServer (which asks in a modal). */
  z.object({ type: z.literal('mcp.trust'), name: z.string().min(1).max(200) }),
] as const;

export type McpWebviewMessage = z.infer<(typeof mcpMessageSchemas)[number]>;
