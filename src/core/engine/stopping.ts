/**
 * Stop and cancel, for real: every turn (a task's or a conversation's) runs under its own
 * AbortController, registered per session. `Agent.stop(sessionId)`, Cancel and Abort abort it:
 * the SDK request is aborted, the running action gets the signal (the terminal runner kills the
 * child's process group), the pipeline runs nothing more, and finalize enqueues nothing.
 */
import { ModelError } from '../model/types';

/** Thrown inside a turn once its signal fired: the turn was stopped by the person, not failed. */
export class TurnStopped extends Error {
  constructor(message = 'Stopped by the user.') {
    super(message);
    this.name = 'TurnStopped';
  }
}

/**
 * Whether an error is the result of an abort rather than a failure: our TurnStopped, the model
 * layer's `cancelled` ModelError, the SDKs' APIUserAbortError, a DOM/Node AbortError, or any
 * error thrown once the turn's own signal fired. The one place that decides "stopped, not an
 * error line, not a retry".
 */
export function isAbortError(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  if (error instanceof TurnStopped) return true;
  if (error instanceof ModelError) return error.kind === 'cancelled';
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'APIUserAbortError';
}

/** Throws TurnStopped when the signal fired (checked between the steps of a turn). */
export function throwIfStopped(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new TurnStopped();
}

/** One running turn of a session. */
export interface RunningTurn {
  readonly sessionId: string;
  readonly signal: AbortSignal;
  /** Aborts the turn (idempotent). */
  abort(reason?: string): void;
  /** Set once `abort` was called. */
  readonly stopped: boolean;
}

/**
 * The turns running right now, one per session at most (there is one consumer). `whenIdle`
 * resolves once the session's turn has returned, i.e. its model call is aborted and its action
 * (and any child process the action's runner owns) is gone.
 */
export class TurnRegistry {
  private readonly running = new Map<string, { turn: RunningTurn; done: Promise<void>; finish: () => void }>();

  /** Starts a turn for a session, aborted too when `parent` (the agent's shutdown) fires. */
  begin(sessionId: string, parent?: AbortSignal): RunningTurn & { end(): void } {
    const controller = new AbortController();
    const onParent = () => controller.abort(parent?.reason);
    parent?.addEventListener('abort', onParent, { once: true });
    if (parent?.aborted) controller.abort(parent.reason);
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    let stopped = false;
    const turn = {
      sessionId,
      signal: controller.signal,
      abort: (reason = 'Stopped by the user.') => {
        stopped = true;
        controller.abort(new TurnStopped(reason));
      },
      get stopped() {
        return stopped;
      },
      end: () => {
        parent?.removeEventListener('abort', onParent);
        if (this.running.get(sessionId)?.turn === turn) this.running.delete(sessionId);
        finish();
      },
    };
    this.running.set(sessionId, { turn, done, finish });
    return turn;
  }

  has(sessionId: string): boolean {
    return this.running.has(sessionId);
  }

  get(sessionId: string): RunningTurn | undefined {
    return this.running.get(sessionId)?.turn;
  }

  /** Aborts the session's running turn, if any; resolves once it has returned. */
  async stop(sessionId: string, reason?: string): Promise<boolean> {
    const entry = this.running.get(sessionId);
    if (!entry) return false;
    entry.turn.abort(reason);
    await entry.done;
    return true;
  }
}
