/**
 * The model port: what the engine needs from a language model, independent of provider.
 * Implementations: OpenAI Chat Completions and Anthropic Messages (src/core/model, via the
 * official SDKs) and VS Code's Language Model API (src/host, via vscode.lm).
 */

/** A tool the model may call, with its input as JSON Schema (exported once from zod). */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** One tool call the model asked for. */
export interface ToolCall {
  /** Provider-assigned id, echoed back in the matching tool result. */
  id: string;
  name: string;
  /** The raw argument text as the model sent it. */
  rawArguments: string;
  /** `rawArguments` parsed as JSON, or undefined when it is not valid JSON. */
  arguments: unknown;
}

export type ModelMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

/**
 * One piece of an answer as the provider streams it. `text` carries only the new text;
 * `argumentsText` of a tool delta is everything streamed so far for that call (so a consumer can
 * drop intermediate deltas without losing anything). Deltas arrive in wire order.
 */
export type ModelDelta = { kind: 'text'; text: string } | { kind: 'tool'; callId: string; name: string; argumentsText: string };

export interface ModelRequest {
  /** System prompt: part of the byte-stable prefix. */
  system: string;
  /** Tools, in a stable order: part of the byte-stable prefix. */
  tools: ToolSpec[];
  messages: ModelMessage[];
  /**
   * How many leading `messages` belong to the stable prefix (AGENTS.md rules, chosen skills, the
   * task's instruction). Anthropic puts a cache_control breakpoint on the last of them.
   */
  stablePrefixMessages?: number;
  /** 'required' forces a tool call (the engine's select step); default 'auto'. */
  toolChoice?: 'auto' | 'required';
  maxOutputTokens?: number;
  /**
   * Aborting it cancels the HTTP request (or the vscode.lm request) and makes `complete` reject
   * with a `ModelStoppedError` carrying the text streamed so far.
   */
  signal?: AbortSignal;
  /** Called synchronously for each streamed piece, as it arrives (non-streaming: once, at the end). */
  onDelta?: (delta: ModelDelta) => void;
}

/**
 * Tokens one call consumed. The prompt is split three ways so cost and cache hit rate can be
 * computed: the whole prompt is inputTokens + cacheReadTokens + cacheWriteTokens.
 */
export interface Usage {
  /** Prompt tokens neither read from nor written to the provider's prompt cache. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface ModelResponse {
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
  /** Normalised: 'end' | 'tool_calls' | 'max_tokens' | other provider value. */
  stopReason: string;
  /** Model id the provider reports having used. */
  model: string;
  /**
   * What the server says this call cost, in USD (OpenRouter's `usage.cost`); believed over any
   * price table. Undefined when the server reports none (most do not).
   */
  costUsd?: number;
}

export interface ModelClient {
  /** 'openai' | 'openai-compatible' | 'anthropic' | 'vscode-lm' */
  readonly provider: string;
  readonly model: string;
  complete(request: ModelRequest, onText?: (delta: string) => void): Promise<ModelResponse>;
}

/** Why a model call failed, in terms a user can act on. */
export type ModelErrorKind =
  | 'missing_key'
  | 'auth'
  | 'rate_limit'
  | 'timeout'
  | 'connection'
  | 'not_found'
  | 'bad_request'
  /** The request is longer than the model's context window (a 400 or 413 saying so): cut and retry. */
  | 'context_length'
  | 'server'
  | 'cancelled'
  | 'no_model';

export class ModelError extends Error {
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly details: { status?: number; retryAfterMs?: number; provider?: string } = {},
  ) {
    super(message);
    this.name = 'ModelError';
  }
}
