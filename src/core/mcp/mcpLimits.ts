/**
 * Size limits on what a trusted MCP server can hand Tasklane (review 2026-12b finding 11): how
 * many tools it offers, how large each tool's input schema is (its nested descriptions too, since
 * every schema is sent with every request of a task), how large an HTTP response body may be,
 * and how much of a result is joined before it is cut. Each cut says so: in the log, in the
 * schema's own description, or in the error the task gets.
 */
import type { Clock, Logger } from '../ports';

export const MCP_LIMITS = {
  /** Tools offered per server; the rest are left out with a note in the log. */
  toolsPerServer: 64,
  /** Characters of one tool's input schema as JSON. */
  schemaChars: 8_000,
  /** Characters of one description inside a schema. */
  schemaDescriptionChars: 200,
  /** Bytes of one HTTP response body. */
  httpBodyBytes: 8 * 1024 * 1024,
} as const;

/** The tools as offered: at most `toolsPerServer`, each schema within its size. */
export function boundedTools<T extends { name: string; inputSchema: Record<string, unknown> }>(server: string, tools: readonly T[], logger: Logger): T[] {
  if (tools.length > MCP_LIMITS.toolsPerServer)
    logger.warn(
      'HOST',
      `MCP server ${server} lists ${tools.length} tools; only the first ${MCP_LIMITS.toolsPerServer} are offered (the rest would bloat every request)`,
    );
  return tools.slice(0, MCP_LIMITS.toolsPerServer).map((tool) => ({ ...tool, inputSchema: boundedSchema(server, tool.name, tool.inputSchema, logger) }));
}

function boundedSchema(server: string, tool: string, schema: Record<string, unknown>, logger: Logger): Record<string, unknown> {
  const trimmed = trimDescriptions(schema, 0) as Record<string, unknown>;
  if (JSON.stringify(trimmed).length <= MCP_LIMITS.schemaChars) return trimmed;
  logger.warn('HOST', `MCP tool ${server}/${tool} has an input schema over ${MCP_LIMITS.schemaChars} characters; it is offered as a plain object`);
  return {
    type: 'object',
    description: `The server's input schema was over ${MCP_LIMITS.schemaChars} characters and is not shown; pass the arguments its documentation names.`,
  };
}

function trimDescriptions(value: unknown, depth: number): unknown {
  if (depth > 32) return {};
  if (Array.isArray(value)) return value.map((v) => trimDescriptions(v, depth + 1));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, v]) => [
      key,
      key === 'description' && typeof v === 'string' && v.length > MCP_LIMITS.schemaDescriptionChars
        ? `${v.slice(0, MCP_LIMITS.schemaDescriptionChars - 1)}…`
        : trimDescriptions(v, depth + 1),
    ]),
  );
}

/** A fetch whose response bodies end with an error past `maxBytes` (the HTTP transport reads whole bodies). */
export function limitedFetch(maxBytes: number = MCP_LIMITS.httpBodyBytes, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body) return response;
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > maxBytes) {
      await response.body.cancel();
      throw new Error(`the MCP server's response is ${declared} bytes, over the limit of ${maxBytes}; nothing of it was read`);
    }
    let seen = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(new Error(`the MCP server's response went over the limit of ${maxBytes} bytes; it was cut off`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Joins parts up to `max` characters without building the whole text; says how much was left out. */
export function joinBounded(parts: readonly string[], separator: string, max: number): { text: string; truncatedChars: number } {
  let text = '';
  let truncatedChars = 0;
  for (let i = 0; i < parts.length; i++) {
    const piece = (i > 0 ? separator : '') + parts[i];
    const room = max - text.length;
    if (room <= 0) truncatedChars += piece.length;
    else if (piece.length <= room) text += piece;
    else {
      text += piece.slice(0, room);
      truncatedChars += piece.length - room;
    }
  }
  return { text, truncatedChars };
}

/**
 * A call's deadline: a signal that fires when `outer` does (Stop, Cancel) or when the call has run
 * `ms` without an answer. While `paused()` (an elicitation form is open) the time does not run
 * out: the clock starts again, so a call is never cut while the person types.
 */
export function callDeadline(clock: Clock, ms: number, outer: AbortSignal | undefined, paused: () => boolean): { signal: AbortSignal; cancel(): void } {
  const controller = new AbortController();
  let timer: { cancel(): void } | undefined;
  const arm = () => {
    timer = clock.setTimeout(() => {
      if (paused()) arm();
      else controller.abort(new Error(`Request timed out after ${ms} ms`));
    }, ms);
  };
  arm();
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    cancel: () => {
      timer?.cancel();
      outer?.removeEventListener('abort', onAbort);
    },
  };
}
