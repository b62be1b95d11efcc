/**
 * Opening the store, the one way: load the sql.js wasm, open the durable database (lease,
 * snapshot, journal replay, migrations) and start the trigger store (recovery of claims). The
 * extension's runtime (src/host/runtime.ts) and the history benchmark (bench/history.bench.ts)
 * both call this, so the benchmark's "ready" measures what activation does.
 */
import type { OpenDurableDbOptions, OpenedDurableDb } from './durableDb';
import { openDurableDb } from './durableDb';
import { loadSqlJs } from './sqlJs';
import type { TriggerStoreOptions } from './triggerStore';
import { createTriggerStore } from './triggerStore';
import type { TriggerStore } from './types';

export interface OpenStoreOptions extends Omit<OpenDurableDbOptions, 'sqlJs'> {
  /** The bundled `sql-wasm.wasm` (the extension); absent: sql.js finds its own (Node). */
  wasmPath?: string;
  triggers?: TriggerStoreOptions;
}

/** The open hot store: the durable database and the trigger queue over it. */
export interface OpenStore {
  db: OpenedDurableDb;
  triggers: TriggerStore;
}

export async function openStore(options: OpenStoreOptions): Promise<OpenStore> {
  const { wasmPath, triggers: triggerOptions, ...dbOptions } = options;
  const sqlJs = await loadSqlJs(wasmPath);
  const db = await openDurableDb({ ...dbOptions, sqlJs });
  try {
    const triggers = await createTriggerStore(db, { ...(dbOptions.logger ? { logger: dbOptions.logger } : {}), ...triggerOptions });
    return { db, triggers };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
