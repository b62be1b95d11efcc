// `npm test`: provision, build, then the three tiers (unit, host, ui) with one summary.
//   npm test                 every tier
//   npm test -- unit|host|ui one or more tiers
//   --no-build / --no-provision  skip those steps (when you just did them)
// The last line of output is always `N passed, N failed` (totals across tiers); the exit code is
// non-zero on any failure or when a tier could not run.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cacheDir, repoRoot } from './codeServer.mjs';
import { hostSuiteDir, printHostResults, runHostTier } from './hostTier.mjs';

const TIERS = ['unit', 'host', 'ui'];
const args = process.argv.slice(2);
const unknown = args.filter((a) => !TIERS.includes(a) && !a.startsWith('--'));
if (unknown.length) {
  process.stderr.write(`unknown tier(s): ${unknown.join(', ')}; use one of ${TIERS.join(', ')} (e.g. npm test -- host)\n`);
  process.stdout.write('0 passed, 1 failed\n');
  process.exit(2);
}
const selected = TIERS.filter((t) => args.includes(t));
const tiers = selected.length ? selected : TIERS;
const needsWorkbench = tiers.some((t) => t !== 'unit');
// Per process, so two engineers' runs in one working tree do not read each other's reports.
const reportsDir = path.join(cacheDir, 'reports', String(process.pid));
fs.mkdirSync(reportsDir, { recursive: true });

function heading(text) {
  process.stdout.write(`\n=== ${text} ===\n`);
}

/** Runs a command with inherited output; returns its exit status (or a message when it could not start). */
function step(command, commandArgs, env) {
  const result = spawnSync(command, commandArgs, { cwd: repoRoot, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.error) return { ok: false, why: `${command} could not start: ${result.error.message}` };
  return { ok: result.status === 0, why: `${[command, ...commandArgs].join(' ')} exited with ${result.status ?? result.signal}` };
}

function couldNotRun(tier, why) {
  return { tier, passed: 0, failed: 1, failures: [{ fullTitle: `${tier} tier could not run`, message: why }], error: why };
}

/** A mocha tier in plain Node, counted through the JSON the counting reporter writes. */
function runMochaTier(tier, config) {
  const reportFile = path.join(reportsDir, `${tier}.json`);
  fs.rmSync(reportFile, { force: true });
  const mocha = path.join(repoRoot, 'node_modules/mocha/bin/mocha.js');
  const run = step(process.execPath, [mocha, '--config', config, '--reporter', path.join(repoRoot, 'test/harness/countingReporter.cjs')], {
    TASKLANE_REPORT_FILE: reportFile,
  });
  if (!fs.existsSync(reportFile)) return couldNotRun(tier, `${run.why} before reporting any result`);
  const report = { tier, ...JSON.parse(fs.readFileSync(reportFile, 'utf8')) };
  // mocha failing without a failed test (a crash in a reporter, an unhandled rejection at exit) still fails the tier.
  if (!run.ok && report.failed === 0) {
    report.failed = 1;
    report.failures.push({ fullTitle: `${tier} tier`, message: run.why });
  }
  return report;
}

const results = [];
let buildOk = true;
let provisionOk = true;
if (needsWorkbench && !args.includes('--no-provision')) {
  heading('provision');
  const run = step('bash', [path.join(repoRoot, 'scripts/provision.sh')]);
  provisionOk = run.ok;
  if (!run.ok) process.stdout.write(`provisioning failed (${run.why}): the host and UI tiers cannot run\n`);
}
if (needsWorkbench && !args.includes('--no-build')) {
  heading('build');
  const run = step('npm', ['run', '--silent', 'build']);
  buildOk = run.ok;
  if (!run.ok) process.stdout.write(`build failed (${run.why}): the host and UI tiers need dist/\n`);
}

for (const tier of tiers) {
  heading(`${tier} tier`);
  const started = Date.now();
  let result;
  if (tier === 'unit') {
    result = runMochaTier('unit', path.join(repoRoot, 'test/unit/.mocharc.json'));
  } else if (!provisionOk) {
    result = couldNotRun(tier, 'scripts/provision.sh failed');
  } else if (!buildOk) {
    result = couldNotRun(tier, 'npm run build failed');
  } else if (tier === 'host') {
    result = await runHostTier();
    printHostResults(result);
    // Cheap passes of their own: suites that need an untrusted folder (Workspace Trust on), and
    // each suite that reloads the window (its restart must not meet what other suites left open).
    const suites = (suffix) =>
      fs
        .readdirSync(hostSuiteDir)
        .filter((f) => f.endsWith(suffix))
        .map((f) => path.join(hostSuiteDir, f));
    const passes = [
      ...(suites('.restricted.test.ts').length ? [{ files: suites('.restricted.test.ts'), workspaceTrust: true }] : []),
      ...suites('.isolated.test.ts').map((file) => ({ files: [file] })),
    ];
    for (const pass of passes) {
      const own = await runHostTier(pass);
      printHostResults(own);
      result = {
        ...result,
        passed: result.passed + own.passed,
        failed: result.failed + own.failed,
        tests: [...(result.tests ?? []), ...(own.tests ?? [])],
        failures: [...(result.failures ?? []), ...(own.failures ?? [])],
        error: result.error ?? own.error,
      };
    }
  } else {
    result = runMochaTier('ui', path.join(repoRoot, 'test/ui/.mocharc.json'));
  }
  result.wallMs = Date.now() - started;
  results.push(result);
}

heading('summary');
let passed = 0;
let failed = 0;
for (const result of results) {
  passed += result.passed;
  failed += result.failed;
  const note = result.error ? ` (could not run: ${result.error.split('\n')[0]})` : '';
  process.stdout.write(`${result.tier.padEnd(5)} ${result.passed} passed, ${result.failed} failed, ${Math.round(result.wallMs / 1000)} s${note}\n`);
  for (const failure of result.failures ?? []) process.stdout.write(`      ✘ ${failure.fullTitle}: ${String(failure.message).split('\n')[0]}\n`);
}
fs.writeFileSync(path.join(reportsDir, 'summary.json'), JSON.stringify({ passed, failed, tiers: results }, null, 2));
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 ? 1 : 0);
