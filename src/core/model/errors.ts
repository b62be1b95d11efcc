/**
 * Turns SDK failures into ModelErrors whose message tells the user what to do next. Both official
 * SDKs share the same error class names, so each client passes its own classes in.
 */
import { ModelError } from './types';

/** The SDK error classes the mapping needs (same names in `openai` and `@anthropic-ai/sdk`). */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error;
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}

/** What the message needs to name: where we called. */
export interface ErrorContext {
  provider: string;
  model: string;
  baseUrl: string;
  /** Set when the caller's AbortSignal fired. */
  cancelledByCaller?: boolean;
}

/**
 * The caller aborted the request (Stop, cancel, shutdown). Kind 'cancelled', so code that only
 * knows ModelError treats it as before; `partialText` is the answer text streamed before the
 * abort, which a stopped reply keeps (committed marked "stopped").
 */
export class ModelStoppedError extends ModelError {
  constructor(
    readonly partialText: string,
    provider?: string,
  ) {
    super('cancelled', 'The model request was cancelled.', provider ? { provider } : {});
    this.name = 'ModelStoppedError';
  }
}

export const formatSeconds = (ms: number): string => `${Number((ms / 1000).toFixed(ms < 1000 ? 2 : 1))} s`;

export function toModelError(error: unknown, sdk: SdkErrorClasses, ctx: ErrorContext): ModelError {
  if (error instanceof ModelError) return error;
  const base = { provider: ctx.provider };
  // The text streamed before a Stop is the guard's to hand back (guarded.ts).
  if (ctx.cancelledByCaller || error instanceof sdk.APIUserAbortError) return new ModelStoppedError('', ctx.provider);
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new ModelError('timeout', `No response from ${ctx.baseUrl} in time. Try again; if it keeps happening, check the server.`, base);
  }
  if (error instanceof sdk.APIConnectionError) {
    return new ModelError(
      'connection',
      `Cannot reach ${ctx.baseUrl}: ${describeCause(error)}. Check tasklane.model.baseUrl and that the server is running.`,
      base,
    );
  }
  if (error instanceof sdk.APIError) {
    const status = (error as { status?: number }).status;
    const headers = (error as { headers?: unknown }).headers;
    const detail = serverMessage(error);
    const retryAfterMs = retryAfter(headers);
    // Retry-After rides along on every status: the guard honours it for a 5xx as for a 429.
    const details = { ...base, ...(status !== undefined ? { status } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    if (status === 401 || status === 403) {
      return new ModelError(
        'auth',
        `The model server at ${ctx.baseUrl} refused the API key (${status}${detail ? `: ${detail}` : ''}). Run 'Tasklane: Set API Key'.`,
        details,
      );
    }
    if (status === 429) {
      const when = retryAfterMs !== undefined ? `retry after ${formatSeconds(retryAfterMs)}` : 'wait a minute and retry';
      return new ModelError('rate_limit', `Rate limited (429) by ${ctx.baseUrl}; ${when}.${detail ? ` Server said: ${detail}` : ''}`, details);
    }
    if (status === 404) {
      return new ModelError(
        'not_found',
        `The model server at ${ctx.baseUrl} has no model '${ctx.model}' or no such endpoint (404${detail ? `: ${detail}` : ''}). Check tasklane.model.id and tasklane.model.baseUrl (OpenAI-compatible servers usually end in /v1).`,
        details,
      );
    }
    if ((status === 400 || status === 413) && CONTEXT_TOO_LONG.test(`${detail} ${codeOf(error)}`)) {
      return new ModelError(
        'context_length',
        `The request is longer than the context of '${ctx.model}' at ${ctx.baseUrl} (${status}${detail ? `: ${detail}` : ''}).`,
        details,
      );
    }
    if (status !== undefined && status >= 500) {
      return new ModelError('server', `The model server at ${ctx.baseUrl} failed (${status})${detail ? `: ${detail}` : ''}. Try again later.`, details);
    }
    return new ModelError(
      'bad_request',
      `The model server at ${ctx.baseUrl} rejected the request (${status ?? 'no status'})${detail ? `: ${detail}` : ''}. Check the model id and settings; if the conversation is too long, start a new task.`,
      details,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError('server', `The model call to ${ctx.baseUrl} failed unexpectedly: ${message}. Try again; if it persists, see the Tasklane log.`, base);
}

/**
 * How providers word a request longer than the model's context, from their API references and SDK
 * fixtures: OpenAI `context_length_exceeded` ("This model's maximum context length is … tokens"),
 * Anthropic "prompt is too long: … tokens > … maximum" (and a 413 "Request exceeds the maximum
 * allowed number of bytes"), vLLM "maximum context length", llama.cpp "the request exceeds the
 * available context size", "too many tokens", LM Studio "context length".
 */
const CONTEXT_TOO_LONG =
  /context[_ ]length|context window|maximum context|prompt is too long|too many tokens|input is too long|request too large|exceeds? the (?:[\w']+ )?(?:maximum|context)/i;

/** The provider's error code (OpenAI `{error:{code}}`), where it gives one. */
function codeOf(error: Error): string {
  const code = (error as { code?: unknown }).code ?? ((error as { error?: { code?: unknown } }).error?.code as unknown);
  return typeof code === 'string' ? code : '';
}

/** The provider's own error text: OpenAI `{error:{message}}`, Anthropic `{type:'error', error:{message}}`. */
function serverMessage(error: Error): string {
  const body = (error as { error?: unknown }).error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const text = body?.error?.message ?? body?.message;
  if (typeof text === 'string') return text;
  // The SDK prefixes its message with the status ("401 ..."); drop it, we print the status ourselves.
  return error.message.replace(/^\d{3}\s*/, '').replace(/^status code \(no body\)$/i, '');
}

function retryAfter(headers: unknown): number | undefined {
  const get = (name: string): string | undefined => {
    if (headers && typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
    const value = (headers as Record<string, unknown> | undefined)?.[name];
    return typeof value === 'string' ? value : undefined;
  };
  const ms = Number.parseFloat(get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = get('retry-after');
  if (raw === undefined) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/** Finds the system error code under the SDK's wrapper (APIConnectionError → TypeError → Error{code}). */
function describeCause(error: Error): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      const known: Record<string, string> = {
        ECONNREFUSED: 'connection refused',
        ENOTFOUND: 'host not found',
        EAI_AGAIN: 'host name lookup failed',
        ECONNRESET: 'connection reset by the server',
        EHOSTUNREACH: 'host unreachable',
        ETIMEDOUT: 'connection timed out',
        CERT_HAS_EXPIRED: 'its TLS certificate has expired',
        DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
      };
      return known[code] ?? code;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return error.message || 'connection failed';
}
