import { redactCredentials } from '../security/redact';
import type { Clock } from '../ports';
import { decodeRows } from '../store/decodeRow';
import { CHORE_RUNS_KEPT_HOT } from '../store/archiveRules';
import type { DurableDb } from '../store/types';
import { decodeRun } from './runRows';
import type { CheckResult } from '../checks/checkRun';
import type { ChoreUsageTotals } from './runBudget';
import type { ChoreBudget } from './types';
import type { ChoreRunStatus } from './runPolicy';
import type { ChoreFireContext } from './fireContext';
import type { ChoreRunCause } from '../engine/triggerPayloads';

import type { ChoreRunRecord, ChoreStep } from './runRows';
export type { ChoreRunCause, ChoreRunRecord, ChoreStep } from './runRows';

/** Where run records live; `upsert` writes the whole record (steps included) so a step updates in place. */
export interface ChoreRunPersistence {
  loadAll(): ChoreRunRecord[];
  /** One stored run by id (one pruned from the log's memory but not yet archived). */
  find?(runId: string): ChoreRunRecord | undefined;
  /** The chore's stored runs that started after `since` (epoch ms), those pruned from the log's memory included. */
  startedSince?(choreId: string, since: number): ChoreRunRecord[];
  upsert(record: ChoreRunRecord): void;
  remove(runIds: readonly string[]): void;
  flush(): Promise<void>;
}

/** Longest args/result text kept per step, so a trace cannot bloat the hot database. */
export const maxStepTextChars = 1_000;
/** Runs kept per chore in memory: the same number the archive keeps hot, so a reload loads them all. */
export const defaultRunsKeptPerChore = CHORE_RUNS_KEPT_HOT;

const emptyTotals = (): ChoreUsageTotals => ({
  iterations: 0,
  elapsedMs: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
});

/**
 * A chore's run history with a live step trace. `start` is idempotent per (fireKey, attempt): a
 * trigger redelivered after a crash between claim and ack finds the run it already started, so the
 * runner resumes it (status running) or just acks (already ended) instead of running it twice.
 */
export class ChoreRunLog {
  private readonly runs = new Map<string, ChoreRunRecord>();
  private readonly listeners = new Set<(run: ChoreRunRecord) => void>();
  private counter = 0;
  /**
   * Applied to every step's args and result and to the end reason before they are stored (and
   * so before an escalation can send them): credential shapes by default; the host sets its
   * Redactor, which also knows the secret values it has read.
   */
  redact: (text: string) => string = redactCredentials;
  /**
   * Finds an ended run that left the hot store (the archive; createEngine sets it), so a run link
   * older than the newest runs kept per chore still opens its run. Read-only: such a run is
   * never written again.
   */
  archived?: (runId: string) => ChoreRunRecord | undefined;
  private readonly fromArchive = new Map<string, ChoreRunRecord | undefined>();

  constructor(
    private readonly persistence: ChoreRunPersistence,
    private readonly clock: Clock,
    private readonly keepPerChore = defaultRunsKeptPerChore,
    private readonly newId: () => string = () => `run-${this.clock.now().toString(36)}-${(this.counter++).toString(36)}`,
  ) {
    for (const run of persistence.loadAll()) this.runs.set(run.runId, run);
  }

  /** Starts (or finds) the run of a fire. `created` is false when the run already existed. */
  async start(input: {
    choreId: string;
    fireKey: string;
    attempt?: number;
    cause: ChoreRunCause;
    context?: ChoreFireContext;
  }): Promise<{ run: ChoreRunRecord; created: boolean }> {
    const attempt = input.attempt ?? 0;
    const existing = this.findByFire(input.fireKey, attempt);
    if (existing) return { run: existing, created: false };
    const run: ChoreRunRecord = {
      runId: this.newId(),
      choreId: input.choreId,
      fireKey: input.fireKey,
      attempt,
      cause: input.cause,
      startedAt: this.clock.now(),
      endedAt: null,
      status: 'running',
      reason: null,
      usage: emptyTotals(),
      steps: [],
      ...(input.context ? { context: input.context } : {}),
    };
    await this.write(run, true);
    return { run, created: true };
  }

  /**
   * Records a fire that did not run, with why. Idempotent per fire key, so a tick repeated after a
   * crash does not list an occurrence twice. `at` dates the entry (a missed occurrence is listed at
   * its scheduled time, so the history reads in order).
   */
  async recordSkipped(input: {
    choreId: string;
    fireKey: string;
    cause: ChoreRunCause;
    reason: string;
    status?: 'skipped' | 'missed';
    at?: number;
  }): Promise<ChoreRunRecord> {
    const { run, created } = await this.start(input);
    if (!created) return run;
    if (input.at !== undefined) run.startedAt = input.at;
    return this.finish(run.runId, input.status ?? 'skipped', input.reason);
  }

  /** Adds a running step and returns its id. Not awaited by design: the trace is best-effort live, the end is durable. */
  stepStarted(runId: string, name: string, args: unknown): number {
    const run = this.require(runId);
    const step: ChoreStep = {
      id: run.steps.length + 1,
      name,
      status: 'running',
      args: clip(this.redact(typeof args === 'string' ? args : (JSON.stringify(args) ?? ''))),
      result: '',
      startedAt: this.clock.now(),
      durationMs: null,
    };
    run.steps.push(step);
    void this.write(run, false);
    return step.id;
  }

  stepEnded(runId: string, stepId: number, status: 'ok' | 'error', result: unknown): void {
    const run = this.require(runId);
    const step = run.steps.find((s) => s.id === stepId);
    if (!step) throw new Error(`run ${runId} has no step ${stepId}; call stepStarted first`);
    step.status = status;
    step.result = clip(this.redact(typeof result === 'string' ? result : (JSON.stringify(result) ?? '')));
    step.durationMs = this.clock.now() - step.startedAt;
    void this.write(run, false);
  }

  /** Records which task does the run's work, durably: after a reload the task's events still reach the run. */
  async linkTask(runId: string, taskId: string): Promise<void> {
    const run = this.require(runId);
    if (run.taskId === taskId) return;
    run.taskId = taskId;
    await this.write(run, true);
  }

  /** The running run a task works for. */
  activeForTask(taskId: string): ChoreRunRecord | undefined {
    for (const run of this.runs.values()) if (run.taskId === taskId && run.status === 'running') return run;
    return undefined;
  }

  /** Records a round of the run's checks, durably: the count bounds the rounds across a reload. */
  async recordChecks(runId: string, results: readonly CheckResult[], round: number): Promise<void> {
    const run = this.require(runId);
    run.verify = results.map((r) => ({ ...r, tail: clip(this.redact(r.tail)), ...(r.problem ? { problem: this.redact(r.problem) } : {}) }));
    run.checkRounds = round;
    await this.write(run, true);
  }

  /** The run paused at a budget (budgetPause.ts): it stays running, parked, until resumed or cancelled. */
  async park(runId: string, message: string): Promise<void> {
    const run = this.require(runId);
    run.parked = { message: this.redact(message), at: this.clock.now() };
    await this.write(run, true);
  }

  /** A parked run resumes with raised limits. */
  unpark(runId: string, limits: ChoreBudget): void {
    const run = this.require(runId);
    delete run.parked;
    run.limits = limits;
    void this.write(run, true);
  }

  updateUsage(runId: string, usage: ChoreUsageTotals): void {
    const run = this.require(runId);
    run.usage = { ...usage };
    void this.write(run, false);
  }

  /** Ends a run, durably, and prunes the chore's oldest runs past the retention. */
  async finish(runId: string, status: Exclude<ChoreRunStatus, 'running'>, reason?: string): Promise<ChoreRunRecord> {
    const run = this.require(runId);
    run.status = status;
    delete run.parked;
    run.reason = reason === undefined ? null : this.redact(reason);
    run.endedAt = this.clock.now();
    // A step still running when the run ends did not finish: say so rather than leave a spinner.
    for (const step of run.steps)
      if (step.status === 'running')
        Object.assign(step, { status: 'error', result: `interrupted: run ended ${status}`, durationMs: run.endedAt - step.startedAt });
    const old = this.history(run.choreId)
      .slice(this.keepPerChore)
      .filter((r) => r.status !== 'running');
    for (const r of old) this.runs.delete(r.runId);
    if (old.length) this.persistence.remove(old.map((r) => r.runId));
    await this.write(run, true);
    return run;
  }

  /**
   * The run of this id: in memory, else (a link to an older run) its row still hot but pruned from
   * memory, else the archive. A hit is kept; a miss is asked again (the run may move meanwhile).
   */
  get(runId: string): ChoreRunRecord | undefined {
    const run = this.runs.get(runId) ?? this.fromArchive.get(runId);
    if (run) return run;
    const found = this.persistence.find?.(runId) ?? this.archived?.(runId);
    if (found) this.fromArchive.set(runId, found);
    return found;
  }

  findByFire(fireKey: string, attempt = 0): ChoreRunRecord | undefined {
    for (const run of this.runs.values()) if (run.fireKey === fireKey && run.attempt === attempt) return run;
    return undefined;
  }

  /** Newest first. */
  history(choreId: string): ChoreRunRecord[] {
    return [...this.runs.values()].filter((r) => r.choreId === choreId).sort((a, b) => b.startedAt - a.startedAt || b.runId.localeCompare(a.runId));
  }

  /**
   * The chore's runs that started after `since` (epoch ms), newest first: those in memory and those
   * the store still holds after newer entries (skipped fires too) pruned them from memory; ended
   * runs stay hot for a day (docs/STORAGE.md). What `budget.maxFiresPerHour` counts (runGates.ts),
   * so a burst of refused fires cannot push the runs it counts out of sight.
   */
  startedSince(choreId: string, since: number): ChoreRunRecord[] {
    const runs = new Map<string, ChoreRunRecord>();
    for (const run of this.persistence.startedSince?.(choreId, since) ?? []) runs.set(run.runId, run);
    for (const run of this.runs.values()) if (run.choreId === choreId && run.startedAt > since) runs.set(run.runId, run);
    return [...runs.values()].sort((a, b) => b.startedAt - a.startedAt || b.runId.localeCompare(a.runId));
  }

  /** Runs still `running`, e.g. to resume after a reload. */
  active(): ChoreRunRecord[] {
    return [...this.runs.values()].filter((r) => r.status === 'running');
  }

  /** Live updates for the sidebar trace; returns a disposer. */
  onDidChange(listener: (run: ChoreRunRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private require(runId: string): ChoreRunRecord {
    const run = this.runs.get(runId);
    if (!run) throw new Error(`unknown chore run ${runId}; it may have been pruned from the history`);
    return run;
  }

  private async write(run: ChoreRunRecord, durable: boolean): Promise<void> {
    this.runs.set(run.runId, run);
    this.persistence.upsert(run);
    for (const listener of this.listeners) listener(run);
    if (durable) await this.persistence.flush();
  }
}

function clip(text: string): string {
  return text.length > maxStepTextChars ? `${text.slice(0, maxStepTextChars)}… (${text.length} chars)` : text;
}

export class InMemoryRunPersistence implements ChoreRunPersistence {
  readonly records = new Map<string, string>();
  loadAll(): ChoreRunRecord[] {
    return [...this.records.values()].map((json) => decodeRun(json));
  }
  upsert(record: ChoreRunRecord): void {
    this.records.set(record.runId, JSON.stringify(record));
  }
  remove(runIds: readonly string[]): void {
    for (const id of runIds) this.records.delete(id);
  }
  async flush(): Promise<void> {}
}

/** Run records in the store's `chore_runs` table: indexed columns plus the record JSON in `data`. */
export class DbRunPersistence implements ChoreRunPersistence {
  constructor(
    private readonly db: DurableDb,
    /** Told about each record that does not decode (its id and field). */
    private readonly report?: (message: string) => void,
  ) {}
  loadAll(): ChoreRunRecord[] {
    // One unreadable record must not hide the rest of the history: it is reported and left out.
    const rows = this.db.query('SELECT data FROM chore_runs').map((row) => row.data);
    return decodeRows(rows, decodeRun, (error) => this.report?.(error.message));
  }
  find(runId: string): ChoreRunRecord | undefined {
    const rows = this.db.query('SELECT data FROM chore_runs WHERE id = ?', [runId]).map((row) => row.data);
    return decodeRows(rows, decodeRun, (error) => this.report?.(error.message))[0];
  }
  startedSince(choreId: string, since: number): ChoreRunRecord[] {
    const rows = this.db.query('SELECT data FROM chore_runs WHERE chore_id = ? AND started_at > ?', [choreId, since]).map((row) => row.data);
    return decodeRows(rows, decodeRun, (error) => this.report?.(error.message));
  }
  upsert(r: ChoreRunRecord): void {
    this.db.mutate(
      'INSERT INTO chore_runs (id, chore_id, fire_key, attempt, status, started_at, ended_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET status = excluded.status, ended_at = excluded.ended_at, data = excluded.data',
      [r.runId, r.choreId, r.fireKey, r.attempt, r.status, r.startedAt, r.endedAt, JSON.stringify(r)],
    );
  }
  /**
   * Runs pruned from the log's memory keep their ended rows: the archive mover moves them out of
   * the hot database (docs/STORAGE.md), so a run is never lost to history search. Only a run that
   * never ended (it cannot be archived) is deleted here.
   */
  remove(runIds: readonly string[]): void {
    for (const id of runIds) this.db.mutate('DELETE FROM chore_runs WHERE id = ? AND ended_at IS NULL', [id]);
  }
  flush(): Promise<void> {
    return this.db.commit();
  }
}
