/**
 * The guard every model client runs under, whatever its transport (the OpenAI and Anthropic SDKs,
 * VS Code's Language Model API): an idle watchdog, retries with backoff, the caller's cancel, and
 * one [MODEL] log line per failure. So `tasklane.model.timeoutSeconds` and `maxRetries` mean the
 * same for every provider. A client under it only speaks its wire format and maps its own
 * failures to ModelErrors (kind and status); what to retry, when to give up and how a stall or a
 * Stop reads is decided here.
 */
import type { Clock, Logger } from '../ports';
import { systemClock } from '../ports';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from './clientOptions';
import { formatSeconds, ModelStoppedError } from './errors';
import { ModelError } from './types';
import type { ModelClient, ModelDelta, ModelRequest, ModelResponse } from './types';

export interface GuardOptions {
  /** The longest wait for the first piece of an answer and between two pieces. Default 60 s. */
  timeoutMs?: number;
  /** Retries after a 429, a 5xx or a dropped connection, before anything streamed. Default 2. */
  maxRetries?: number;
  /** Where the calls go, as messages name it (a base URL, or the VS Code model). Default: the model id. */
  where?: string;
  logger?: Logger;
  /** Timers for the watchdog and the backoff; default the system clock. */
  clock?: Clock;
  /** Jitter source for the backoff; default Math.random. */
  random?: () => number;
}

/** A Retry-After longer than this is not waited for: the default backoff applies (as in both SDKs). */
const MAX_RETRY_AFTER_MS = 60_000;
const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 8_000;

/** A client under the guard; `where` is the endpoint its messages name. */
export interface GuardedModelClient extends ModelClient {
  readonly where: string;
}

/** Wraps `client` so every call runs under the guard. */
export function guarded(client: ModelClient, options: GuardOptions = {}): GuardedModelClient {
  return new GuardedClient(client, options);
}

class GuardedClient implements GuardedModelClient {
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  readonly where: string;
  private readonly clock: Clock;

  constructor(
    private readonly inner: ModelClient,
    private readonly options: GuardOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.where = options.where ?? inner.model;
    this.clock = options.clock ?? systemClock;
  }

  get provider(): string {
    return this.inner.provider;
  }

  get model(): string {
    return this.inner.model;
  }

  async complete(request: ModelRequest, onText?: (delta: string) => void): Promise<ModelResponse> {
    for (let attempt = 0; ; attempt++) {
      const watch = new Attempt(this.timeoutMs, this.clock, request.signal);
      try {
        return await watch.run((signal) =>
          this.inner.complete(
            {
              ...request,
              signal,
              onDelta: (delta) => {
                watch.saw(delta);
                request.onDelta?.(delta);
              },
            },
            onText,
          ),
        );
      } catch (error) {
        const mapped = this.explain(error, watch);
        const wait = attempt < this.maxRetries && !watch.streamed ? this.retryDelay(mapped, attempt) : undefined;
        if (wait === undefined) {
          const final = attempt > 0 ? withRetries(mapped, attempt) : mapped;
          if (final.kind !== 'cancelled') this.options.logger?.warn('MODEL', `${this.provider} ${this.model}: ${final.kind}: ${final.message}`);
          throw final;
        }
        this.options.logger?.info(
          'MODEL',
          `${this.provider} ${this.model}: ${mapped.kind}; retry ${attempt + 1} of ${this.maxRetries} in ${formatSeconds(wait)}`,
        );
        await this.sleep(wait, request.signal);
      } finally {
        watch.dispose();
      }
    }
  }

  /** What failed, in the terms the person and the engine act on; our own aborts explain themselves. */
  private explain(error: unknown, watch: Attempt): ModelError {
    if (watch.idleTimedOut) {
      return new ModelError(
        'timeout',
        `No response from ${this.where} within ${formatSeconds(this.timeoutMs)} (the request stalled). Try again; if it keeps happening, raise tasklane.model.timeoutSeconds or check the server.`,
        { provider: this.provider },
      );
    }
    if (watch.cancelledByCaller) return error instanceof ModelStoppedError ? error : new ModelStoppedError(watch.partialText, this.provider);
    if (error instanceof ModelError) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new ModelError('server', `The model call to ${this.where} failed unexpectedly: ${message}. Try again; if it persists, see the Tasklane log.`, {
      provider: this.provider,
    });
  }

  /** The wait before the next attempt, or undefined when this failure is not worth retrying. */
  private retryDelay(error: ModelError, attempt: number): number | undefined {
    const status = error.details.status;
    const transient =
      error.kind === 'rate_limit' ||
      error.kind === 'connection' ||
      (error.kind === 'server' && (status === undefined || status >= 500)) ||
      status === 408 ||
      status === 409;
    if (!transient) return undefined;
    const asked = error.details.retryAfterMs;
    if (asked !== undefined && asked <= MAX_RETRY_AFTER_MS) return asked;
    const random = this.options.random ?? Math.random;
    return Math.min(BACKOFF_START_MS * 2 ** attempt, BACKOFF_MAX_MS) * (1 - 0.25 * random());
  }

  private sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const stop = () => {
        timer.cancel();
        reject(new ModelStoppedError('', this.provider));
      };
      const timer = this.clock.setTimeout(() => {
        signal?.removeEventListener('abort', stop);
        resolve();
      }, ms);
      if (signal?.aborted) stop();
      else signal?.addEventListener('abort', stop, { once: true });
    });
  }
}

/**
 * One attempt: its own abort controller, fired by the caller's signal or by the idle watchdog,
 * which is armed at the start and re-armed by every delta. The attempt ends when either fires,
 * even if the client under it does not listen to its signal (a provider that ignores
 * cancellation cannot hang a turn).
 */
class Attempt {
  private readonly controller = new AbortController();
  private timer: { cancel(): void } | undefined;
  idleTimedOut = false;
  cancelledByCaller = false;
  streamed = false;
  /** Answer text streamed so far (a Stop hands it back in its ModelStoppedError). */
  partialText = '';
  private readonly onCallerAbort = () => {
    this.cancelledByCaller = true;
    this.controller.abort();
  };

  constructor(
    private readonly idleMs: number,
    private readonly clock: Clock,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.touch();
  }

  saw(delta: ModelDelta): void {
    this.streamed = true;
    if (delta.kind === 'text') this.partialText += delta.text;
    this.touch();
  }

  async run(call: (signal: AbortSignal) => Promise<ModelResponse>): Promise<ModelResponse> {
    const signal = this.controller.signal;
    const pending = call(signal);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new Error('request aborted'));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    // Whichever loses the race must not surface as an unhandled rejection.
    pending.catch(() => undefined);
    aborted.catch(() => undefined);
    try {
      const response = await Promise.race([pending, aborted]);
      // Both SDKs end a stream quietly when its signal aborts: never pass a cut-off answer off as whole.
      if (signal.aborted) throw new Error('request aborted');
      return response;
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  private touch(): void {
    this.timer?.cancel();
    this.timer = this.clock.setTimeout(() => {
      this.idleTimedOut = true;
      this.controller.abort();
    }, this.idleMs);
  }

  dispose(): void {
    this.timer?.cancel();
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }
}

function withRetries(error: ModelError, retries: number): ModelError {
  if (error.kind === 'cancelled') return error;
  const note = ` (Gave up after ${retries} ${retries === 1 ? 'retry' : 'retries'}.)`;
  return new ModelError(error.kind, `${error.message}${note}`, error.details);
}
