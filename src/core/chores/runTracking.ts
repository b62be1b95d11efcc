import type { Logger } from '../ports';
import type { ChoreRunRecord } from './runLog';

/**
 * What the chore runner tells about work it does on its own: which fires became final (a run
 * ended, or a fire was skipped or missed) and whether work it started by itself (a run's end, a
 * review notice, a pause) is still in flight. Tests and the CLI wait on these exact signals.
 */
export class RunTracking {
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly endListeners = new Set<(run: ChoreRunRecord) => void>();

  constructor(private readonly logger: Logger) {}

  /** Told when a fire's history entry is final: a run ended (failure policy applied, fire released), or the fire was skipped or missed. */
  onRunEnded(listener: (run: ChoreRunRecord) => void): { dispose(): void } {
    this.endListeners.add(listener);
    return { dispose: () => this.endListeners.delete(listener) };
  }

  /** Resolves once no work the runner started on its own is in flight. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Announces a final history entry. */
  ended(run: ChoreRunRecord): void {
    for (const listener of [...this.endListeners]) listener(run);
  }

  /** Keeps `work` the runner started by itself (not for a caller) in flight until it is done; a failure is logged as `what`. */
  track(work: Promise<unknown>, what: string): Promise<unknown> {
    const tracked = work.catch((error) => this.logger.error('CHORE', what, error)).finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    return tracked;
  }
}
