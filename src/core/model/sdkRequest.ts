/**
 * The plumbing both SDK-backed clients (OpenAI, Anthropic) wrap around one model call: the idle
 * watchdog, draining a stream into an accumulator, and mapping a failure to a ModelError that is
 * logged once. Only the wire formats differ between the two clients; this is what they share.
 */
import type { Logger } from '../ports';
import type { SdkClientOptions } from './clientOptions';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from './clientOptions';
import { toModelError } from './errors';
import type { SdkErrorClasses } from './errors';
import { RequestGuard } from './requestGuard';
import type { ModelDelta, ModelRequest, ModelResponse } from './types';

/** The client's identity and patience, as its error messages and log lines name them. */
export interface SdkCallSite {
  provider: string;
  model: string;
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  logger?: Logger;
  /** The SDK's own error classes (same names in both SDKs, different classes). */
  sdkErrors: SdkErrorClasses;
}

/** SdkClientOptions with their defaults applied. */
export interface SdkSettings {
  timeoutMs: number;
  maxRetries: number;
  stream: boolean;
}

export function resolveSdkSettings(options: SdkClientOptions): SdkSettings {
  return {
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    stream: options.stream ?? true,
  };
}

/**
 * Runs `call` under a RequestGuard (caller cancel + idle watchdog) and turns any failure into a
 * ModelError, logged under [MODEL] with the provider and model so the user can tell which failed.
 */
export async function guardedModelCall(
  site: SdkCallSite,
  signal: AbortSignal | undefined,
  call: (guard: RequestGuard) => Promise<ModelResponse>,
): Promise<ModelResponse> {
  const guard = new RequestGuard(site.timeoutMs, signal);
  try {
    return await call(guard);
  } catch (error) {
    const mapped = toModelError(error, site.sdkErrors, {
      provider: site.provider,
      model: site.model,
      baseUrl: site.baseUrl,
      timeoutMs: site.timeoutMs,
      maxRetries: site.maxRetries,
      idleTimedOut: guard.idleTimedOut,
      cancelledByCaller: guard.cancelledByCaller,
      partialText: guard.partialText,
    });
    site.logger?.warn('MODEL', `${site.provider} ${site.model}: ${mapped.kind}: ${mapped.message}`);
    throw mapped;
  } finally {
    guard.dispose();
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
 * Drains an opened stream into `acc`, re-arming the idle watchdog on every event and passing
 * its deltas on. A stream the guard aborted ends quietly in both SDKs, so that is turned into
 * an error here rather than returned as a truncated answer.
 */
export async function drainStream<E>(
  stream: AsyncIterable<E>,
  acc: StreamAccumulatorLike<E>,
  guard: RequestGuard,
  emit: (delta: ModelDelta) => void,
): Promise<ModelResponse> {
  guard.touch();
  for await (const event of stream) {
    guard.touch();
    for (const delta of acc.add(event)) {
      // Kept on the guard so a Stop can hand back what was said before it.
      if (delta.kind === 'text') guard.partialText += delta.text;
      emit(delta);
    }
  }
  guard.throwIfAborted();
  return acc.finish();
}
