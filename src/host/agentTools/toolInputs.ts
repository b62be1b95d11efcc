import * as z from 'zod/v4';

/**
 * The inputs of Tasklane's language model tools and chat commands, checked with zod whatever the
 * caller's JSON Schema validation did. Their JSON Schemas live in package.json
 * (`contributes.languageModelTools`); test/unit/agentTools/toolInputs.test.ts keeps the two equal.
 * No `vscode` here, so the unit tier can load it.
 */

const budgetSchema = z
  .strictObject({
    maxActions: z.coerce.number().int().positive().optional(),
    maxTokens: z.coerce.number().int().positive().optional(),
    maxCostUsd: z.coerce.number().positive().optional(),
  })
  .optional();

/** Input of `tasklane_start_task` (its JSON Schema is in package.json, kept equal by a unit test). */
export const startTaskInput = z.strictObject({
  instruction: z
    .string()
    .trim()
    .min(1, { error: 'instruction must say what the task should do' })
    .max(8000, { error: 'instruction is longer than 8000 characters; summarise it' }),
  name: z.string().trim().min(1).max(80).optional(),
  mode: z.enum(['simple', 'complex'], { error: 'mode must be simple or complex' }).default('simple'),
  budget: budgetSchema,
});
export type StartTaskInput = z.input<typeof startTaskInput>;

/** Input of `tasklane_schedule`. */
export const scheduleInput = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/, { error: 'id must use only a-z, 0-9 and -, and start with a letter or digit' })
    .max(60)
    .optional(),
  name: z.string().trim().min(1, { error: 'name must not be empty' }).max(80),
  prompt: z.string().trim().min(1, { error: 'prompt must say what each run should do' }).max(8000),
  cron: z.string().trim().min(1, { error: 'cron must be a 5-field pattern such as "0 9 * * 1"' }),
  timezone: z.string().trim().min(1).optional(),
  budget: z
    .strictObject({
      maxIterations: z.coerce.number().int().positive().optional(),
      maxSeconds: z.coerce.number().positive().optional(),
      maxCostUsd: z.coerce.number().positive().optional(),
    })
    .optional(),
});
export type ScheduleInput = z.input<typeof scheduleInput>;

/** Input of `tasklane_status`. */
export const statusInput = z.strictObject({ taskId: z.string().min(1).optional() });

/** Input of `tasklane_await`. */
export const awaitInput = z.strictObject({
  taskId: z.string().min(1, { error: 'taskId is the id tasklane_start_task returned' }),
});

/** A person-readable error the tools return as their result (the calling model can act on it). */
export class TasklaneToolError extends Error {}

/** Parses tool input with a clear message naming the field, or throws TasklaneToolError. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, tool: string): z.output<T> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
  throw new TasklaneToolError(`${tool}: invalid input (${issues}). Fix the named fields and call it again.`);
}
