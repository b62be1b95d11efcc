// `npm test`: provision, build (only when the sources changed), then the three tiers (unit, host,
// ui) with one summary.
//   npm test                                  every tier
//   npm test -- unit|host|ui                  one or more tiers
//   npm test -- test/unit/store/lease.test.ts only these files (their tiers are inferred)
//   npm test -- ui --grep "approval card"     only the tests whose title matches
//   --no-build / --no-provision               skip those steps (when you just did them)
//   --serial                                  one tier after another (default: two lanes, below)
// Two lanes run side by side: unit then host, and ui. The workbench tiers spend most of their time
// waiting on a real VS Code (windows opening, debounces, a model's stream), so the two cores have
// room for a second lane; each lane is this script run again with --serial, its lines prefixed.
// The last line of output is always `N passed, N failed` (totals across tiers); the exit code is
// non-zero on any failure or when a tier could not run.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir, repoRoot, uniqueRunName } from './codeServer.mjs';
import { hostPasses, printHostResults, runHostTier } from './hostTier.mjs';

const TIERS = ['unit', 'host', 'ui'];
const { args, files, grep, problems } = parseArguments(process.argv.slice(2));
if (problems.length) {
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  process.stderr.write(`usage: npm test -- [unit|host|ui ...] [test/<tier>/<file>.test.ts ...] [--grep <pattern>] [--no-build] [--no-provision] [--serial]\n`);
  process.stdout.write('0 passed, 1 failed\n');
  process.exit(2);
}
const selected = TIERS.filter((t) => args.includes(t) || files[t].length);
const tiers = selected.length ? selected : TIERS;

/** Splits the command line into tiers, files by tier (inferred from their folder), --grep and flags. */
function parseArguments(argv) {
  const parsed = { args: [], files: { unit: [], host: [], ui: [] }, grep: undefined, problems: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--grep' || arg === '-g') {
      parsed.grep = argv[++i];
      if (!parsed.grep) parsed.problems.push(`${arg} needs a pattern`);
    } else if (arg.startsWith('--grep=')) {
      parsed.grep = arg.slice('--grep='.length);
    } else if (TIERS.includes(arg) || ['--no-build', '--no-provision', '--serial'].includes(arg)) {
      parsed.args.push(arg);
    } else if (arg.endsWith('.ts')) {
      const file = path.resolve(arg);
      const tier = TIERS.find((t) => file.startsWith(path.join(repoRoot, 'test', t) + path.sep));
      if (!fs.existsSync(file)) parsed.problems.push(`no such test file: ${arg}`);
      else if (!tier) parsed.problems.push(`${arg} is not under test/unit, test/host or test/ui`);
      else parsed.files[tier].push(file);
    } else {
      parsed.problems.push(
        `unknown argument: ${arg} (a tier is one of ${TIERS.join(', ')}; a file ends in .ts; flags: --grep, --no-build, --no-provision, --serial)`,
      );
    }
  }
  return parsed;
}
const needsWorkbench = tiers.some((t) => t !== 'unit');
// Per process, so two engineers' runs in one working tree do not read each other's reports.
const reportsDir = process.env.TASKLANE_REPORTS_DIR ?? path.join(cacheDir, 'reports', uniqueRunName('test'));
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

/**
 * A mocha tier in plain Node, counted through the JSON the counting reporter writes. The config
 * holds no `spec` (mocha would add it to any file named here): the whole tier is its glob.
 */
function runMochaTier(tier, config) {
  const reportFile = path.join(reportsDir, `${tier}.json`);
  fs.rmSync(reportFile, { force: true });
  const mocha = path.join(repoRoot, 'node_modules/mocha/bin/mocha.js');
  const specs = files[tier].length ? files[tier] : [`test/${tier}/**/*.test.ts`];
  const run = step(
    process.execPath,
    [mocha, '--config', config, '--reporter', path.join(repoRoot, 'test/harness/countingReporter.cjs'), ...(grep ? ['--grep', grep] : []), ...specs],
    { TASKLANE_REPORT_FILE: reportFile },
  );
  if (!fs.existsSync(reportFile)) return couldNotRun(tier, `${run.why} before reporting any result`);
  const report = { tier, ...JSON.parse(fs.readFileSync(reportFile, 'utf8')) };
  // mocha failing without a failed test (a crash in a reporter, an unhandled rejection at exit) still fails the tier.
  if (!run.ok && report.failed === 0) {
    report.failed = 1;
    report.failures.push({ fullTitle: `${tier} tier`, message: run.why });
  }
  return report;
}

const runStarted = Date.now();
const results = [];
let buildOk = true;
let provisionOk = true;
if (needsWorkbench && !args.includes('--no-provision')) {
  heading('provision');
  const run = step('bash', [path.join(repoRoot, 'scripts/provision.sh')]);
  provisionOk = run.ok;
  if (!run.ok) process.stdout.write(`provisioning failed (${run.why}): the host and UI tiers cannot run\n`);
}
if (!args.includes('--no-build')) {
  heading('build');
  // Every tier: the host and UI tiers load dist/, and the unit tier's CLI tests run bin/tasklane,
  // which prefers dist/cli.js, so a stale dist/ would test yesterday's CLI. Skipped when dist/ was
  // built from these very sources (CI's build step, a second npm test).
  const run = step(process.execPath, [path.join(repoRoot, 'esbuild.js'), '--production', '--if-stale']);
  buildOk = run.ok;
  if (!run.ok) process.stdout.write(`build failed (${run.why}): the tiers need dist/\n`);
}

/**
 * The lanes of this run: unit then host, and ui, when both sides have a tier (and not --serial).
 * A lane is this script again with --serial on its tiers, --no-build and --no-provision (done
 * above, once), and the report folder of this run, so its tier reports are counted here.
 */
function lanesOf(selectedTiers) {
  if (args.includes('--serial')) return [];
  const lanes = [selectedTiers.filter((t) => t !== 'ui'), selectedTiers.filter((t) => t === 'ui')];
  return lanes.every((lane) => lane.length) ? lanes : [];
}

/** Runs one lane as a child process, every line of its output prefixed with the lane's tiers. */
function runLane(laneTiers) {
  // Per tier: its files when some were named, else the whole tier (`host test/unit/x.test.ts` keeps host whole).
  const selection = laneTiers.flatMap((t) => (files[t].length ? files[t] : [t]));
  const laneArgs = [...selection, ...(grep ? ['--grep', grep] : []), '--serial', '--no-build', '--no-provision'];
  const summaryFile = path.join(reportsDir, `lane-${laneTiers.join('-')}.json`);
  const prefix = `[${laneTiers.join('+')}] `;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...laneArgs], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TASKLANE_REPORTS_DIR: reportsDir, TASKLANE_SUMMARY_FILE: summaryFile },
    });
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      let partial = '';
      from.setEncoding('utf8');
      from.on('data', (chunk) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop();
        if (lines.length) to.write(lines.map((line) => prefix + line).join('\n') + '\n');
      });
      from.on('end', () => partial && to.write(prefix + partial + '\n'));
    }
    child.on('error', (error) => resolve(laneTiers.map((t) => couldNotRun(t, `the ${t} lane could not start: ${error.message}`))));
    child.on('close', (code, signal) => {
      const summary = fs.existsSync(summaryFile) ? JSON.parse(fs.readFileSync(summaryFile, 'utf8')) : undefined;
      const laneResults = summary?.tiers ?? laneTiers.map((t) => couldNotRun(t, `the ${t} lane exited with ${code ?? signal} before its summary`));
      resolve(laneResults);
    });
  });
}

const lanes = provisionOk && buildOk ? lanesOf(tiers) : [];
if (lanes.length) {
  heading(`${lanes.map((lane) => lane.join(' then ')).join(', side by side with ')}`);
  results.push(...(await Promise.all(lanes.map(runLane))).flat());
}

for (const tier of lanes.length ? [] : tiers) {
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
    // One workbench for every trusted suite, one for the Restricted Mode ones (hostPasses says why).
    for (const pass of hostPasses(files.host.length ? files.host : undefined)) {
      const own = await runHostTier({ ...pass, grep });
      printHostResults(own);
      result = result
        ? {
            ...result,
            passed: result.passed + own.passed,
            failed: result.failed + own.failed,
            tests: [...(result.tests ?? []), ...(own.tests ?? [])],
            failures: [...(result.failures ?? []), ...(own.failures ?? [])],
            error: result.error ?? own.error,
          }
        : own;
    }
  } else {
    result = runMochaTier('ui', path.join(repoRoot, 'test/ui/.mocharc.json'));
  }
  result.wallMs = Date.now() - started;
  results.push(result);
}

let passed = 0;
let failed = 0;
for (const result of results) {
  passed += result.passed;
  failed += result.failed;
}
const laneSummary = process.env.TASKLANE_SUMMARY_FILE;
if (laneSummary) {
  // A lane: the run that started it prints the summary.
  fs.writeFileSync(laneSummary, JSON.stringify({ passed, failed, tiers: results }, null, 2));
} else {
  heading('summary');
  for (const result of results) {
    const note = result.error ? ` (could not run: ${result.error.split('\n')[0]})` : '';
    process.stdout.write(`${result.tier.padEnd(5)} ${result.passed} passed, ${result.failed} failed, ${Math.round(result.wallMs / 1000)} s${note}\n`);
    for (const failure of result.failures ?? []) process.stdout.write(`      ✘ ${failure.fullTitle}: ${String(failure.message).split('\n')[0]}\n`);
    const slowest = (result.files ?? []).slice(0, 3).map(({ file, ms }) => `${path.basename(file)} ${Math.round(ms / 1000)} s`);
    if (slowest.length) process.stdout.write(`      slowest: ${slowest.join(', ')}\n`);
  }
  process.stdout.write(`all   ${Math.round((Date.now() - runStarted) / 1000)} s by the clock${lanes.length ? ', in two lanes side by side' : ''}\n`);
  fs.writeFileSync(path.join(reportsDir, 'summary.json'), JSON.stringify({ passed, failed, tiers: results }, null, 2));
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
}
process.exit(failed > 0 ? 1 : 0);
