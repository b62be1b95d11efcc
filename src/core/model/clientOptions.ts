import type { Logger } from '../ports';
import type { ToolCall } from './types';

/** Settings shared by the SDK-backed clients (OpenAI and Anthropic). */
export interface SdkClientOptions {
  model: string;
  apiKey: string;
  /** Provider endpoint; default: the SDK's (api.openai.com/v1, api.anthropic.com). */
  baseUrl?: string;
  /**
   * How long to wait for the response to start, and, when streaming, the longest silence
   * between two chunks. Default 60 000 ms.
   */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx and connection errors, with backoff honouring Retry-After. Default 2. */
  maxRetries?: number;
  /** Stream the answer (onText gets deltas as they arrive). Default true. */
  stream?: boolean;
  logger?: Logger;
}

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
