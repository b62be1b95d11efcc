/**
 * A server's lists read whole: `tools/list`, `resources/list` and `prompts/list` answer in pages
 * (`nextCursor`), and a tool past the first page is as real as one on it. Bounded, so a server that
 * pages forever (or repeats a cursor) cannot hold a start: past MAX_PAGES or MAX_ITEMS the rest is
 * left out with a warning in the log.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Logger } from '../ports';

/** A tool as the server describes it. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The server's hints; shown to the person, never a reason to skip the ask. */
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}

/** A resource a server offers (resources/list). */
export interface McpResourceInfo {
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

/** A prompt a server offers (prompts/list). */
export interface McpPromptInfo {
  name: string;
  title?: string;
  description?: string;
  arguments: Array<{ name: string; required: boolean; description?: string }>;
}

/** At most this many pages of one list; a real server with 1,000 tools and 50 per page fits. */
export const MAX_PAGES = 50;
/** At most this many items of one list (the prompt's tool budget is far smaller; mcpLimits cuts further). */
export const MAX_ITEMS = 2_000;

/** Every page of a list, following `nextCursor` until it is absent, repeats, or a bound is reached. */
export async function readAllPages<T>(
  what: string,
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
  logger: Pick<Logger, 'warn'>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    if (pages === MAX_PAGES) {
      logger.warn('HOST', `${what}: more than ${MAX_PAGES} pages; the rest is left out`);
      break;
    }
    const next = await page(cursor);
    items.push(...next.items);
    if (items.length >= MAX_ITEMS) {
      logger.warn('HOST', `${what}: more than ${MAX_ITEMS} entries; the rest is left out`);
      return items.slice(0, MAX_ITEMS);
    }
    if (!next.nextCursor) break;
    if (seen.has(next.nextCursor)) {
      logger.warn('HOST', `${what}: the server sent the cursor ${next.nextCursor.slice(0, 40)} twice; stopped there`);
      break;
    }
    seen.add(next.nextCursor);
    cursor = next.nextCursor;
  }
  return items;
}

/**
 * Why a tool is not offered, or undefined when it is. A tool that requires MCP tasks (SEP-1686,
 * `execution.taskSupport: "required"`) fails every plain call with -32600; this client does not
 * run calls as tasks yet (the installed SDK marks its task API experimental), so such a tool is
 * left out, with the reason in the log, rather than offered to fail.
 */
export function notOffered(tool: { execution?: { taskSupport?: string } | undefined }): string | undefined {
  return tool.execution?.taskSupport === 'required' ? 'it can only run as an MCP task, which Tasklane does not run yet' : undefined;
}

/** Every tool the server lists that can be offered, as Tasklane keeps it. */
export async function listTools(client: Client, server: string, timeout: number, logger: Pick<Logger, 'warn'>): Promise<McpTool[]> {
  const listed = await readAllPages(
    `MCP server ${server}: tools/list`,
    (cursor) => client.listTools(cursor ? { cursor } : undefined, { timeout }).then((r) => ({ items: r.tools, nextCursor: r.nextCursor })),
    logger,
  );
  const offered = listed.filter((tool) => {
    const why = notOffered(tool);
    if (why) logger.warn('HOST', `MCP tool ${server}/${tool.name} is not offered: ${why}`);
    return !why;
  });
  return offered.map((tool) => ({
    name: tool.name,
    description: tool.description ?? tool.title ?? '',
    inputSchema: (tool.inputSchema ?? { type: 'object' }) as Record<string, unknown>,
    annotations: {
      ...(tool.annotations?.readOnlyHint !== undefined ? { readOnlyHint: tool.annotations.readOnlyHint } : {}),
      ...(tool.annotations?.destructiveHint !== undefined ? { destructiveHint: tool.annotations.destructiveHint } : {}),
      ...(tool.annotations?.title ? { title: tool.annotations.title } : {}),
    },
  }));
}

/** The server's resources and prompts, every page; a server that does not declare the capability has none. */
export async function listContext(
  client: Client,
  server: string,
  timeout: number,
  logger: Pick<Logger, 'warn'>,
): Promise<{ resources: McpResourceInfo[]; prompts: McpPromptInfo[] }> {
  const caps = client.getServerCapabilities() ?? {};
  const params = (cursor: string | undefined) => (cursor ? { cursor } : undefined);
  const [resources, prompts] = await Promise.all([
    caps.resources
      ? readAllPages(
          `MCP server ${server}: resources/list`,
          (c) => client.listResources(params(c), { timeout }).then((r) => ({ items: r.resources, nextCursor: r.nextCursor })),
          logger,
        )
      : Promise.resolve([]),
    caps.prompts
      ? readAllPages(
          `MCP server ${server}: prompts/list`,
          (c) => client.listPrompts(params(c), { timeout }).then((r) => ({ items: r.prompts, nextCursor: r.nextCursor })),
          logger,
        )
      : Promise.resolve([]),
  ]);
  return {
    resources: resources.map((r) => ({
      uri: r.uri,
      name: r.title ?? r.name,
      ...(r.description ? { description: r.description } : {}),
      ...(r.mimeType ? { mimeType: r.mimeType } : {}),
    })),
    prompts: prompts.map((p) => ({
      name: p.name,
      ...(p.title ? { title: p.title } : {}),
      ...(p.description ? { description: p.description } : {}),
      arguments: (p.arguments ?? []).map((a) => ({ name: a.name, required: a.required === true, ...(a.description ? { description: a.description } : {}) })),
    })),
  };
}
