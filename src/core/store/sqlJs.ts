import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';

export type { SqlJsStatic };

/**
 * Loads the sql.js WebAssembly module. The extension passes the path of its bundled
 * `dist/sql-wasm.wasm` (esbuild does not follow sql.js's own lookup); in plain Node (tests,
 * benchmarks, a headless runner) sql.js finds the wasm next to its own script.
 */
export function loadSqlJs(wasmPath?: string): Promise<SqlJsStatic> {
  return wasmPath ? initSqlJs({ locateFile: () => wasmPath }) : initSqlJs();
}
