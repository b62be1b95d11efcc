/**
 * What both SDK-backed clients (OpenAI, Anthropic) wrap around one model call: draining a stream
 * into an accumulator, and mapping an SDK failure to a ModelError. Only the wire formats differ
 * between the two clients. The watchdog, the retries, the caller's cancel and the log line are
 * not here: every client, vscode-lm included, runs under the same guard (guarded.ts).
 */
import { toModelError } from './errors';
import type { SdkErrorClasses } from './errors';
import type { ModelDelta, ModelRequest, ModelResponse } from './types';
import { ModelError } from './types';

/** The client's identity, as its error messages name it. */
export interface SdkCallSite {
  provider: string;
  model: string;
  baseUrl: string;
  /** The SDK's own error classes (same names in both SDKs, different classes). */
  sdkErrors: SdkErrorClasses;
}

/** Runs one SDK call and turns any failure into a ModelError (kind, status, Retry-After). */
export async function sdkCall(site: SdkCallSite, signal: AbortSignal | undefined, call: () => Promise<ModelResponse>): Promise<ModelResponse> {
  try {
    return await call();
  } catch (error) {
    throw toModelError(error, site.sdkErrors, { provider: site.provider, model: site.model, baseUrl: site.baseUrl, cancelledByCaller: signal?.aborted });
  }
}

/** Rebuilds one answer from a provider's stream events; `add` returns the event's deltas. */
export interface StreamAccumulatorLike<E> {
  add(event: E): ModelDelta[];
  finish(): ModelResponse;
}

/** Where one call's deltas go: the request's `onDelta`, and text alone to the legacy `onText`. */
export function deltaSink(request: Pick<ModelRequest, 'onDelta'>, onText?: (delta: string) => void): (delta: ModelDelta) => void {
  return (delta) => {
    request.onDelta?.(delta);
    if (delta.kind === 'text') onText?.(delta.text);
  };
}

/** A non-streamed answer told as deltas (once, complete), so callers see one shape either way. */
export function emitWhole(response: ModelResponse, emit: (delta: ModelDelta) => void): ModelResponse {
  if (response.text) emit({ kind: 'text', text: response.text });
  for (const call of response.toolCalls) emit({ kind: 'tool', callId: call.id, name: call.name, argumentsText: call.rawArguments });
  return response;
}

/**
 * Drains an opened stream into `acc`, passing its deltas on. A stream whose signal aborted ends
 * quietly in both SDKs, so that is turned into an error here rather than returned as a
 * truncated answer.
 */
export async function drainStream<E>(
  stream: AsyncIterable<E>,
  acc: StreamAccumulatorLike<E>,
  signal: AbortSignal | undefined,
  emit: (delta: ModelDelta) => void,
): Promise<ModelResponse> {
  for await (const event of stream) {
    for (const delta of acc.add(event)) emit(delta);
  }
  if (signal?.aborted) throw new Error('request aborted');
  const response = acc.finish();
  // Both wire formats end every complete answer with a finish (stop) reason: a stream that closed
  // without one was cut (a proxy, a crashed server), and its text or tool arguments may be half
  // there. It is a transient failure, so the turn is retried, never taken as the answer.
  if (response.stopReason === UNFINISHED) {
    throw new ModelError(
      'connection',
      `The model's answer stopped before it finished (the stream ended without a finish reason, after ${response.text.length} characters and ${response.toolCalls.length} tool call(s)). The turn is retried.`,
    );
  }
  return response;
}

/** The stop reason an accumulator reports for a stream that ended without one. */
export const UNFINISHED = 'unfinished';
