/**
 * The schema of a stored chore run (the `data` JSON of `chore_runs`), read through `decodeRun`
 * on every path (store/decodeRow.ts says why): a damaged record is reported and left out, and a
 * record from an older release gets today's defaults.
 */
import * as z from 'zod/v4';
import { CHORE_RUN_CAUSES } from '../engine/triggerPayloads';
import { decodeRow } from '../store/decodeRow';
import type { SqlValue } from '../store/types';
import type { ChoreRunCause } from '../engine/triggerPayloads';
import type { CheckResult } from '../checks/checkRun';
import type { ChoreFireContext } from './fireContext';
import type { ChoreUsageTotals } from './runBudget';
import type { ChoreRunStatus } from './runPolicy';
import type { ChoreBudget } from './types';
import { CHORE_RUN_STATUSES } from './runPolicy';

/** One step of a run's trace (a tool call or a model turn), updated in place as it progresses. */
export interface ChoreStep {
  id: number;
  /** Action name, or `model` for a model call. */
  name: string;
  status: 'running' | 'ok' | 'error';
  /** Arguments as JSON text, truncated to runLog.ts `maxStepTextChars`. */
  args: string;
  /** Result or error text, truncated; empty while running. */
  result: string;
  startedAt: number;
  durationMs: number | null;
}

/** Why a chore fired (its list lives with the fire's schema, engine/triggerPayloads.ts). */
export type { ChoreRunCause };

/** One run in a chore's history. */
export interface ChoreRunRecord {
  runId: string;
  choreId: string;
  /** The fire's dedup key; with `attempt`, identifies the run so a redelivered trigger finds it. */
  fireKey: string;
  /** 0 for the first run of a fire, n for its n-th retry. */
  attempt: number;
  cause: ChoreRunCause;
  startedAt: number;
  endedAt: number | null;
  status: ChoreRunStatus;
  reason: string | null;
  usage: ChoreUsageTotals;
  steps: ChoreStep[];
  /** The engine task doing the run's work, once it is known. */
  taskId?: string;
  /** What triggered the fire (kept so a retry tells the model the same context). */
  context?: ChoreFireContext;
  /** The last round of the chore's `verify:` checks (core/checks/checkRun.ts); absent while none ran. */
  verify?: CheckResult[];
  /** Rounds of checks run so far: a reload resumes the count, so the rounds stay bounded. */
  checkRounds?: number;
  /** Set while the run is paused at a budget (budgetPause.ts): why, and since when. */
  parked?: { message: string; at: number };
  /** The run's limits once a resume raised them; absent, the chore's own `budget`. */
  limits?: ChoreBudget;
}

const count = z.number().finite().nonnegative();

const step = z.looseObject({
  id: z.number(),
  name: z.string(),
  status: z.enum(['running', 'ok', 'error']),
  args: z.string().default(''),
  result: z.string().default(''),
  startedAt: z.number(),
  durationMs: z.number().nullable().default(null),
});

const runSchema = z.looseObject({
  runId: z.string().min(1),
  choreId: z.string().min(1),
  fireKey: z.string(),
  attempt: count.default(0),
  cause: z.enum(CHORE_RUN_CAUSES),
  startedAt: z.number(),
  endedAt: z.number().nullable().default(null),
  status: z.enum(CHORE_RUN_STATUSES),
  reason: z.string().nullable().default(null),
  usage: z
    .looseObject({
      iterations: count.default(0),
      elapsedMs: count.default(0),
      inputTokens: count.default(0),
      outputTokens: count.default(0),
      cacheReadTokens: count.default(0),
      cacheWriteTokens: count.default(0),
      costUsd: count.default(0),
      costEstimated: z.boolean().optional(),
    })
    .default(() => ({ iterations: 0, elapsedMs: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 })),
  steps: z.array(step).default([]),
  taskId: z.string().optional(),
  verify: z
    .array(
      z.looseObject({
        command: z.string(),
        exitCode: z.number().nullable(),
        durationMs: count,
        ok: z.boolean(),
        problem: z.string().optional(),
        tail: z.string().default(''),
      }),
    )
    .optional(),
  checkRounds: count.optional(),
});

/** A `chore_runs` row's data; throws DurableRowError naming the run and the field. */
export function decodeRun(data: SqlValue | undefined, id?: string): ChoreRunRecord {
  const run = decodeRow(runSchema, 'chore run', data, id);
  return run as ChoreRunRecord;
}
