/**
 * Decode, don't cast: every durable row (a session, a task, a chore run) is read through a zod
 * schema that names what its readers rely on. A row that does not decode is reported with its id
 * and the field at fault, and left out: never half-used. Fields added over the releases have a
 * default in their schema, so an old row is upgraded on every read path, not only one.
 */
import type { z } from 'zod';
import type { SqlValue } from './types';

export class DurableRowError extends Error {
  constructor(
    readonly kind: string,
    readonly id: string,
    readonly field: string,
    detail: string,
  ) {
    super(`The stored ${kind} ${id} cannot be read: ${field ? `${field}: ` : ''}${detail}. It is left out; the rest of the store is used.`);
    this.name = 'DurableRowError';
  }
}

/** Parses a row's JSON `data` with `schema`; throws DurableRowError naming the row and field. */
export function decodeRow<T>(schema: z.ZodType<T>, kind: string, data: SqlValue | undefined, id = '?'): T {
  let json: unknown;
  try {
    json = JSON.parse(String(data));
  } catch (error) {
    throw new DurableRowError(kind, id, '', `not JSON (${(error as Error).message})`);
  }
  const rowId = typeof (json as { id?: unknown })?.id === 'string' ? (json as { id: string }).id : id;
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new DurableRowError(kind, rowId, issue?.path.join('.') ?? '', issue?.message ?? 'invalid');
}

/**
 * Decodes every row, leaving out (and reporting once each) the ones that fail. For a list read
 * (start-up, a history page): one damaged row must not hide the others.
 */
export function decodeRows<T>(rows: Iterable<SqlValue | undefined>, decode: (data: SqlValue | undefined) => T, report: (error: DurableRowError) => void): T[] {
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
