/**
 * The SDK's client side, loaded when the first server starts rather than at activation, and what
 * a tool call's answer becomes for the model.
 */
import type { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { joinBounded } from './mcpLimits';

const MAX_RESULT_CHARS = 20_000;

/** What a call returned, as text for the model. */
export interface McpCallResult {
  text: string;
  isError: boolean;
  /** Characters cut from the end to keep the result bounded. */
  truncatedChars: number;
}

/**
 * The SDK's client side, loaded when the first server starts rather than at activation: with its
 * JSON Schema validator it is a tenth of the extension host's bundle, and most windows never start
 * a server (esbuild.js builds these imports into one file of their own, dist/lazy/).
 */
export async function loadSdk() {
  const [client, stdio, http, types, auth, machine, sse] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/client/auth.js'),
    import('@modelcontextprotocol/sdk/client/auth-extensions.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
  ]);
  // Typed as the rest of the code sees the SDK (its CommonJS declarations): `import()` types it by
  // its ES module ones, whose classes TypeScript holds distinct. At run time each class comes from
  // the one module that was loaded.
  return {
    Client: client.Client as unknown as typeof Client,
    StdioClientTransport: stdio.StdioClientTransport as unknown as typeof StdioClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport as unknown as typeof StreamableHTTPClientTransport,
    ElicitRequestSchema: types.ElicitRequestSchema as unknown as typeof ElicitRequestSchema,
    UnauthorizedError: auth.UnauthorizedError as unknown as typeof UnauthorizedError,
    ClientCredentialsProvider: machine.ClientCredentialsProvider as unknown as typeof ClientCredentialsProvider,
    PrivateKeyJwtProvider: machine.PrivateKeyJwtProvider as unknown as typeof PrivateKeyJwtProvider,
    SSEClientTransport: sse.SSEClientTransport as unknown as typeof SSEClientTransport,
  };
}
export type McpSdk = Awaited<ReturnType<typeof loadSdk>>;

/** Text content joined; other content named; structured content as JSON; bounded. */
export function toText(result: { content?: unknown[]; structuredContent?: unknown; isError?: boolean }): McpCallResult {
  const parts: string[] = [];
  for (const item of result.content ?? []) {
    const c = item as { type?: string; text?: string; uri?: string; mimeType?: string; resource?: { uri?: string; text?: string } };
    if (c.type === 'text' && typeof c.text === 'string') parts.push(c.text);
    else if (c.type === 'resource_link' || c.type === 'resource')
      parts.push(`[resource ${c.uri ?? c.resource?.uri ?? ''}]${c.resource?.text ? `\n${c.resource.text}` : ''}`);
    else parts.push(`[${c.type ?? 'content'}${c.mimeType ? ` ${c.mimeType}` : ''}]`);
  }
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  // Cut while joining: a huge result is never built whole.
  const { text, truncatedChars } = joinBounded(parts, '\n', MAX_RESULT_CHARS);
  return { text, isError: result.isError === true, truncatedChars };
}

/** A prompt's messages as text (`role: text`); resources with their text, other content named. */
export function promptText(messages: ReadonlyArray<{ role: string; content: unknown }>): string {
  return messages
    .map((m) => {
      const c = m.content as { type: string; text?: string; resource?: { uri?: string; text?: string } };
      const text =
        c.type === 'text'
          ? (c.text ?? '')
          : c.type === 'resource'
            ? `[resource ${c.resource?.uri ?? ''}]${c.resource?.text ? `\n${c.resource.text}` : ''}`
            : `[${c.type}]`;
      return `${m.role}: ${text}`;
    })
    .join('\n\n');
}
