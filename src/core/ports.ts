/**
 * The core's ports: small interfaces for everything outside the engine. src/host implements them
 * with the VS Code API; test/fakes implements them in memory; a headless runner could implement
 * them with plain Node.
 */

/** Log tags of docs/DESIGN.md §9; a workflow line names its pipeline step ([WORKFLOW: select]). */
export type LogTag = 'TRIGGER' | 'REACT' | `WORKFLOW: ${WorkflowStep}` | 'ACTION' | 'CHAT' | 'TASK' | 'CHORE' | 'STORE' | 'MODEL' | 'HOST';

/** The steps of the turn pipeline (docs/DESIGN.md §2). */
export type WorkflowStep = 'select' | 'prepare' | 'repair' | 'execute' | 'finalize';

/** One logger for the whole extension; the host writes to the "Tasklane" LogOutputChannel. */
export interface Logger {
  trace(tag: LogTag, message: string): void;
  info(tag: LogTag, message: string): void;
  warn(tag: LogTag, message: string): void;
  error(tag: LogTag, message: string, error?: unknown): void;
}

/** Time, injectable so tests can use a fake clock. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): { cancel(): void };
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const handle = setTimeout(callback, ms);
    return { cancel: () => clearTimeout(handle) };
  },
};

export const silentLogger: Logger = { trace() {}, info() {}, warn() {}, error() {} };

/** One search_text hit. */
export interface SearchHit {
  path: string;
  line: number;
  text: string;
}

/** Read-only access to the workspace, for the read actions. Paths are workspace-relative. */
export interface WorkspacePort {
  readFile(relativePath: string): Promise<string>;
  /**
   * Reads at most `maxBytes` from the start of the file (never the whole file when it is larger).
   * Optional: a port without it is read whole, then cut (in-memory fakes).
   */
  readText?(relativePath: string, maxBytes: number): Promise<{ text: string; truncated: boolean; size: number }>;
  /** Workspace-relative paths (folders end with '/'), sorted. */
  listFiles(relativeDir: string, options?: { recursive?: boolean; limit?: number }): Promise<string[]>;
  searchText(query: string, options?: { isRegex?: boolean; include?: string; limit?: number }): Promise<SearchHit[]>;
}
