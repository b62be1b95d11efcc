// Extension-level figures (docs/DESIGN.md §10): ext.activate, ext.idle_window_bytes, ext.bundle_bytes, ext.vsix_bytes.
// ext.activate: require + activate() of the bundled dist/extension.js, each run in a fresh Node
// process (a cold module cache, as in a new extension host) with a minimal stub `vscode` module.
// Baseline: the same measurement of an empty extension, in the same run, so the ratio is the cost
// Tasklane adds over what any extension pays in this setup.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compileGlob } from '../src/core/approval/changes/textMatch';

const repoRoot = path.resolve(__dirname, '..');
const bundle = path.join(repoRoot, 'dist/extension.js');
const vsix = path.join(repoRoot, 'dist-vsix/tasklane.vsix');
const runs = Number(process.env.BENCH_EXT_RUNS ?? 15);
const MB = 1024 * 1024;

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(figure)}\n`);
}

function note(message: string): void {
  process.stderr.write(`[ext] ${message}\n`);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round = (value: number) => Math.round(value * 100) / 100;
const ratio = (value: number, of: number) => Math.round((value / of) * 1000) / 1000;

// A stub `vscode` module: real Uri/EventEmitter/Disposable and a file-backed workspace.fs, and for
// everything else a permissive proxy, so activation code runs its real path without an editor.
const STUB = String.raw`
'use strict';
const fs = require('node:fs');
const path = require('node:path');
function universal(name) {
  const fn = function () {};
  return new Proxy(fn, {
    get(_t, prop) {
      if (prop === 'then') return undefined;
      if (prop === Symbol.toPrimitive) return () => name;
      if (prop === Symbol.iterator) return function* () {};
      if (prop === 'dispose') return () => {};
      if (prop === 'length') return 0;
      return universal(name + '.' + String(prop));
    },
    apply() { return universal(name + '()'); },
    construct() { return universal('new ' + name); },
  });
}
function withFallback(name, real) {
  return new Proxy(real, { get(t, prop) { return prop in t ? t[prop] : prop === 'then' ? undefined : universal(name + '.' + String(prop)); } });
}
class Disposable { constructor(fn) { this._fn = fn; } static from(...ds) { return new Disposable(() => ds.forEach((d) => d && d.dispose && d.dispose())); } dispose() { if (this._fn) this._fn(); this._fn = undefined; } }
class EventEmitter {
  constructor() { this._l = new Set(); this.event = (l) => { this._l.add(l); return new Disposable(() => this._l.delete(l)); }; }
  fire(e) { for (const l of [...this._l]) l(e); }
  dispose() { this._l.clear(); }
}
class Uri {
  constructor(scheme, p) { this.scheme = scheme; this.path = p; this.fsPath = p; this.authority = ''; this.query = ''; this.fragment = ''; }
  static file(p) { return new Uri('file', path.resolve(p)); }
  static parse(s) { return s.startsWith('file://') ? new Uri('file', decodeURIComponent(s.slice(7))) : new Uri(s.split(':')[0], s.slice(s.indexOf(':') + 1)); }
  static joinPath(u, ...parts) { return new Uri(u.scheme, path.join(u.path, ...parts)); }
  with(c) { return new Uri(c.scheme || this.scheme, c.path || this.path); }
  toString() { return this.scheme + '://' + this.path; }
  toJSON() { return this.toString(); }
}
const event = () => new Disposable();
const fsApi = {
  readFile: async (u) => new Uint8Array(fs.readFileSync(u.fsPath)),
  writeFile: async (u, d) => { fs.mkdirSync(path.dirname(u.fsPath), { recursive: true }); fs.writeFileSync(u.fsPath, d); },
  createDirectory: async (u) => { fs.mkdirSync(u.fsPath, { recursive: true }); },
  delete: async (u) => { fs.rmSync(u.fsPath, { recursive: true, force: true }); },
  stat: async (u) => { const s = fs.statSync(u.fsPath); return { type: s.isDirectory() ? 2 : 1, size: s.size, ctime: s.ctimeMs, mtime: s.mtimeMs }; },
  readDirectory: async (u) => fs.readdirSync(u.fsPath, { withFileTypes: true }).map((d) => [d.name, d.isDirectory() ? 2 : 1]),
  rename: async (a, b) => { fs.renameSync(a.fsPath, b.fsPath); },
  copy: async (a, b) => { fs.cpSync(a.fsPath, b.fsPath, { recursive: true }); },
};
const configuration = { get: (_k, d) => d, has: () => false, inspect: () => undefined, update: async () => {} };
const outputChannel = () => withFallback('channel', { name: 'Tasklane', append() {}, appendLine() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {}, show() {}, hide() {}, clear() {}, replace() {}, dispose() {}, logLevel: 2, onDidChangeLogLevel: event });
const memento = () => { const m = new Map(); return { get: (k, d) => (m.has(k) ? m.get(k) : d), update: async (k, v) => { m.set(k, v); }, keys: () => [...m.keys()], setKeysForSync() {} }; };
const workspaceRoot = process.env.BENCH_WORKSPACE;
module.exports = withFallback('vscode', {
  version: '1.139.1',
  Uri, EventEmitter, Disposable,
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  ViewColumn: { Active: -1, Beside: -2, One: 1 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  FileType: { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 },
  LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
  DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  QuickPickItemKind: { Separator: -1, Default: 0 },
  EndOfLine: { LF: 1, CRLF: 2 },
  // Classes main.js constructs at load: plain holders of their arguments.
  ...Object.fromEntries(['ThemeIcon', 'ThemeColor', 'TreeItem', 'MarkdownString', 'Range', 'Position', 'Selection', 'RelativePattern', 'CancellationTokenSource', 'WorkspaceEdit', 'TextEdit', 'Location', 'LanguageModelToolResult', 'LanguageModelTextPart', 'TabInputText', 'TabInputTextDiff'].map((name) => [name, class { constructor(...args) { this.args = args; } }])),
  workspace: withFallback('workspace', {
    fs: fsApi,
    workspaceFolders: workspaceRoot ? [{ uri: Uri.file(workspaceRoot), name: path.basename(workspaceRoot), index: 0 }] : undefined,
    isTrusted: true,
    getConfiguration: () => configuration,
    onDidChangeConfiguration: event, onDidGrantWorkspaceTrust: event, onDidChangeWorkspaceFolders: event,
    onDidSaveTextDocument: event, onDidCreateFiles: event, onDidDeleteFiles: event, onDidRenameFiles: event,
    createFileSystemWatcher: () => withFallback('watcher', { onDidChange: event, onDidCreate: event, onDidDelete: event, dispose() {} }),
    findFiles: async () => [],
    textDocuments: [],
  }),
  window: withFallback('window', {
    createOutputChannel: outputChannel,
    registerWebviewViewProvider: () => new Disposable(),
    registerTreeDataProvider: () => new Disposable(),
    createStatusBarItem: () => withFallback('statusBarItem', { show() {}, hide() {}, dispose() {} }),
    onDidChangeActiveTextEditor: event, onDidChangeWindowState: event,
    showInformationMessage: async () => undefined, showWarningMessage: async () => undefined, showErrorMessage: async () => undefined,
    visibleTextEditors: [], activeTextEditor: undefined,
  }),
  commands: withFallback('commands', { registerCommand: () => new Disposable(), executeCommand: async () => undefined, getCommands: async () => [] }),
  tasks: withFallback('tasks', { onDidEndTaskProcess: event, onDidStartTaskProcess: event, onDidEndTask: event, fetchTasks: async () => [] }),
  lm: withFallback('lm', { selectChatModels: async () => [], onDidChangeChatModels: event }),
  extensions: withFallback('extensions', { getExtension: () => undefined, all: [], onDidChange: event }),
  languages: withFallback('languages', { registerCodeLensProvider: () => new Disposable(), onDidChangeDiagnostics: event, getDiagnostics: () => [] }),
  chat: withFallback('chat', {}),
  scm: withFallback('scm', {}),
  authentication: withFallback('authentication', { onDidChangeSessions: event }),
  l10n: withFallback('l10n', { t: (message, ...args) => (typeof message === 'string' ? message : message.message).replace(/\{(\d+)\}/g, (m, i) => String(args[i] ?? m)), bundle: undefined }),
  env: withFallback('env', { appName: 'bench', appRoot: path.join(workspaceRoot || '.', '.no-app-root'), language: 'en', machineId: 'bench', sessionId: 'bench', uriScheme: 'vscode' }),
  __makeContext(storage, globalStorage, extensionDir) {
    const secrets = new Map();
    return withFallback('context', {
      subscriptions: [],
      extensionUri: Uri.file(extensionDir), extensionPath: extensionDir,
      storageUri: Uri.file(storage), storagePath: storage,
      globalStorageUri: Uri.file(globalStorage), globalStoragePath: globalStorage,
      logUri: Uri.file(path.join(storage, 'logs')),
      workspaceState: memento(), globalState: memento(),
      secrets: { get: async (k) => secrets.get(k), store: async (k, v) => { secrets.set(k, v); }, delete: async (k) => { secrets.delete(k); }, onDidChange: event },
      extensionMode: 1,
      asAbsolutePath: (p) => path.join(extensionDir, p),
      extension: { id: 'tasklane.tasklane', packageJSON: require(path.join(extensionDir, 'package.json')) },
    });
  },
});
`;

const PROBE = String.raw`
'use strict';
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');
const { performance, monitorEventLoopDelay } = require('node:perf_hooks');
const [stubPath, bundlePath, extensionDir, runDir] = process.argv.slice(2);
const stub = require(stubPath);
const load = Module._load;
Module._load = function (request, ...rest) { return request === 'vscode' ? stub : load.call(this, request, ...rest); };
(async () => {
  const storage = path.join(runDir, 'storage');
  fs.mkdirSync(storage, { recursive: true });
  const context = stub.__makeContext(storage, path.join(runDir, 'global'), extensionDir);
  // Longest stretch the thread was blocked between require and ready: work deferred past
  // activate() still stalls the extension host, so it is reported next to the activation time.
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  const t0 = performance.now();
  const ext = require(bundlePath);
  const t1 = performance.now();
  let api = ext.activate(context);
  if (api && typeof api.then === 'function') api = await api;
  const t2 = performance.now();
  let readyMs = null;
  if (api && api.ready && typeof api.ready.then === 'function') {
    readyMs = await Promise.race([
      api.ready.then(() => performance.now() - t0, () => null),
      new Promise((resolve) => setTimeout(() => resolve(null), 10000)),
    ]);
  }
  lag.disable();
  const maxBlockMs = lag.max / 1e6;
  // What the extension's own files cost the process: every module it required from its folder
  // (its bundles under dist/, not the stub or Node's own), after it said it was ready.
  const loadedBytes = Object.keys(require.cache)
    .filter((file) => file.startsWith(path.join(extensionDir, 'dist') + path.sep) || file === bundlePath)
    .reduce((sum, file) => sum + fs.statSync(file).size, 0);
  try { if (ext.deactivate) await ext.deactivate(); } catch {}
  process.stdout.write(JSON.stringify({ requireMs: t1 - t0, activateMs: t2 - t1, totalMs: t2 - t0, readyMs, maxBlockMs, loadedBytes }) + '\n');
  process.exit(0);
})().catch((e) => { process.stderr.write(String((e && e.stack) || e) + '\n'); process.exit(1); });
`;

interface ProbeResult {
  requireMs: number;
  activateMs: number;
  totalMs: number;
  readyMs: number | null;
  maxBlockMs: number;
  loadedBytes: number;
}

function probe(dir: string, bundlePath: string, extensionDir: string, index: number): ProbeResult {
  const runDir = path.join(dir, `run-${index}`);
  const result = spawnSync(process.execPath, [path.join(dir, 'probe.cjs'), path.join(dir, 'vscodeStub.cjs'), bundlePath, extensionDir, runDir], {
    encoding: 'utf8',
    env: { ...process.env, BENCH_WORKSPACE: path.join(repoRoot, 'sample-workspace'), NODE_OPTIONS: '' },
    timeout: 60_000,
  });
  if (result.status !== 0) throw new Error(`activating ${bundlePath} failed in a fresh process (exit ${result.status}):\n${result.stderr}`);
  const line = result.stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as ProbeResult;
}

function measureActivation(dir: string, bundlePath: string, extensionDir: string): ProbeResult[] {
  probe(dir, bundlePath, extensionDir, -1); // warm the OS file cache; not counted
  return Array.from({ length: runs }, (_, i) => probe(dir, bundlePath, extensionDir, i));
}

/**
 * Whether VS Code activates an extension with these activation events when a window opens
 * `folder`, before the person touches anything: `*` and `onStartupFinished` always do, and
 * `workspaceContains:<glob>` when a file of the folder matches (VS Code's rule; a glob without
 * glob characters is a path that exists). Every other event needs the person (a view, a command,
 * a URI) or a file of Tasklane's own scheme.
 */
function activatesAtStartup(events: readonly string[], folder: string): boolean {
  if (events.includes('*') || events.includes('onStartupFinished')) return true;
  const files: string[] = [];
  const walk = (dir: string, relative: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const rel = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== '.git') walk(path.join(dir, entry.name), rel);
      } else files.push(rel);
    }
  };
  walk(folder, '');
  return events
    .filter((event) => event.startsWith('workspaceContains:'))
    .map((event) => event.slice('workspaceContains:'.length))
    .some((pattern) => (/[*?{[]/.test(pattern) ? files.some(compileGlob(pattern, { baseNameAnyDepth: false })) : fs.existsSync(path.join(folder, pattern))));
}

function ensureBuilt(): void {
  if (fs.existsSync(bundle)) return;
  note('dist/extension.js is missing: running npm run build');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
}

function main(): void {
  ensureBuilt();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-ext-bench-'));
  try {
    fs.writeFileSync(path.join(dir, 'vscodeStub.cjs'), STUB);
    fs.writeFileSync(path.join(dir, 'probe.cjs'), PROBE);
    // The baseline: an extension that does nothing, measured the same way.
    const emptyDir = path.join(dir, 'empty-extension');
    fs.mkdirSync(emptyDir);
    fs.writeFileSync(path.join(emptyDir, 'package.json'), JSON.stringify({ name: 'empty', publisher: 'bench', version: '0.0.0' }));
    fs.writeFileSync(path.join(emptyDir, 'extension.js'), "require('vscode'); exports.activate = () => ({ ready: Promise.resolve() });");

    note(`ext.activate: ${runs} fresh processes each for Tasklane and the empty baseline`);
    const tasklane = measureActivation(dir, bundle, repoRoot);
    const empty = measureActivation(dir, path.join(emptyDir, 'extension.js'), emptyDir);
    const totals = tasklane.map((r) => r.totalMs);
    const median = percentile(totals, 50);
    const baseline = percentile(
      empty.map((r) => r.totalMs),
      50,
    );
    const ready = tasklane.map((r) => r.readyMs).filter((v): v is number => typeof v === 'number');
    emit({
      name: 'ext.activate',
      value: round(median),
      unit: 'ms',
      target: 50,
      p95: round(percentile(totals, 95)),
      runs,
      require_ms: round(
        percentile(
          tasklane.map((r) => r.requireMs),
          50,
        ),
      ),
      activate_call_ms: round(
        percentile(
          tasklane.map((r) => r.activateMs),
          50,
        ),
      ),
      ready_ms: ready.length ? round(percentile(ready, 50)) : null,
      startup_max_block_ms: round(
        percentile(
          tasklane.map((r) => r.maxBlockMs),
          50,
        ),
      ),
      baseline: round(baseline),
      baseline_name: 'empty extension, same stub and process setup',
      ratio: ratio(median, Math.max(baseline, 0.01)),
      within_target: median <= 50,
    });

    // ext.idle_window_bytes: a window on a folder where Tasklane has no work (the sample workspace:
    // no .tasklane/, no .vscode/mcp.json). What VS Code would load of Tasklane there is what the
    // probe loaded if the manifest's events activate it at start-up, and nothing otherwise. The
    // baseline is the same window under the old manifest's `onStartupFinished`, measured the same way.
    const events = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { activationEvents: string[] }).activationEvents;
    const idleFolder = path.join(repoRoot, 'sample-workspace');
    const loadedWhenActivated = percentile(
      tasklane.map((r) => r.loadedBytes),
      50,
    );
    const idleBytes = activatesAtStartup(events, idleFolder) ? loadedWhenActivated : 0;
    emit({
      name: 'ext.idle_window_bytes',
      value: idleBytes,
      unit: 'bytes',
      target: 20 * 1024,
      within_target: idleBytes <= 20 * 1024,
      activation_events: events,
      baseline: loadedWhenActivated,
      baseline_name: 'the same window with onStartupFinished (what every window loaded before)',
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  // The extension bundle is the activation shim plus the composition root it loads right after
  // activation (the sql.js wasm aside, as the target says). The libraries under dist/lazy/ load only
  // on first use (a model call, an MCP server start, an email escalation), so they are not counted.
  const shimBytes = fs.statSync(bundle).size;
  const mainBytes = fs.statSync(path.join(repoRoot, 'dist/main.js')).size;
  const bundleBytes = shimBytes + mainBytes;
  const lazyDir = path.join(repoRoot, 'dist/lazy');
  const lazyBytes = fs.existsSync(lazyDir) ? fs.readdirSync(lazyDir).reduce((sum, f) => sum + fs.statSync(path.join(lazyDir, f)).size, 0) : 0;
  emit({
    name: 'ext.bundle_bytes',
    value: bundleBytes,
    unit: 'bytes',
    target: 1.1 * MB,
    ratio: ratio(bundleBytes, 1.1 * MB),
    within_target: bundleBytes <= 1.1 * MB,
    shim_bytes: shimBytes,
    main_bytes: mainBytes,
    lazy_bytes: lazyBytes,
  });

  note('ext.vsix_bytes: npm run package');
  fs.rmSync(vsix, { force: true });
  const pack = spawnSync('npm', ['run', '--silent', 'package'], { cwd: repoRoot, encoding: 'utf8' });
  if (pack.status !== 0 || !fs.existsSync(vsix)) {
    throw new Error(`npm run package did not produce dist-vsix/tasklane.vsix (exit ${pack.status}):\n${pack.stderr || pack.stdout}`);
  }
  const vsixBytes = fs.statSync(vsix).size;
  emit({ name: 'ext.vsix_bytes', value: vsixBytes, unit: 'bytes', target: 3 * MB, ratio: ratio(vsixBytes, 3 * MB), within_target: vsixBytes <= 3 * MB });
}

main();
