import type { Clock } from '../ports';
import { mergeChange } from './fireContext';
import type { FileChangeKind } from './fireContext';

/** One coalesced burst of file events for a chore. */
export interface FileBurst {
  choreId: string;
  /** Distinct workspace-relative paths, in first-seen order. */
  paths: string[];
  /** Net change of each path over the burst (see {@link mergeChange}). */
  changes: Map<string, FileChangeKind>;
  /** Events received (before dedup), for the log. */
  events: number;
  firstAt: number;
}

export interface FileTriggerDebouncerOptions {
  clock: Clock;
  onFire: (burst: FileBurst) => void;
  /** True for an event the chore's own edits caused (see {@link OwnEditTracker}); such events are dropped. */
  isOwnEdit?: (choreId: string, path: string) => boolean;
  /** Longest a continuous storm can postpone a run; default max(10 × debounce, 10 s). */
  maxWaitMs?: (debounceMs: number) => number;
}

/**
 * Debounces and coalesces file events per chore: a save storm becomes one run, fired once the files
 * have been quiet for the chore's debounce, or at the latest after the max wait.
 */
export class FileTriggerDebouncer {
  private readonly debounce = new Map<string, number>();
  private readonly pending = new Map<string, { burst: FileBurst; timer: { cancel(): void }; deadline: number }>();
  /** Bursts fired per chore since start. */
  private readonly fired = new Map<string, number>();

  constructor(private readonly options: FileTriggerDebouncerOptions) {}

  /** Sets the debounce of each files chore; a chore no longer listed drops its pending burst. */
  configure(chores: ReadonlyArray<{ id: string; debounceMs: number }>): void {
    this.debounce.clear();
    for (const c of chores) this.debounce.set(c.id, c.debounceMs);
    for (const id of [...this.pending.keys()]) if (!this.debounce.has(id)) this.cancel(id);
  }

  /** Feeds one watcher event. Returns false when it was ignored (unknown chore or the chore's own edit). */
  push(choreId: string, path: string, change: FileChangeKind = 'changed'): boolean {
    const debounceMs = this.debounce.get(choreId);
    if (debounceMs === undefined) return false;
    if (this.options.isOwnEdit?.(choreId, path)) return false;
    const now = this.options.clock.now();
    const current = this.pending.get(choreId);
    if (current) {
      current.timer.cancel();
      current.burst.events++;
      if (!current.burst.paths.includes(path)) current.burst.paths.push(path);
      const before = current.burst.changes.get(path);
      current.burst.changes.set(path, before ? mergeChange(before, change) : change);
    }
    const burst = current?.burst ?? { choreId, paths: [path], changes: new Map([[path, change]]), events: 1, firstAt: now };
    const deadline = current?.deadline ?? now + (this.options.maxWaitMs?.(debounceMs) ?? Math.max(debounceMs * 10, 10_000));
    const delay = Math.max(0, Math.min(debounceMs, deadline - now));
    const timer = this.options.clock.setTimeout(() => this.flush(choreId), delay);
    this.pending.set(choreId, { burst, timer, deadline });
    return true;
  }

  /**
   * Where a files chore stands: how many bursts it fired so far and whether one is being collected
   * now (`tasklane.getState` shows it, so a test can tell that no second run is coming); undefined
   * for a chore this debouncer does not follow.
   */
  bursts(choreId: string): { fired: number; collecting: boolean } | undefined {
    if (!this.debounce.has(choreId)) return undefined;
    return { fired: this.fired.get(choreId) ?? 0, collecting: this.pending.has(choreId) };
  }

  /** Drops a chore's pending burst (the chore was disabled or deleted). */
  cancel(choreId: string): void {
    this.pending.get(choreId)?.timer.cancel();
    this.pending.delete(choreId);
  }

  dispose(): void {
    for (const id of [...this.pending.keys()]) this.cancel(id);
  }

  private flush(choreId: string): void {
    const entry = this.pending.get(choreId);
    if (!entry) return;
    this.pending.delete(choreId);
    this.fired.set(choreId, (this.fired.get(choreId) ?? 0) + 1);
    this.options.onFire(entry.burst);
  }
}

/**
 * Remembers which files a chore's run is about to write, so the watcher events those writes cause
 * do not trigger the chore again. The runner calls {@link noteWrite} just before applying an
 * approved edit; events for those paths within the window are the chore's own.
 */
export class OwnEditTracker {
  private readonly writes = new Map<string, Map<string, number>>();

  constructor(
    private readonly clock: Clock,
    /** How long after a write its events are attributed to the chore (watchers can lag a few seconds). */
    private readonly windowMs = 5_000,
  ) {}

  noteWrite(choreId: string, paths: readonly string[]): void {
    const until = this.clock.now() + this.windowMs;
    const forChore = this.writes.get(choreId) ?? new Map<string, number>();
    for (const p of paths) forChore.set(normalize(p), until);
    this.writes.set(choreId, forChore);
  }

  isOwnEdit(choreId: string, path: string): boolean {
    const forChore = this.writes.get(choreId);
    if (!forChore) return false;
    const now = this.clock.now();
    for (const [p, until] of forChore) if (until < now) forChore.delete(p);
    return forChore.has(normalize(path));
  }
}

function normalize(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\.\//, '');
}

/** A burst as the fire context the model is told (changed files and how each changed). */
export function burstContext(burst: FileBurst): { kind: 'files'; changes: Array<{ path: string; change: FileChangeKind }>; events: number } {
  return { kind: 'files', changes: burst.paths.map((path) => ({ path, change: burst.changes.get(path) ?? 'changed' })), events: burst.events };
}
