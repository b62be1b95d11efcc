import type { ToolCall } from './types';

/**
 * Settings shared by the SDK-backed clients (OpenAI and Anthropic). Their patience (timeout,
 * retries) is the guard's, applied around them by createModelClient (guarded.ts).
 */
export interface SdkClientOptions {
  model: string;
  apiKey: string;
  /** Provider endpoint; default: the SDK's (api.openai.com/v1, api.anthropic.com). */
  baseUrl?: string;
  /** Stream the answer (onDelta gets deltas as they arrive). Default true. */
  stream?: boolean;
}

/** The guard's defaults (guarded.ts) for every client. */
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;

/** Keeps the model's exact argument text and parses it; invalid JSON leaves `arguments` undefined. */
export function toToolCall(id: string, name: string, rawArguments: string): ToolCall {
  let parsed: unknown;
  try {
    // Models commonly send "" for a tool without parameters: that means {}.
    parsed = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
  } catch {
    parsed = undefined;
  }
  return { id, name, rawArguments, arguments: parsed };
}
