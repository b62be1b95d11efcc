/**
 * Rolling chore budgets (issue #14): what chores spent per chore and per workspace, per day and per
 * month, and which chores a tripped cap paused. The per-run budget (runBudget.ts) bounds one run;
 * this bounds a chore that fires often (a file chore on every save) and all chores together.
 *
 * Days and months are UTC calendar periods: the same on every machine and on CI, and a reload or a
 * time-zone change cannot reset them. A pause lasts until the person resumes the chore, even past
 * midnight: a chore that ran away once should not silently start again the next day.
 */
import * as z from 'zod/v4';
import { decodeColumn, DurableRowError } from '../store/decodeRow';
import type { DurableDb } from '../store/types';

/** Caps across all chores of the workspace (user settings `tasklane.chores.maxCostUsdPer*`); 0 means none. */
export interface WorkspaceSpendLimits {
  maxCostUsdPerDay: number;
  maxCostUsdPerMonth: number;
}

/** Caps of one chore (chores.yaml `budget.maxCostUsdPerDay`, `budget.maxCostUsdPerMonth`); undefined means none. */
export interface ChoreSpendLimits {
  maxCostUsdPerDay?: number;
  maxCostUsdPerMonth?: number;
}

/** Why a chore is paused, for the sidebar and its history. */
export interface ChorePause {
  reason: string;
  at: number;
}

interface SpendState {
  /** `YYYY-MM-DD` → chore id → USD. Only the current day is kept. */
  days: Record<string, Record<string, number>>;
  /** `YYYY-MM` → chore id → USD. Only the current month is kept. */
  months: Record<string, Record<string, number>>;
  paused: Record<string, ChorePause>;
}

/** Where the ledger's state lives; one JSON document. */
export interface SpendPersistence {
  load(): unknown;
  save(state: unknown): void;
  flush(): Promise<void>;
}

export type SpendCheck = { ok: true } | { ok: false; message: string };

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const usd = (n: number) => `$${n.toFixed(2)}`;

export class ChoreSpendLedger {
  private state: SpendState;
  private readonly listeners = new Set<(choreId: string) => void>();

  constructor(
    private readonly persistence: SpendPersistence,
    private readonly now: () => number,
  ) {
    this.state = parseState(persistence.load());
  }

  /** Adds one model call's cost. Not awaited per call: the next durable write of the run flushes it. */
  add(choreId: string, costUsd: number): void {
    if (!(costUsd > 0)) return;
    const now = this.now();
    this.prune(now);
    const day = (this.state.days[dayOf(now)] ??= {});
    const month = (this.state.months[monthOf(now)] ??= {});
    day[choreId] = (day[choreId] ?? 0) + costUsd;
    month[choreId] = (month[choreId] ?? 0) + costUsd;
    this.persistence.save(this.state);
  }

  /** What a chore (or, without an id, every chore) spent today and this month (UTC). */
  spent(choreId?: string): { day: number; month: number } {
    const now = this.now();
    const sum = (table: Record<string, number> | undefined) =>
      Object.entries(table ?? {}).reduce((total, [id, v]) => (choreId === undefined || id === choreId ? total + v : total), 0);
    return { day: sum(this.state.days[dayOf(now)]), month: sum(this.state.months[monthOf(now)]) };
  }

  /**
   * Whether one more model call of this chore fits under its own daily and monthly caps and the
   * workspace's. A cap is reached when what was spent is at or above it: a call's cost is known
   * only after it, so the check is before the next call.
   */
  check(choreId: string, chore: ChoreSpendLimits, workspace: WorkspaceSpendLimits): SpendCheck {
    const own = this.spent(choreId);
    const all = this.spent();
    if (chore.maxCostUsdPerDay !== undefined && own.day >= chore.maxCostUsdPerDay)
      return { ok: false, message: `this chore spent ${usd(own.day)} today (UTC), its daily cap is ${usd(chore.maxCostUsdPerDay)} (budget.maxCostUsdPerDay)` };
    if (chore.maxCostUsdPerMonth !== undefined && own.month >= chore.maxCostUsdPerMonth)
      return {
        ok: false,
        message: `this chore spent ${usd(own.month)} this month (UTC), its monthly cap is ${usd(chore.maxCostUsdPerMonth)} (budget.maxCostUsdPerMonth)`,
      };
    if (workspace.maxCostUsdPerDay > 0 && all.day >= workspace.maxCostUsdPerDay)
      return {
        ok: false,
        message: `chores in this workspace spent ${usd(all.day)} today (UTC), the cap across chores is ${usd(workspace.maxCostUsdPerDay)} (tasklane.chores.maxCostUsdPerDay)`,
      };
    if (workspace.maxCostUsdPerMonth > 0 && all.month >= workspace.maxCostUsdPerMonth)
      return {
        ok: false,
        message: `chores in this workspace spent ${usd(all.month)} this month (UTC), the cap across chores is ${usd(workspace.maxCostUsdPerMonth)} (tasklane.chores.maxCostUsdPerMonth)`,
      };
    return { ok: true };
  }

  paused(choreId: string): ChorePause | undefined {
    return this.state.paused[choreId];
  }

  /** Pauses a chore (durably) until {@link resume}. */
  async pause(choreId: string, reason: string): Promise<void> {
    if (this.state.paused[choreId]) return;
    this.state.paused[choreId] = { reason, at: this.now() };
    this.persistence.save(this.state);
    await this.persistence.flush();
    for (const listener of this.listeners) listener(choreId);
  }

  /** Lifts a pause; false when the chore was not paused. */
  async resume(choreId: string): Promise<boolean> {
    if (!this.state.paused[choreId]) return false;
    delete this.state.paused[choreId];
    this.persistence.save(this.state);
    await this.persistence.flush();
    for (const listener of this.listeners) listener(choreId);
    return true;
  }

  /** Told when a chore is paused or resumed (the sidebar). */
  onDidChangePause(listener: (choreId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private prune(now: number): void {
    for (const key of Object.keys(this.state.days)) if (key !== dayOf(now)) delete this.state.days[key];
    for (const key of Object.keys(this.state.months)) if (key !== monthOf(now)) delete this.state.months[key];
  }
}

function parseState(raw: unknown): SpendState {
  const state: SpendState = { days: {}, months: {}, paused: {} };
  if (!raw || typeof raw !== 'object') return state;
  const r = raw as Partial<SpendState>;
  const table = (t: unknown) =>
    Object.fromEntries(Object.entries(t && typeof t === 'object' ? (t as Record<string, unknown>) : {}).filter(([, v]) => typeof v === 'number')) as Record<
      string,
      number
    >;
  for (const [k, v] of Object.entries(r.days ?? {})) state.days[k] = table(v);
  for (const [k, v] of Object.entries(r.months ?? {})) state.months[k] = table(v);
  for (const [k, v] of Object.entries(r.paused ?? {}))
    if (v && typeof v.reason === 'string' && typeof v.at === 'number') state.paused[k] = { reason: v.reason, at: v.at };
  return state;
}

export class InMemorySpendPersistence implements SpendPersistence {
  value: unknown;
  load(): unknown {
    return this.value === undefined ? undefined : JSON.parse(JSON.stringify(this.value));
  }
  save(state: unknown): void {
    this.value = JSON.parse(JSON.stringify(state));
  }
  async flush(): Promise<void> {}
}

const spendTable = z.record(z.string(), z.number().finite());

/** What the `chore_spend` row holds (SpendState). */
const spendStateSchema = z.object({
  days: z.record(z.string(), spendTable).default({}),
  months: z.record(z.string(), spendTable).default({}),
  paused: z.record(z.string(), z.object({ reason: z.string(), at: z.number() })).default({}),
});

/** The ledger as one row of the store's `meta` table (key `chore_spend`). */
export class DbSpendPersistence implements SpendPersistence {
  constructor(
    private readonly db: DurableDb,
    /** Told when the row does not decode (the field at fault); the ledger then starts over. */
    private readonly report: (error: DurableRowError) => void = () => {},
  ) {}
  load(): unknown {
    const row = this.db.query("SELECT value FROM meta WHERE key = 'chore_spend'")[0];
    if (!row) return undefined;
    try {
      return decodeColumn(spendStateSchema, 'chore spend ledger', 'chore_spend', 'value', row.value);
    } catch (error) {
      if (!(error instanceof DurableRowError)) throw error;
      this.report(error);
      return undefined; // An unreadable ledger starts over rather than blocking every chore.
    }
  }
  save(state: unknown): void {
    this.db.mutate("INSERT INTO meta (key, value) VALUES ('chore_spend', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [JSON.stringify(state)]);
  }
  flush(): Promise<void> {
    return this.db.commit();
  }
}
