// Types for codeServer.mjs, so TypeScript tests (UI tier) can import it.

/** One extension copied unpacked into the run's extensions dir. */
export interface InstalledExtension {
  /** `publisher.name` */
  id: string;
  dir: string;
  manifest: Record<string, unknown>;
}

/** A running code-server for one test run. */
export interface CodeServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The workbench URL with the run's workspace folder open. */
  workbenchUrl: string;
  port: number;
  pid: number;
  /** .vscode-test/runs/<name>/ */
  runDir: string;
  userDataDir: string;
  extensionsDir: string;
  /** The run's copy of sample-workspace (or of options.workspace). */
  workspaceDir: string;
  logFile: string;
  extensions: InstalledExtension[];
  /** The User settings it was started with (writeUserSettings starts from these). */
  baseSettings: Record<string, unknown>;
  /** Kills the whole process group (server, extension host, helpers). Idempotent. */
  stop(): Promise<void>;
}

/** Options of startCodeServer. */
export interface StartCodeServerOptions {
  /** Run name: state goes to .vscode-test/runs/<name>/ (wiped first unless reuse). */
  name: string;
  /** Extra User/settings.json entries, e.g. `tasklane.model.provider`. */
  settings?: Record<string, unknown>;
  /** Extra environment for code-server; the extension host inherits it. */
  env?: Record<string, string | undefined>;
  /** More unpacked extension folders to install (fixtures). */
  extraExtensions?: string[];
  /** Install the built Tasklane extension (default true). */
  installTasklane?: boolean;
  /** Where the built extension is (default: env TASKLANE_EXTENSION_DIR, else the repository). */
  tasklaneDir?: string;
  /** Folder copied as the workspace (default: sample-workspace). */
  workspace?: string;
  /** Make the workspace copy a git repository with one commit (default true). */
  gitInit?: boolean;
  /** Keep Workspace Trust on, to test Restricted Mode on purpose (default false). */
  workspaceTrust?: boolean;
  /** Keep the run's user data and workspace from a previous start (npm start). */
  reuse?: boolean;
  port?: number;
  startTimeoutMs?: number;
  /** How long a closed window's extension host lives on (default VS Code's 3 hours). */
  reconnectionGraceSeconds?: number;
}

export const repoRoot: string;
export const cacheDir: string;
export const node24: string;
export const codeServerEntry: string;
/** User settings of every test run (not of npm start). */
export const TEST_RUN_SETTINGS: Readonly<Record<string, unknown>>;
/** Copies sample-workspace (or `source`) to `target` as a fresh workspace, a git repository unless gitInit is false. */
export function makeWorkspace(target: string, options?: { source?: string; gitInit?: boolean }): string;
/** Replaces the run's User/settings.json with its base settings plus `settings`. */
export function writeUserSettings(server: CodeServer, settings: Record<string, unknown>): void;
/** A run name unique on this machine, across PID namespaces too. */
export function uniqueRunName(prefix: string): string;
export function freePort(): Promise<number>;
export function installUnpackedExtension(sourceDir: string, extensionsDir: string, parts?: string[]): InstalledExtension;
export function installTasklane(extensionsDir: string, sourceDir?: string): InstalledExtension;
export function startCodeServer(options: StartCodeServerOptions): Promise<CodeServer>;
