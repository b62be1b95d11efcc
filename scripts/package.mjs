// `npm run package`: the .vsix the Marketplace and Open VSX list, or a failure.
//   node scripts/package.mjs [--out <file.vsix>]     default: dist-vsix/tasklane.vsix
// vsce builds first (`vscode:prepublish`: esbuild when a source changed, then the icon), packages
// what .vscodeignore lets through, and takes the listing's README from docs/marketplace/README.md
// (the repository's README.md is for people who develop Tasklane). A warning from vsce fails the
// step: a listing with a warning is a listing someone will have to fix later, and vsce asks
// "continue? [y/N]" on some of them, which a script answers with no.
// vsce runs in a copy of the checkout without its caches (.git, node_modules, the test workbench in
// .vscode-test): it lists every file under its folder and matches each against every .vscodeignore
// line, compiling the pattern anew each time, and the test workbench alone is some 28,000 files,
// which took it 25 s of CPU; the copy is about 1,200 files. node_modules is linked in for the
// prepublish script's esbuild and resvg (vsce's --no-dependencies packages none of it).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The README a person who installs Tasklane reads (the Marketplace's and Open VSX's details page). */
const PACKAGED_README = 'docs/marketplace/README.md';

const at = process.argv.indexOf('--out');
const out = path.resolve(root, at > 0 ? process.argv[at + 1] : 'dist-vsix/tasklane.vsix');
fs.mkdirSync(path.dirname(out), { recursive: true });

/** Top-level folders vsce never packages and that hold most of a working tree's files. */
const NOT_STAGED = new Set(['.git', 'node_modules', '.vscode-test', 'dist-vsix']);
const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-package-'));
process.on('exit', () => fs.rmSync(stage, { recursive: true, force: true }));
fs.cpSync(root, stage, { recursive: true, filter: (from) => !NOT_STAGED.has(path.relative(root, from).split(path.sep)[0]) });
fs.symlinkSync(path.join(root, 'node_modules'), path.join(stage, 'node_modules'), 'dir');

const vsce = path.join(root, 'node_modules/@vscode/vsce/vsce');
const run = spawnSync(
  process.execPath,
  [vsce, 'package', '--no-dependencies', '--readme-path', PACKAGED_README, '--changelog-path', 'CHANGELOG.md', '--out', out],
  { cwd: stage, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 * 1024 * 1024 },
);
process.stdout.write(run.stdout ?? '');
process.stderr.write(run.stderr ?? '');
if (run.error) {
  process.stderr.write(`package: vsce could not start: ${run.error.message}\n`);
  process.exit(1);
}
if (run.status !== 0) {
  process.stderr.write(`package: vsce exited with ${run.status ?? run.signal}\n`);
  process.exit(run.status || 1);
}
const warnings = `${run.stdout}\n${run.stderr}`.split('\n').filter((line) => /\bWARNING\b/.test(line));
if (warnings.length) {
  process.stderr.write(`package: vsce warned (${warnings.length}); fix the manifest or the files rather than ship a warning:\n${warnings.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`package: ${path.relative(root, out)} (${(fs.statSync(out).size / 1024 / 1024).toFixed(2)} MB), no warnings\n`);
