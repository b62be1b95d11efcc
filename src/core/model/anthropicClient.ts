/**
 * ModelClient over the Anthropic Messages API with the official `@anthropic-ai/sdk`. Puts
 * cache_control breakpoints on the byte-stable prefix (last tool, system prompt, last stable
 * message) so repeated turns of a task read the prefix from the prompt cache.
 */
import type * as AnthropicSdk from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsBase,
  RawMessageStreamEvent,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { toToolCall } from './clientOptions';
import type { SdkClientOptions } from './clientOptions';
import { deltaSink, drainStream, emitWhole, sdkCall, UNFINISHED } from './sdkRequest';
import type { SdkCallSite } from './sdkRequest';
import type { ModelClient, ModelDelta, ModelRequest, ModelResponse, Usage } from './types';

/**
 * The SDK as this file's types see it (its CommonJS declarations). `import()` would type it by
 * its ES module declarations, whose classes TypeScript holds distinct; at run time the client and
 * the error classes always come from the one module that was loaded.
 */
type Sdk = typeof AnthropicSdk;
type SdkClient = InstanceType<Sdk['Anthropic']>;
const ephemeral = { type: 'ephemeral' } as const;

export interface AnthropicClientOptions extends SdkClientOptions {
  /** max_tokens when the request sets none (the API requires one). Default 8192. */
  defaultMaxOutputTokens?: number;
}

type WireMessage = { role: 'user' | 'assistant'; content: ContentBlockParam[] };

export class AnthropicClient implements ModelClient {
  readonly provider = 'anthropic';
  readonly model: string;
  readonly baseUrl: string;
  /** The SDK is loaded on the first call, not at activation (a fifth of the bundle; esbuild.js makes it its own file). */
  private sdk: Promise<{ client: SdkClient; site: SdkCallSite }> | undefined;
  private readonly stream: boolean;

  constructor(private readonly options: AnthropicClientOptions) {
    this.model = options.model;
    this.stream = options.stream ?? true;
    // Explicit, so an ANTHROPIC_BASE_URL in the environment cannot silently redirect the key.
    this.baseUrl = options.baseUrl ?? 'https://api.anthropic.com';
  }

  private load(): Promise<{ client: SdkClient; site: SdkCallSite }> {
    this.sdk ??= import('@anthropic-ai/sdk')
      .then((sdk) => sdk as unknown as Sdk)
      .then(({ Anthropic, APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError }) => {
        const client = new Anthropic({
          apiKey: this.options.apiKey,
          // Not from ANTHROPIC_AUTH_TOKEN: the key the user configured is the only credential sent.
          authToken: null,
          baseURL: this.baseUrl,
          // The guard (guarded.ts) times out and retries every client the same way; the SDK does neither.
          maxRetries: 0,
        });
        const sdkErrors = { APIError, APIUserAbortError, APIConnectionError, APIConnectionTimeoutError };
        return { client, site: { provider: this.provider, model: this.model, baseUrl: this.baseUrl, sdkErrors } };
      });
    return this.sdk;
  }

  async complete(request: ModelRequest, onText?: (delta: string) => void): Promise<ModelResponse> {
    const { client, site } = await this.load();
    return sdkCall(site, request.signal, async () => {
      const params = buildAnthropicParams(request, this.model, this.options.defaultMaxOutputTokens ?? 8192);
      const emit = deltaSink(request, onText);
      if (!this.stream) {
        const message = await client.messages.create({ ...params, stream: false }, { signal: request.signal });
        return emitWhole(fromMessage(message as Message, this.model), emit);
      }
      // The SDK passes the signal to fetch: aborting it closes the connection mid-stream.
      const stream = await client.messages.create({ ...params, stream: true }, { signal: request.signal });
      return drainStream(stream, new StreamAccumulator(this.model), request.signal, emit);
    });
  }
}

/** Builds the Messages request, with cache breakpoints on the stable prefix. Exported for tests. */
export function buildAnthropicParams(request: ModelRequest, model: string, defaultMaxTokens: number): MessageCreateParamsBase {
  const params: MessageCreateParamsBase = {
    model,
    max_tokens: request.maxOutputTokens ?? defaultMaxTokens,
    messages: toAnthropicMessages(request),
  };
  if (request.system) {
    const system: TextBlockParam = { type: 'text', text: request.system, cache_control: ephemeral };
    params.system = [system];
  }
  if (request.tools.length) {
    params.tools = request.tools.map((t, i): Tool => ({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema as Tool['input_schema'],
      // Tools precede the system prompt in the cache order: one breakpoint on the last covers all.
      ...(i === request.tools.length - 1 ? { cache_control: ephemeral } : {}),
    }));
    params.tool_choice = { type: request.toolChoice === 'required' ? 'any' : 'auto' };
  }
  return params;
}

/**
 * Maps the conversation onto alternating user/assistant turns: tool results travel as
 * tool_result blocks in a user turn, and consecutive same-role messages are merged (the API
 * requires alternation). The last stable-prefix message gets a cache breakpoint.
 */
export function toAnthropicMessages(request: Pick<ModelRequest, 'messages' | 'stablePrefixMessages'>): WireMessage[] {
  const out: WireMessage[] = [];
  const prefixEnd = (request.stablePrefixMessages ?? 0) - 1;
  request.messages.forEach((m, index) => {
    let role: WireMessage['role'];
    const blocks: ContentBlockParam[] = [];
    if (m.role === 'user') {
      role = 'user';
      // The API rejects empty text blocks.
      if (m.content) blocks.push({ type: 'text', text: m.content });
    } else if (m.role === 'assistant') {
      role = 'assistant';
      if (m.content) blocks.push({ type: 'text', text: m.content });
      for (const call of m.toolCalls ?? []) {
        // tool_use input must be an object; a malformed call is echoed as {} (its error result explains).
        const input = isObject(call.arguments) ? call.arguments : {};
        blocks.push({ type: 'tool_use', id: call.id, name: call.name, input });
      }
    } else {
      role = 'user';
      blocks.push({ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content, ...(m.isError ? { is_error: true } : {}) });
    }
    if (!blocks.length) return;
    if (index === prefixEnd) {
      const last = blocks[blocks.length - 1] as { cache_control?: typeof ephemeral };
      last.cache_control = ephemeral;
    }
    const previous = out[out.length - 1];
    if (previous?.role === role) previous.content.push(...blocks);
    else out.push({ role, content: blocks });
  });
  return out;
}

export function normaliseAnthropicStop(reason: string | null | undefined): string {
  if (reason === 'end_turn' || reason === 'stop_sequence') return 'end';
  if (reason === 'tool_use') return 'tool_calls';
  return reason ?? 'end';
}

interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** Anthropic's input_tokens already excludes cache reads and writes, as Usage.inputTokens does. */
export function fromAnthropicUsage(usage: WireUsage | null | undefined): Usage {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheReadTokens: usage?.cache_read_input_tokens ?? 0,
    cacheWriteTokens: usage?.cache_creation_input_tokens ?? 0,
  };
}

function fromMessage(message: Message, model: string): ModelResponse {
  let text = '';
  const toolCalls = [];
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use') toolCalls.push(toToolCall(block.id, block.name, JSON.stringify(block.input ?? {})));
  }
  return { text, toolCalls, usage: fromAnthropicUsage(message.usage), stopReason: normaliseAnthropicStop(message.stop_reason), model: message.model || model };
}

/** Rebuilds one answer from raw stream events, keeping tool input text exactly as streamed. */
class StreamAccumulator {
  private text = '';
  private readonly blocks = new Map<number, { kind: 'tool'; id: string; name: string; raw: string; initial: unknown }>();
  private usage: WireUsage = {};
  private stopReason: string | null = null;
  private model: string;

  constructor(model: string) {
    this.model = model;
  }

  /** Returns the event's deltas: new text, or a tool call's arguments so far. */
  add(event: RawMessageStreamEvent): ModelDelta[] {
    switch (event.type) {
      case 'message_start':
        if (event.message.model) this.model = event.message.model;
        this.usage = { ...event.message.usage };
        return [];
      case 'content_block_start':
        if (event.content_block.type === 'tool_use') {
          const b = event.content_block;
          this.blocks.set(event.index, { kind: 'tool', id: b.id, name: b.name, raw: '', initial: b.input });
          // The call is known (and worth showing) before its first argument byte.
          return [{ kind: 'tool', callId: b.id, name: b.name, argumentsText: '' }];
        }
        return [];
      case 'content_block_delta':
        if (event.delta.type === 'text_delta') {
          this.text += event.delta.text;
          return [{ kind: 'text', text: event.delta.text }];
        }
        if (event.delta.type === 'input_json_delta') {
          const block = this.blocks.get(event.index);
          if (block) {
            block.raw += event.delta.partial_json;
            return [{ kind: 'tool', callId: block.id, name: block.name, argumentsText: block.raw }];
          }
        }
        return [];
      case 'message_delta': {
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        // message_delta carries cumulative counts; null means "unchanged since message_start".
        const u = event.usage;
        this.usage = {
          input_tokens: u.input_tokens ?? this.usage.input_tokens,
          output_tokens: u.output_tokens ?? this.usage.output_tokens,
          cache_read_input_tokens: u.cache_read_input_tokens ?? this.usage.cache_read_input_tokens,
          cache_creation_input_tokens: u.cache_creation_input_tokens ?? this.usage.cache_creation_input_tokens,
        };
        return [];
      }
      default:
        return [];
    }
  }

  finish(): ModelResponse {
    const toolCalls = [...this.blocks.entries()]
      .sort(([a], [b]) => a - b)
      // A tool without parameters may stream no input deltas: its input is the start block's.
      .map(([, b]) => toToolCall(b.id, b.name, b.raw === '' ? JSON.stringify(b.initial ?? {}) : b.raw));
    return {
      text: this.text,
      toolCalls,
      usage: fromAnthropicUsage(this.usage),
      stopReason: this.stopReason === null ? UNFINISHED : normaliseAnthropicStop(this.stopReason),
      model: this.model,
    };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
