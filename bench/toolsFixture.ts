/**
 * The tools benchmark's workspace: real code no one here wrote, built from the sources of the
 * installed packages (node_modules), cached under .vscode-test/ (`--fresh` rebuilds it):
 * - `vendor/typescript-<n>/lib`: copies of TypeScript's compiler (large bundled files, among them
 *   a 9 MB `typescript.js` with very long lines);
 * - `packages/<name>/...`: installed packages, their own nested node_modules left out, until the
 *   tree holds at least MIN_FILES files;
 * - `generated/`: files a root `.gitignore` hides, holding the rare word too (a search that
 *   returned one of them would not honour the ignore file);
 * - one file eight folders deep holding the rare word (the hit the old walk never reached).
 * Files are copied, not hard-linked: the read guard refuses hard links outside node_modules.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { progressFor } from './support';

/** Files the tree holds at least. */
export const MIN_FILES = Number(process.env.TOOLS_BENCH_FILES ?? 22_000);
/** In one file only (besides the ignored folder). */
export const RARE_WORD = 'tasklaneDeepNeedleQx';
export const DEEP_FILE = 'src/a/b/c/d/e/f/g/h/deep.ts';
export const IGNORED_DIR = 'generated';
const TYPESCRIPT_COPIES = 3;
const GENERATED_FILES = 2_000;
/** Bumped when what is built changes. */
const VERSION = 2;

const repoRoot = path.resolve(__dirname, '..');
const progress = progressFor('tools');

function countFiles(dir: string): number {
  let n = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) n += 1;
  return n;
}

/** Copies a package's files, leaving its nested node_modules out; returns how many files it copied. */
function copyPackage(from: string, to: string): number {
  let n = 0;
  fs.cpSync(from, to, {
    recursive: true,
    dereference: false,
    filter: (src) => {
      if (path.basename(src) === 'node_modules' && src !== from) return false;
      const stats = fs.lstatSync(src);
      if (stats.isSymbolicLink()) return false;
      if (stats.isFile()) n += 1;
      return true;
    },
  });
  return n;
}

/** The fixture's folder, built if missing (or when `fresh`). */
export function ensureToolsFixture(fresh: boolean): { dir: string; files: number } {
  const cache = process.env.TASKLANE_CACHE ?? path.join(repoRoot, '.vscode-test');
  const dir = path.join(cache, `bench-tools-v${VERSION}-${MIN_FILES}`);
  const done = path.join(dir, '.built');
  if (!fresh && fs.existsSync(done)) return { dir, files: Number(fs.readFileSync(done, 'utf8')) };
  fs.rmSync(dir, { recursive: true, force: true });
  progress(`building the workspace in ${dir} (once)`);
  const modules = path.join(repoRoot, 'node_modules');
  let files = 0;
  for (let i = 1; i <= TYPESCRIPT_COPIES; i += 1) files += copyPackage(path.join(modules, 'typescript/lib'), path.join(dir, `vendor/typescript-${i}/lib`));
  const packages = fs
    .readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? fs.readdirSync(path.join(modules, name)).map((sub) => `${name}/${sub}`) : [name]))
    .sort();
  for (const name of packages) {
    if (files >= MIN_FILES) break;
    files += copyPackage(path.join(modules, name), path.join(dir, 'packages', name));
  }
  if (files < MIN_FILES) throw new Error(`node_modules holds only ${files} files; the benchmark wants ${MIN_FILES} (set TOOLS_BENCH_FILES lower)`);
  fs.mkdirSync(path.join(dir, IGNORED_DIR), { recursive: true });
  for (let i = 0; i < GENERATED_FILES; i += 1) {
    fs.writeFileSync(path.join(dir, IGNORED_DIR, `gen${i}.ts`), `export function generated${i}() { return '${RARE_WORD}'; }\n`);
  }
  fs.writeFileSync(path.join(dir, '.gitignore'), `${IGNORED_DIR}/\n`);
  fs.mkdirSync(path.dirname(path.join(dir, DEEP_FILE)), { recursive: true });
  fs.writeFileSync(path.join(dir, DEEP_FILE), `// deep in the tree\nexport const ${RARE_WORD} = 42;\n`);
  files = countFiles(dir);
  fs.writeFileSync(done, String(files));
  return { dir, files };
}
