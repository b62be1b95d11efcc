/**
 * Decode, don't cast: every durable row (a session, a task, a chore run) is read through a zod
 * schema that names what its readers rely on. A row that does not decode is reported with its id
 * and the field at fault, and left out: never half-used. Fields added over the releases have a
 * default in their schema, so an old row is upgraded on every read path, not only one.
 */
import type * as z from 'zod/v4';
import type { SqlValue } from './types';

export class DurableRowError extends Error {
  constructor(
    readonly kind: string,
    readonly id: string,
    readonly field: string,
    /** What is wrong with `field` ("not JSON (…)", zod's message). */
    readonly detail: string,
  ) {
    super(`The stored ${kind} ${id} cannot be read: ${field ? `${field}: ` : ''}${detail}. It is left out; the rest of the store is used.`);
    this.name = 'DurableRowError';
  }
}

/** Parses a row's JSON `data` with `schema`; throws DurableRowError naming the row and field. */
export function decodeRow<T>(schema: z.ZodType<T>, kind: string, data: SqlValue | undefined, id = '?'): T {
  const json = parseJson(kind, id, '', data);
  const rowId = typeof (json as { id?: unknown })?.id === 'string' ? (json as { id: string }).id : id;
  return decodeValue(schema, kind, rowId, '', json);
}

/**
 * Parses one JSON column (`column`) of the row `id` with `schema`: for tables whose JSON sits beside
 * plain columns (the ledger's intent and outcome, a `meta` value). The field it names is
 * `column.path`.
 */
export function decodeColumn<T>(schema: z.ZodType<T>, kind: string, id: string, column: string, data: SqlValue | undefined): T {
  return decodeValue(schema, kind, id, column, parseJson(kind, id, column, data));
}

/** Checks an already parsed value (a row's plain columns) with `schema`; fields are named under `prefix`. */
export function decodeValue<T>(schema: z.ZodType<T>, kind: string, id: string, prefix: string, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = [prefix, ...(issue?.path.map(String) ?? [])].filter(Boolean).join('.');
  throw new DurableRowError(kind, id, field, issue?.message ?? 'invalid');
}

function parseJson(kind: string, id: string, field: string, data: SqlValue | undefined): unknown {
  try {
    return JSON.parse(String(data));
  } catch (error) {
    throw new DurableRowError(kind, id, field, `not JSON (${(error as Error).message})`);
  }
}

/**
 * Decodes every row, leaving out (and reporting once each) the ones that fail. For a list read
 * (start-up, a history page): one damaged row must not hide the others.
 */
export function decodeRows<R, T>(rows: Iterable<R>, decode: (row: R) => T, report: (error: DurableRowError) => void): T[] {
  const out: T[] = [];
  for (const data of rows) {
    try {
      out.push(decode(data));
    } catch (error) {
      if (!(error instanceof DurableRowError)) throw error;
      report(error);
    }
  }
  return out;
}
