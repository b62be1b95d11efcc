/**
 * One abort controller per model call that folds together the caller's cancel signal and an idle
 * watchdog. The SDKs' own `timeout` only covers the wait for response headers; a stream that
 * stalls after them would hang the turn forever, so the watchdog aborts when no chunk arrives
 * within the same timeout, and remembers why so the error says "timeout", not "cancelled".
 */
export class RequestGuard {
  readonly controller = new AbortController();
  idleTimedOut = false;
  cancelledByCaller = false;
  /** Answer text streamed so far (a stopped call hands it back in its ModelStoppedError). */
  partialText = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onCallerAbort = () => {
    this.cancelledByCaller = true;
    this.controller.abort();
  };

  constructor(
    private readonly idleMs: number,
    private readonly callerSignal?: AbortSignal,
  ) {
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** (Re)arms the idle watchdog; call when the stream opens and on every chunk. */
  touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.idleTimedOut = true;
      this.controller.abort();
    }, this.idleMs);
  }

  /**
   * Both SDKs end a stream quietly when its signal aborts, which would pass a truncated answer
   * off as complete: call after the stream loop to turn that into an error (mapped by the flags).
   */
  throwIfAborted(): void {
    if (this.controller.signal.aborted) throw new Error(this.idleTimedOut ? 'stream stalled' : 'request aborted');
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }
}
