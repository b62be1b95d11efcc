// `npm run bench` runs every group; `npm run bench -- <group>...` runs some (store, engine, ui, ext, history).
// Flags (`--fresh`: rebuild the history fixture) are passed on to every group run.
// Each group is bench/<group>.bench.ts run with tsx; it prints one JSON object per figure on stdout.
// Progress and skip notices go to stderr, so stdout stays machine-readable JSON lines.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const GROUPS = ['store', 'engine', 'ui', 'ext', 'history'];
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

let failures = 0;
for (const group of requested.length ? requested : GROUPS) {
  const file = path.join(benchDir, `${group}.bench.ts`);
  if (!fs.existsSync(file)) {
    process.stderr.write(`[bench] skipping ${group}: bench/${group}.bench.ts does not exist yet\n`);
    continue;
  }
  process.stderr.write(`[bench] ${group}\n`);
  const started = Date.now();
  let nodePath;
  try {
    nodePath = baselinePackages(group);
  } catch (error) {
    failures++;
    process.stderr.write(`[bench] ${group} failed: ${error.message}\n`);
    continue;
  }
  const env = nodePath ? { ...process.env, NODE_PATH: [nodePath, process.env.NODE_PATH].filter(Boolean).join(path.delimiter) } : process.env;
  const run = spawnSync(process.execPath, [tsxCli, file, ...flags], { cwd: repoRoot, stdio: 'inherit', env });
  const why = run.error ? run.error.message : run.status !== 0 ? `exit ${run.status ?? run.signal}` : '';
  if (why) {
    failures++;
    process.stderr.write(`[bench] ${group} failed (${why})\n`);
  } else {
    process.stderr.write(`[bench] ${group} done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
}
process.exit(failures ? 1 : 0);
