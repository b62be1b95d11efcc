// `npm run bench` runs every group; `npm run bench -- <group>...` runs some (store, engine, ui, ext, history).
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

const requested = process.argv.slice(2).filter((a) => !a.startsWith('--'));
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
  const run = spawnSync(process.execPath, [tsxCli, file], { cwd: repoRoot, stdio: 'inherit' });
  const why = run.error ? run.error.message : run.status !== 0 ? `exit ${run.status ?? run.signal}` : '';
  if (why) {
    failures++;
    process.stderr.write(`[bench] ${group} failed (${why})\n`);
  } else {
    process.stderr.write(`[bench] ${group} done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
}
process.exit(failures ? 1 : 0);
