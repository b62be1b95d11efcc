/**
 * Dead letters: triggers set aside after their last failed attempt. This is the one owner of
 * their list and of every write to them. A retry or a dismissal writes through the trigger store,
 * then publishes the new list as a `deadLetters` change, so every view (the sidebar, the palette
 * commands, `tasklane.getState`) sees the same list. A view that wrote to the store itself would
 * leave this list, and so every other view, stale.
 */
import type { TriggerStore } from '../store/types';
import type { EngineState } from './engineState';
import type { DeadLetterView } from './types';

export interface DeadLettersDeps {
  triggers: TriggerStore;
  /** Publishes the change and appends the failure line to the trigger's session. */
  state: EngineState;
}

export class DeadLetters {
  private views: DeadLetterView[] = [];
  /** Writes run one after another: a double click filters its ids after the first write landed. */
  private writes: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: DeadLettersDeps) {}

  /** The current list, oldest first (kept in memory: the snapshot reads it on every draw). */
  list(): DeadLetterView[] {
    return this.views;
  }

  /** Reads the list from the store without publishing it (at start, before any view is drawn). */
  load(): void {
    this.views = this.read();
  }

  /**
   * After a failed turn: re-reads the list and, if `triggerId` is now a dead letter, publishes the
   * list and says so in its session.
   */
  async noteFailure(triggerId: string): Promise<void> {
    const dead = this.deps.triggers.deadLetters();
    this.views = dead.map(toView);
    const died = dead.find((t) => t.id === triggerId);
    if (!died) return;
    this.publish();
    const { state } = this.deps;
    if (!state.sessions.has(died.sessionId)) return;
    await state.appendMessage(
      died.sessionId,
      'error',
      `A ${died.source} step failed ${died.attempts === 1 ? 'once' : `${died.attempts} times`} and was set aside: ${died.lastError ?? 'unknown error'}. It can be retried from the dead letters.`,
    );
    await state.commit().catch(() => undefined);
  }

  /**
   * Re-queues dead letters (all when `ids` is omitted) with their attempts reset; returns how many.
   * An id that is no longer a dead letter (retried or dismissed already) is skipped, so a second
   * click is a no-op that returns 0. The new list is published either way.
   */
  retry(ids?: readonly string[]): Promise<number> {
    return this.write(async (targets) => {
      for (const id of targets) await this.deps.triggers.retryDead(id);
      return targets.length;
    }, ids);
  }

  /** Removes dead letters for good (all when `ids` is omitted); returns how many. Same rules as `retry`. */
  dismiss(ids?: readonly string[]): Promise<number> {
    return this.write((targets) => (targets.length ? this.deps.triggers.dismissDead(targets) : Promise.resolve(0)), ids);
  }

  private write(change: (targets: string[]) => Promise<number>, ids?: readonly string[]): Promise<number> {
    const run = this.writes.then(async () => {
      const dead = new Set(this.deps.triggers.deadLetters().map((t) => t.id));
      const targets = ids ? ids.filter((id) => dead.has(id)) : [...dead];
      try {
        return await change(targets);
      } finally {
        // Also after a failed write: the list shows what the store now holds.
        this.views = this.read();
        this.publish();
      }
    });
    this.writes = run.catch(() => undefined);
    return run;
  }

  private read(): DeadLetterView[] {
    return this.deps.triggers.deadLetters().map(toView);
  }

  private publish(): void {
    this.deps.state.publish({ type: 'deadLetters', deadLetters: this.views });
  }
}

function toView(t: { id: string; sessionId: string; source: string; lastError: string | null; attempts: number }): DeadLetterView {
  return { id: t.id, sessionId: t.sessionId, source: t.source, lastError: t.lastError, attempts: t.attempts };
}
