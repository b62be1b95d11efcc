/**
 * ModelClient over the OpenAI Chat Completions API with the official `openai` SDK. Also serves
 * OpenAI-compatible endpoints (Ollama, LM Studio, vLLM, OpenRouter) given a base URL.
 */
import type * as OpenAiSdk from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { toToolCall } from './clientOptions';
import type { SdkClientOptions } from './clientOptions';
import { deltaSink, drainStream, emitWhole, sdkCall, UNFINISHED } from './sdkRequest';
import { recoverTextToolCalls } from './textToolCalls';
import type { SdkCallSite } from './sdkRequest';
import type { ModelClient, ModelDelta, ModelMessage, ModelRequest, ModelResponse, ToolCall, Usage } from './types';

/**
 * The SDK as this file's types see it (its CommonJS declarations). `import()` would type it by
 * its ES module declarations, whose classes TypeScript holds distinct; at run time the client and
 * the error classes always come from the one module that was loaded.
 */
type Sdk = typeof OpenAiSdk;
type SdkClient = InstanceType<Sdk['OpenAI']>;

export interface OpenAiClientOptions extends SdkClientOptions {
  /** 'openai-compatible' sends `max_tokens` (understood by local servers) instead of `max_completion_tokens`. */
  provider?: 'openai' | 'openai-compatible';
}

export class OpenAiClient implements ModelClient {
  readonly provider: 'openai' | 'openai-compatible';
  readonly model: string;
  readonly baseUrl: string;
  /** The SDK is loaded on the first call, not at activation (esbuild.js makes it its own file). */
  private sdk: Promise<{ client: SdkClient; site: SdkCallSite }> | undefined;
  private readonly stream: boolean;

  constructor(private readonly options: OpenAiClientOptions) {
    this.provider = options.provider ?? 'openai';
    this.model = options.model;
    this.stream = options.stream ?? true;
    // Explicit, so an OPENAI_BASE_URL in the environment cannot silently redirect the key.
    this.baseUrl = options.baseUrl ?? 'https://api.openai.com/v1';
  }

  private load(): Promise<{ client: SdkClient; site: SdkCallSite }> {
    this.sdk ??= import('openai')
      .then((sdk) => sdk as unknown as Sdk)
      .then(({ OpenAI, APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError }) => {
        const client = new OpenAI({
          apiKey: this.options.apiKey,
          baseURL: this.baseUrl,
          // The guard (guarded.ts) times out and retries every client the same way; the SDK does neither.
          maxRetries: 0,
          // OPENAI_ORG_ID / OPENAI_PROJECT_ID belong to api.openai.com; never send them to a third-party server.
          ...(this.provider === 'openai-compatible' ? { organization: null, project: null } : {}),
        });
        const sdkErrors = { APIError, APIUserAbortError, APIConnectionError, APIConnectionTimeoutError };
        return { client, site: { provider: this.provider, model: this.model, baseUrl: this.baseUrl, sdkErrors } };
      });
    return this.sdk;
  }

  async complete(request: ModelRequest, onText?: (delta: string) => void): Promise<ModelResponse> {
    const { client, site } = await this.load();
    return sdkCall(site, request.signal, async () => {
      const params = this.buildParams(request);
      const emit = deltaSink(request, onText);
      if (!this.stream) {
        const completion = await client.chat.completions.create({ ...params, stream: false }, { signal: request.signal });
        return recoverTextToolCalls(emitWhole(fromCompletion(completion, this.model), emit), request.tools);
      }
      // The SDK passes the signal to fetch: aborting it closes the connection mid-stream.
      const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } }, { signal: request.signal });
      return recoverTextToolCalls(await drainStream(stream, new StreamAccumulator(this.model), request.signal, emit), request.tools);
    });
  }

  private buildParams(request: ModelRequest): ChatCompletionCreateParamsBase {
    const params: ChatCompletionCreateParamsBase = { model: this.model, messages: toOpenAiMessages(request) };
    if (request.tools.length) {
      params.tools = request.tools.map((t): ChatCompletionTool => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.inputSchema },
      }));
      params.tool_choice = request.toolChoice ?? 'auto';
    }
    if (request.maxOutputTokens !== undefined) {
      if (this.provider === 'openai') params.max_completion_tokens = request.maxOutputTokens;
      else params.max_tokens = request.maxOutputTokens;
    }
    return params;
  }
}

/** Maps the provider-neutral conversation onto Chat Completions messages. */
export function toOpenAiMessages(request: Pick<ModelRequest, 'system' | 'messages'>): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (request.system) out.push({ role: 'system', content: request.system });
  for (const m of request.messages) out.push(toOpenAiMessage(m));
  return out;
}

function toOpenAiMessage(m: ModelMessage): ChatCompletionMessageParam {
  if (m.role === 'user') return { role: 'user', content: m.content };
  if (m.role === 'tool') {
    // Chat Completions has no error flag on tool results: say it in the content, once (the engine's
    // failed results already begin with "Error: ", and a doubled prefix reached what people read).
    const said = m.isError && !m.content.startsWith('Error: ') ? `Error: ${m.content}` : m.content;
    return { role: 'tool', tool_call_id: m.toolCallId, content: said };
  }
  if (!m.toolCalls?.length) return { role: 'assistant', content: m.content };
  return {
    role: 'assistant',
    content: m.content || null,
    tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.rawArguments } })),
  };
}

export function normaliseOpenAiStop(reason: string | null | undefined): string {
  if (reason === 'stop') return 'end';
  if (reason === 'tool_calls' || reason === 'function_call') return 'tool_calls';
  if (reason === 'length') return 'max_tokens';
  return reason ?? 'end';
}

/** prompt_tokens includes cached tokens; Usage.inputTokens counts only the uncached ones. */
export function fromOpenAiUsage(usage: CompletionUsage | null | undefined): Usage {
  const prompt = usage?.prompt_tokens ?? 0;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return { inputTokens: Math.max(0, prompt - cached), outputTokens: usage?.completion_tokens ?? 0, cacheReadTokens: cached, cacheWriteTokens: 0 };
}

/** The cost a server reports with its usage (OpenRouter: `usage.cost`, USD), when it reports one. */
export function reportedCost(usage: CompletionUsage | null | undefined): number | undefined {
  const cost = (usage as { cost?: unknown } | null | undefined)?.cost;
  return typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : undefined;
}

/** A response with the server's reported cost, when there is one. */
function withCost(response: ModelResponse, usage: CompletionUsage | null | undefined): ModelResponse {
  const costUsd = reportedCost(usage);
  return costUsd === undefined ? response : { ...response, costUsd };
}

function fromCompletion(completion: ChatCompletion, model: string): ModelResponse {
  const choice = completion.choices[0];
  const toolCalls: ToolCall[] = [];
  for (const call of choice?.message.tool_calls ?? []) {
    if (call.type === 'function') toolCalls.push(toToolCall(call.id, call.function.name, call.function.arguments ?? ''));
  }
  return withCost(
    {
      text: choice?.message.content ?? '',
      toolCalls,
      usage: fromOpenAiUsage(completion.usage),
      stopReason: normaliseOpenAiStop(choice?.finish_reason),
      model: completion.model || model,
    },
    completion.usage,
  );
}

/** Rebuilds one answer from stream chunks; tool call fragments are keyed by their index. */
class StreamAccumulator {
  private text = '';
  private readonly calls = new Map<number, { id: string; name: string; raw: string }>();
  private finishReason: string | null = null;
  private usage: CompletionUsage | undefined;
  private model: string;

  constructor(model: string) {
    this.model = model;
  }

  /** Returns this chunk's deltas: its text, then one per tool call it extended. */
  add(chunk: ChatCompletionChunk): ModelDelta[] {
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    const deltas: ModelDelta[] = [];
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== 0) continue;
      if (choice.delta?.content) {
        this.text += choice.delta.content;
        deltas.push({ kind: 'text', text: choice.delta.content });
      }
      for (const part of choice.delta?.tool_calls ?? []) {
        const call = this.calls.get(part.index) ?? { id: '', name: '', raw: '' };
        if (part.id) call.id = part.id;
        // OpenAI sends the name once; some compatible servers repeat it on every fragment.
        const name = part.function?.name;
        if (name && name !== call.name) call.name += name;
        if (part.function?.arguments) call.raw += part.function.arguments;
        this.calls.set(part.index, call);
        deltas.push({ kind: 'tool', callId: call.id || `call_${part.index}`, name: call.name, argumentsText: call.raw });
      }
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    return deltas;
  }

  finish(): ModelResponse {
    const toolCalls = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([index, c]) => toToolCall(c.id || `call_${index}`, c.name, c.raw));
    return withCost(
      {
        text: this.text,
        toolCalls,
        usage: fromOpenAiUsage(this.usage),
        stopReason: this.finishReason === null ? UNFINISHED : normaliseOpenAiStop(this.finishReason),
        model: this.model,
      },
      this.usage,
    );
  }
}
