// `npm run bench` runs every group; `npm run bench -- <group>...` runs some (store, engine, ui, ext, history, tools).
// Flags (`--fresh`: rebuild the history fixture) are passed on to every group run.
// Each group is bench/<group>.bench.ts run with tsx; it prints one JSON object per figure on stdout.
// Progress and skip notices go to stderr, so stdout stays machine-readable JSON lines.
// At the end, every figure is checked against its target (bench/targets.mjs): a table of figure,
// target, noise margin and pass/fail on stderr, and a non-zero exit when a target is missed or a
// group failed.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { checkTargets, formatTable } from './targets.mjs';

const GROUPS = ['store', 'engine', 'ui', 'ext', 'history', 'tools'];
const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(benchDir, '..');
const tsxCli = path.join(repoRoot, 'node_modules/tsx/dist/cli.mjs');
const cacheDir = process.env.TASKLANE_CACHE ?? path.join(repoRoot, '.vscode-test');

/**
 * Packages a group needs only as a baseline to compare against, installed on first use into the
 * git-ignored cache instead of devDependencies: better-sqlite3 compiles from source here (about
 * two minutes), which every `npm ci` of a newcomer or of CI would otherwise pay for.
 */
const BASELINE_PACKAGES = { store: ['better-sqlite3@12.11.1'] };
const baselineDir = path.join(cacheDir, 'bench-baselines');

/** Installs the group's baseline packages once; returns the NODE_PATH entry that finds them. */
function baselinePackages(group) {
  const wanted = BASELINE_PACKAGES[group] ?? [];
  const modules = path.join(baselineDir, 'node_modules');
  const missing = wanted.filter((spec) => !fs.existsSync(path.join(modules, spec.slice(0, spec.lastIndexOf('@')), 'package.json')));
  if (missing.length) {
    process.stderr.write(`[bench] installing ${missing.join(', ')} into ${baselineDir} (once; a baseline, not a dependency)\n`);
    // npm's own config variables of the outer `npm run bench` would be read back by the nested install.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
    const run = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', baselineDir, ...missing], { stdio: 'inherit', env });
    if (run.status !== 0) throw new Error(`installing ${missing.join(', ')} failed (exit ${run.status ?? run.signal})`);
  }
  return wanted.length ? modules : undefined;
}

const requested = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const unknown = requested.filter((g) => !GROUPS.includes(g));
if (unknown.length) {
  process.stderr.write(`unknown bench group(s): ${unknown.join(', ')}; use one of ${GROUPS.join(', ')} (e.g. npm run bench -- ext)\n`);
  process.exit(2);
}

/** Runs one group, passing its JSON lines through to stdout; resolves with the figures and why it failed ('' when it did not). */
function runGroup(file, env) {
  return new Promise((resolve) => {
    const figures = [];
    const child = spawn(process.execPath, [tsxCli, file, ...flags], { cwd: repoRoot, stdio: ['inherit', 'pipe', 'inherit'], env });
    createInterface({ input: child.stdout }).on('line', (line) => {
      process.stdout.write(`${line}\n`);
      try {
        figures.push(JSON.parse(line));
      } catch {
        // Not a figure (a stray print); passed through as it is.
      }
    });
    child.on('error', (error) => resolve({ figures, why: error.message }));
    child.on('close', (code, signal) => resolve({ figures, why: code === 0 ? '' : `exit ${code ?? signal}` }));
  });
}

const groups = requested.length ? requested : GROUPS;

/**
 * The groups that run the extension in a real workbench (ui, and history's sidebar figure) or
 * measure its bundle (ext) get what `npm test` gives its workbench tiers first: VS Code and
 * Chromium provisioned (quick when they are) and dist/ built from these sources (skipped when it
 * is), so `npm run bench` works from a fresh clone and never measures a stale build.
 */
if (groups.some((g) => ['ui', 'ext', 'history'].includes(g))) {
  for (const [what, command, args] of [
    ['provisioning', 'bash', [path.join(repoRoot, 'scripts/provision.sh')]],
    ['building', process.execPath, [path.join(repoRoot, 'esbuild.js'), '--production', '--if-stale']],
  ]) {
    // Their progress goes to stderr: stdout stays the figures' JSON lines.
    const run = spawnSync(command, args, { cwd: repoRoot, stdio: ['ignore', process.stderr, 'inherit'] });
    if (run.status !== 0) {
      process.stderr.write(`[bench] ${what} failed (exit ${run.status ?? run.signal}): the ui, ext and history groups need it\n`);
      process.exit(1);
    }
  }
}

/** The 1, 5 and 15-minute load averages, as `uptime` prints them. */
const loadAverage = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

/** The share of all cores busy over `ms` (Linux /proc/stat); undefined elsewhere. */
async function busyShare(ms) {
  const sample = () => {
    const [, ...times] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const idle = times[3] + (times[4] ?? 0);
    return { idle, total: times.reduce((a, b) => a + b, 0) };
  };
  if (!fs.existsSync('/proc/stat')) return undefined;
  const before = sample();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = sample();
  const total = after.total - before.total;
  return total > 0 ? 1 - (after.idle - before.idle) / total : 0;
}

/**
 * Waits (at most QUIET_WAIT_MS) until less than half the machine is busy before a group measures:
 * the provisioning and build above, or a test run just before, leave compilers and workbench
 * processes finishing for a while, and a figure taken then measures them. Other work on the
 * machine that does not stop is measured as it is; the load average is printed with the table.
 */
const QUIET_WAIT_MS = 120_000;
async function waitForQuiet(group) {
  const started = Date.now();
  for (;;) {
    const busy = await busyShare(2_000);
    if (busy === undefined || busy < 0.5) return;
    if (Date.now() - started > QUIET_WAIT_MS) {
      process.stderr.write(`[bench] ${group}: the machine is still ${Math.round(busy * 100)} % busy after ${QUIET_WAIT_MS / 1000} s; measuring anyway\n`);
      return;
    }
  }
}

const figures = [];
const ran = [];
let failures = 0;
for (const group of groups) {
  const file = path.join(benchDir, `${group}.bench.ts`);
  if (!fs.existsSync(file)) {
    process.stderr.write(`[bench] skipping ${group}: bench/${group}.bench.ts does not exist yet\n`);
    continue;
  }
  // The baseline packages first: better-sqlite3 compiles from source, and the settling waits for that too.
  let nodePath;
  try {
    nodePath = baselinePackages(group);
  } catch (error) {
    failures++;
    process.stderr.write(`[bench] ${group} failed: ${error.message}\n`);
    continue;
  }
  await waitForQuiet(group);
  process.stderr.write(`[bench] ${group} (load average ${loadAverage()})\n`);
  const started = Date.now();
  const env = nodePath ? { ...process.env, NODE_PATH: [nodePath, process.env.NODE_PATH].filter(Boolean).join(path.delimiter) } : process.env;
  const run = await runGroup(file, env);
  figures.push(...run.figures);
  ran.push(group);
  if (run.why) {
    failures++;
    process.stderr.write(`[bench] ${group} failed (${run.why})\n`);
  } else {
    process.stderr.write(`[bench] ${group} done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
}
const { rows, failed } = checkTargets(figures, ran);
process.stderr.write(`\n${formatTable(rows)}\n\n`);
const skipped = rows.filter((r) => r.skipped).length;
process.stderr.write(
  `[bench] ${rows.length - failed - skipped} of ${rows.length} targets met, ${failed} missed, ${skipped} skipped; ${failures} group(s) failed; load average ${loadAverage()}\n`,
);
process.exit(failures || failed ? 1 : 0);
