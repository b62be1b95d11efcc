/**
 * The schemas of the engine's durable rows (the `data` JSON of `sessions` and `tasks`), with the
 * upgrades of rows written by older releases. Every read of a session or a task row, hot or
 * archived, goes through `decodeSession` / `decodeTask` (store/decodeRow.ts says why).
 */
import * as z from 'zod/v4';
import { upgradeActionSets } from '../actions/actionSets';
import { decodeRow } from '../store/decodeRow';
import type { SqlValue } from '../store/types';
import type { SessionRecord, TaskRecord } from './records';

const count = z.number().finite().nonnegative();

const usageTotals = z.looseObject({
  inputTokens: count.default(0),
  outputTokens: count.default(0),
  cacheReadTokens: count.default(0),
  cacheWriteTokens: count.default(0),
  cost: count.default(0),
  costEstimated: z.boolean().optional(),
});
const noUsage = () => usageTotals.parse({});

const sessionSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  status: z.enum(['idle', 'working', 'waiting', 'error']),
  lastActivity: z.number(),
  parentId: z.string().min(1).optional(),
  usage: usageTotals.default(noUsage),
});

const todo = z.looseObject({ text: z.string(), status: z.enum(['pending', 'in_progress', 'done']) });

const taskSchema = z.looseObject({
  id: z.string().min(1),
  sessionId: z.string().min(1),
  name: z.string(),
  instruction: z.string().default(''),
  mode: z.enum(['simple', 'complex']).default('simple'),
  status: z.enum(['running', 'completed', 'error', 'paused', 'cancelled']),
  todos: z.array(todo).default([]),
  // Left as stored: upgradeActionSets gives a row without the list the sets of its kind.
  actionSets: z.array(z.string()).optional(),
  selectedSkills: z.array(z.string()).default([]),
  source: z.string().default('user'),
  waitingForUser: z.boolean().default(false),
  paused: z.boolean().default(false),
  actionCount: count.default(0),
  usage: usageTotals.default(noUsage),
  limits: z.looseObject({ actions: count, tokens: count, cost: count.optional() }),
  warned: z.looseObject({ actions: z.boolean(), tokens: z.boolean(), cost: z.boolean() }).default({ actions: false, tokens: false, cost: false }),
  turns: count.default(0),
  modelErrors: count.default(0),
  prefix: z.string().default(''),
  historyFromSeq: count.default(0),
  historySummary: z
    .looseObject({ turns: count, said: z.array(z.string()), files: z.record(z.string(), z.array(z.string())), failed: z.array(z.string()) })
    .optional(),
  historyMaxChars: count.optional(),
  createdAt: z.number(),
});

/** A `sessions` row's data; throws DurableRowError naming the session and the field. */
export function decodeSession(data: SqlValue | undefined, id?: string): SessionRecord {
  return decodeRow(sessionSchema, 'session', data, id) as SessionRecord;
}

/** A `tasks` row's data, upgraded to today's action sets; throws DurableRowError naming the task and the field. */
export function decodeTask(data: SqlValue | undefined, id?: string): TaskRecord {
  const task = decodeRow(taskSchema, 'task', data, id);
  return upgradeActionSets({ ...task, actionSets: task.actionSets as string[] }) as TaskRecord;
}
