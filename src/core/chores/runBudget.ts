import type { Clock } from '../ports';
import type { Usage } from '../model/types';
import type { ChoreBudget } from './types';
import { emptyUsage, promptTokens } from '../model/usage';

/** Which limit tripped: one of the four per-run limits, or a rolling cost cap (spendLedger.ts). */
export type BudgetLimit = 'iterations' | 'seconds' | 'inputTokens' | 'costUsd' | 'rollingCost';

export type BudgetCheck = { ok: true } | { ok: false; exhausted: BudgetLimit; message: string };

/** What a run has used so far; the escalation payload and the run history show it. */
export interface ChoreUsageTotals {
  iterations: number;
  elapsedMs: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  /** Part of `costUsd` is the conservative estimate for a model with no known price (model/pricing.ts). */
  costEstimated?: boolean;
}

/**
 * The loop policy of one chore run. The runner calls {@link check} before every model call and
 * every action, and ends the run `budget_exhausted` the moment it is not ok; it calls
 * {@link recordModelCall} after each model call. Cache reads and writes count as input tokens:
 * they are input the provider processed (and bills).
 */
export class ChoreRunBudget {
  private readonly startedAt: number;
  private iterations = 0;
  private readonly usage: Usage = emptyUsage();
  private costUsd = 0;
  private costEstimated = false;

  constructor(
    readonly limits: ChoreBudget,
    private readonly clock: Clock,
    /** Epoch ms the run started; a resumed run passes its original start so reloads do not reset the clock. */
    startedAt?: number,
    /** Totals already used before a reload, for a resumed run. */
    previous?: Partial<ChoreUsageTotals>,
  ) {
    this.startedAt = startedAt ?? clock.now();
    if (previous) {
      this.iterations = previous.iterations ?? 0;
      this.usage.inputTokens = previous.inputTokens ?? 0;
      this.usage.outputTokens = previous.outputTokens ?? 0;
      this.usage.cacheReadTokens = previous.cacheReadTokens ?? 0;
      this.usage.cacheWriteTokens = previous.cacheWriteTokens ?? 0;
      this.costUsd = previous.costUsd ?? 0;
      this.costEstimated = previous.costEstimated === true;
    }
  }

  /** Counts one model call and what it used; `estimated` when its cost is the conservative estimate. */
  recordModelCall(usage: Usage, costUsd: number, estimated = false): void {
    this.costEstimated ||= estimated;
    this.iterations++;
    this.usage.inputTokens += usage.inputTokens;
    this.usage.outputTokens += usage.outputTokens;
    this.usage.cacheReadTokens += usage.cacheReadTokens;
    this.usage.cacheWriteTokens += usage.cacheWriteTokens;
    this.costUsd += costUsd;
  }

  /**
   * Ok when one more model call or action may start; otherwise the first limit reached. `ignore`
   * leaves limits out: before an action the runner ignores `iterations`, which counts model calls,
   * so the actions of the last allowed call still run.
   */
  check(ignore: readonly BudgetLimit[] = []): BudgetCheck {
    const { maxIterations, maxSeconds, maxInputTokens, maxCostUsd } = this.limits;
    const elapsedMs = this.clock.now() - this.startedAt;
    const inputTokens = this.inputTokens();
    if (this.iterations >= maxIterations && !ignore.includes('iterations'))
      return { ok: false, exhausted: 'iterations', message: `used all ${maxIterations} iterations (budget.maxIterations)` };
    if (elapsedMs >= maxSeconds * 1000)
      return { ok: false, exhausted: 'seconds', message: `ran for ${Math.round(elapsedMs / 1000)} s of ${maxSeconds} s (budget.maxSeconds)` };
    if (inputTokens >= maxInputTokens)
      return { ok: false, exhausted: 'inputTokens', message: `used ${inputTokens} of ${maxInputTokens} input tokens (budget.maxInputTokens)` };
    if (this.costUsd >= maxCostUsd)
      return {
        ok: false,
        exhausted: 'costUsd',
        message: this.costEstimated
          ? `spent ≈$${this.costUsd.toFixed(4)} (estimated: the model has no known price, so calls are charged at the highest known rate; give it a price in tasklane.model.prices, or TASKLANE_MODEL_PRICES headless) of $${maxCostUsd} (budget.maxCostUsd)`
          : `spent $${this.costUsd.toFixed(4)} of $${maxCostUsd} (budget.maxCostUsd)`,
      };
    return { ok: true };
  }

  /** Iterations a run still has; the runner gives a falsy successWhen one more turn only when this is > 0. */
  iterationsLeft(): number {
    return Math.max(0, this.limits.maxIterations - this.iterations);
  }

  /** The largest share of any limit used, 0..1+, for a wrap-up warning at 80%. */
  usedShare(): number {
    const { maxIterations, maxSeconds, maxInputTokens, maxCostUsd } = this.limits;
    return Math.max(
      this.iterations / maxIterations,
      (this.clock.now() - this.startedAt) / (maxSeconds * 1000),
      this.inputTokens() / maxInputTokens,
      this.costUsd / maxCostUsd,
    );
  }

  totals(): ChoreUsageTotals {
    return {
      iterations: this.iterations,
      elapsedMs: this.clock.now() - this.startedAt,
      ...this.usage,
      costUsd: this.costUsd,
      ...(this.costEstimated ? { costEstimated: true } : {}),
    };
  }

  private inputTokens(): number {
    return promptTokens(this.usage);
  }
}
