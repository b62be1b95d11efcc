// Host tier: mocha suites (test/host/*.test.ts) running INSIDE a real VS Code extension host.
// Bundles the suites with esbuild (`vscode` external), starts code-server with Tasklane, the host
// runner and the LM provider fixture, opens the workbench (that starts the extension host), then
// waits for the runner's JSON results.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { build } from 'esbuild';
import { cacheDir, repoRoot, startCodeServer, TEST_RUN_SETTINGS, uniqueRunName } from './codeServer.mjs';
import { openWorkbench } from './browser.mjs';
import { modelServerAvailable, startModelServer } from './modelServer.mjs';

export const hostSuiteDir = path.join(repoRoot, 'test/host');
export const hostRunnerDir = path.join(repoRoot, 'test/fixtures/hostRunnerExtension');
export const lmProviderDir = path.join(repoRoot, 'test/fixtures/lmProviderExtension');

/**
 * The host tier's passes over `files` (default: every test/host/*.test.ts): one workbench for all
 * of them, and one more for `*.restricted.test.ts`, because Workspace Trust is decided when a
 * workbench starts (they need an untrusted folder, every other suite a trusted one).
 */
export function hostPasses(files) {
  const all =
    files ??
    fs
      .readdirSync(hostSuiteDir)
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => path.join(hostSuiteDir, f));
  const restricted = all.filter((f) => f.endsWith('.restricted.test.ts'));
  const trusted = all.filter((f) => !f.endsWith('.restricted.test.ts'));
  return [...(trusted.length ? [{ files: trusted }] : []), ...(restricted.length ? [{ files: restricted, workspaceTrust: true }] : [])];
}

/**
 * Bundles the given host suites (default: every trusted one) into one CommonJS file, in name order
 * except that `*.restart.test.ts` go last: such a suite restarts the extension host once every
 * suite has run and checks its work survived (test/host/support/phases.ts), so nothing another
 * suite does (a quiesce that cancels every task) may come between its two halves.
 */
export async function bundleHostSuites(outfile, files) {
  const specs = (files ?? hostPasses()[0]?.files ?? []).slice().sort((a, b) => {
    const restart = (f) => (f.endsWith('.restart.test.ts') ? 1 : 0);
    return restart(a) - restart(b) || a.localeCompare(b);
  });
  if (specs.length === 0) throw new Error(`no host suites in ${hostSuiteDir} (expected *.test.ts)`);
  await build({
    stdin: { contents: specs.map((f) => `require(${JSON.stringify(f)});`).join('\n'), resolveDir: hostSuiteDir, sourcefile: 'hostSuites.js', loader: 'js' },
    bundle: true,
    outfile,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    // The extension's own aliases (esbuild.js bundleAlias): the suites bundle the same libraries.
    alias: createRequire(import.meta.url)(path.join(repoRoot, 'esbuild.js')).bundleAlias,
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return specs;
}

/**
 * Answers the workbench's modal dialog for a suite that asked to (support/dialogs.ts writes
 * `dialog-request.json` with the button's label): clicks that button once the dialog shows, and
 * hands the dialog's text back in `dialog-answer.json`, so the suite can assert what it said. A
 * request without a button only reads the text once the dialog shows, and leaves it open. A request
 * with `input` types it into the input box (or quick pick filter) titled `title`, then Enter.
 */
async function answerDialog(page, runDir) {
  const requestFile = path.join(runDir, 'dialog-request.json');
  if (!fs.existsSync(requestFile)) return;
  const { button, input, title } = JSON.parse(fs.readFileSync(requestFile, 'utf8'));
  let text;
  if (typeof input === 'string') {
    // An input box or quick pick whose title holds `title`: types `input` and presses Enter.
    const widget = page.locator('.quick-input-widget');
    if (!(await widget.isVisible())) return;
    text = await widget.innerText();
    if (!text.includes(title)) return;
    const field = widget.locator('.quick-input-box input');
    await field.fill(input);
    await field.press('Enter');
  } else {
    const box = page.locator('.monaco-dialog-box');
    if ((await box.count()) === 0) return;
    text = await box.first().innerText();
    if (button) await box.first().locator('.monaco-button', { hasText: button }).first().click();
  }
  fs.rmSync(requestFile);
  fs.writeFileSync(path.join(runDir, 'dialog-answer.json.tmp'), JSON.stringify({ text }));
  fs.renameSync(path.join(runDir, 'dialog-answer.json.tmp'), path.join(runDir, 'dialog-answer.json'));
}

function log(message) {
  process.stderr.write(`[host] ${message}\n`);
}

/**
 * Runs the host tier once. Resolves with counts and per-test results; a tier that could not run
 * (no build, no code-server, runner never reported) resolves with `error` set and failed >= 1.
 * @param {{ files?: string[], grep?: string, timeoutMs?: number, settings?: Record<string, unknown>, workspaceTrust?: boolean }} [options]
 */
export async function runHostTier(options = {}) {
  const timeoutMs = options.timeoutMs ?? Number(process.env.TASKLANE_HOST_TIMEOUT_MS ?? 900_000);
  // Per run: engineers (and sandboxes with PID namespaces of their own) sharing one working tree
  // or cache may run the host tier at once, and runAll's second pass must not wipe the first's logs.
  const runName = uniqueRunName('host');
  const runDir = path.join(cacheDir, 'runs', runName);
  const runner = JSON.parse(fs.readFileSync(path.join(hostRunnerDir, 'package.json'), 'utf8'));
  // startCodeServer wipes and fills runDir; these paths are where it will put things.
  const runnerInstallDir = path.join(runDir, 'extensions', `${runner.publisher}.${runner.name}-${runner.version}`);
  const suiteBundle = path.join(runnerInstallDir, 'suite', 'hostSuites.js');
  const resultsFile = path.join(runDir, 'results.json');

  let model;
  let server;
  let workbench;
  let keepRunDir = true; // kept for its logs unless the run passed
  const started = Date.now();
  try {
    if (modelServerAvailable()) {
      // Every scripted answer names the work it belongs to: background work shares the workbench.
      model = await startModelServer({ requireRoute: true });
      log(`scripted model server at ${model.url}`);
    } else {
      log('test/fixtures/modelServerMain.ts is not there yet: host suites run without a scripted model');
    }
    const userDataDir = path.join(runDir, 'user-data');
    server = await startCodeServer({
      name: runName,
      extraExtensions: [hostRunnerDir, lmProviderDir].filter((dir) => fs.existsSync(path.join(dir, 'package.json'))),
      settings: { ...TEST_RUN_SETTINGS, ...options.settings },
      workspaceTrust: options.workspaceTrust,
      env: {
        TASKLANE_HOST_SUITE: suiteBundle,
        TASKLANE_HOST_GREP: options.grep,
        TASKLANE_HOST_RESULTS: resultsFile,
        TASKLANE_MOCHA_PATH: path.join(repoRoot, 'node_modules/mocha/lib/mocha.cjs'),
        TASKLANE_HOST_TIMEOUT_MS: String(Math.max(10_000, timeoutMs - 30_000)),
        TASKLANE_USER_DATA_DIR: userDataDir,
        // Suites that run packages from the repository (the reference MCP servers) find them here.
        TASKLANE_REPO_ROOT: repoRoot,
        TASKLANE_TEST_MODEL_URL: model?.url,
        // A suite that must answer a modal dialog of the workbench (a tool's confirmation) asks here.
        TASKLANE_HOST_DIALOG_DIR: runDir,
        // The suites decide which keys exist (a missing-key case must not find one in the environment).
        OPENAI_API_KEY: undefined,
        ANTHROPIC_API_KEY: undefined,
      },
    });
    const specs = await bundleHostSuites(suiteBundle, options.files);
    log(`${specs.length} suite file(s) bundled; code-server at ${server.url}`);
    // The extension host starts only when a browser opens the workbench.
    workbench = await openWorkbench(server);
    const deadline = started + timeoutMs;
    while (!fs.existsSync(resultsFile)) {
      await answerDialog(workbench.page, runDir);
      if (Date.now() > deadline) {
        throw new Error(
          `no host results after ${timeoutMs} ms: did the runner extension activate? see ${server.logFile} and the exthost log under ${path.join(userDataDir, 'logs')}`,
        );
      }
      await delay(250);
    }
    const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
    keepRunDir = results.failed > 0;
    return { tier: 'host', ...results, wallMs: Date.now() - started };
  } catch (error) {
    return {
      tier: 'host',
      passed: 0,
      failed: 1,
      tests: [],
      failures: [{ title: 'host tier', fullTitle: 'host tier could not run', message: error.message, stack: error.stack ?? '' }],
      error: error.message,
      wallMs: Date.now() - started,
    };
  } finally {
    await workbench?.close();
    await server?.stop();
    await model?.stop();
    if (keepRunDir) log(`run kept for inspection: ${runDir}`);
    else fs.rmSync(runDir, { recursive: true, force: true });
  }
}

/** Prints results like mocha's spec reporter, compactly. */
export function printHostResults(results, out = process.stdout) {
  for (const test of results.tests ?? []) {
    const mark = test.state === 'passed' ? '✔' : test.state === 'pending' ? '-' : '✘';
    out.write(`  ${mark} ${test.fullTitle}${test.durationMs ? ` (${test.durationMs} ms)` : ''}\n`);
  }
  for (const [i, failure] of (results.failures ?? []).entries()) {
    out.write(`\n  ${i + 1}) ${failure.fullTitle}\n     ${failure.message}\n`);
    const frames = (failure.stack ?? '').split('\n').slice(1, 6).join('\n');
    if (frames) out.write(`${frames}\n`);
  }
  out.write(`\n  host: ${results.passed} passed, ${results.failed} failed (${Math.round((results.wallMs ?? 0) / 1000)} s)\n`);
}

// `node test/harness/hostTier.mjs [files...]` runs the host tier alone (`npm test -- host` does the same, with provisioning).
if (import.meta.url === `file://${process.argv[1]}`) {
  const files = process.argv.slice(2).map((f) => path.resolve(f));
  let failed = false;
  for (const pass of hostPasses(files.length ? files : undefined)) {
    const results = await runHostTier(pass);
    printHostResults(results);
    failed ||= results.failed > 0 || Boolean(results.error);
  }
  process.exitCode = failed ? 1 : 0;
}
