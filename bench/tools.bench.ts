// Tools benchmark: the agent's read actions on real code no one here wrote (bench/toolsFixture.ts,
// 20,000+ files with a .gitignore'd folder), each against ripgrep run by hand on the same tree in
// the same run, samples taken round-robin so both see the same machine load. One JSON line each:
// - tools.search_text (per query: rare and common, literal and regex): the search_text action as a
//   model calls it (default limit and context, through the read guard) against `rg` printing every
//   match; median of ROUNDS, ratio = ours / rg's.
// - tools.search_hits (per query): the same search with no limit against rg's matches, compared
//   as sets of path:line (`value` = how many differ; 0 is the target).
// - tools.find_files, tools.list_files: the actions (a glob; a recursive listing of the whole
//   tree, `limit` 200 as a model gets by default and 1000, the most it can ask) against `rg --files`.
// - tools.deep_hit: the rare word's one file, eight folders deep, is what search_text returns (1).
// - tools.ignored_hits: results from the .gitignore'd folder in every answer above (0).
// Ripgrep is the one on the PATH (VS Code's own copy in the editor); both sides get the same walk
// flags (dot files searched, .git and node_modules left out, .gitignore honoured without a repo).
import { spawn } from 'node:child_process';
import { findFiles, listFiles, searchText } from '../src/core/actions/readActions';
import type { ActionContext, ActionDef } from '../src/core/actions/types';
import { FsWorkspace } from '../src/core/approval/paths/fsWorkspace';
import { guardReads } from '../src/core/approval/paths/guardedWorkspace';
import { nodeFs } from '../src/core/approval/paths/nodeFs';
import { findRipgrepOnPath } from '../src/core/approval/paths/ripgrep';
import { silentLogger } from '../src/core/ports';
import { emitLine, median, progressFor, round } from './support';
import { DEEP_FILE, ensureToolsFixture, IGNORED_DIR, RARE_WORD } from './toolsFixture';

const ROUNDS = Number(process.env.TOOLS_BENCH_ROUNDS ?? 7);
const progress = progressFor('tools');
const WALK = ['--no-config', '--hidden', '--no-require-git', '-g', '!.git', '-g', '!**/node_modules'];

const QUERIES: Array<{ kind: string; query: string; isRegex: boolean }> = [
  { kind: 'rare literal', query: RARE_WORD, isRegex: false },
  { kind: 'common literal', query: 'function', isRegex: false },
  { kind: 'rare regex', query: 'tasklaneDeep\\w+Qx', isRegex: true },
  { kind: 'common regex', query: 'export (const|function) \\w+', isRegex: true },
];

/** Runs rg to the end; resolves with its standard output. */
function rg(program: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 || code === 1 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`rg exited ${code}`))));
  });
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Medians of `ours` and `theirs`, sampled alternately ROUNDS times after one warm-up each. */
async function compare(ours: () => Promise<unknown>, theirs: () => Promise<unknown>): Promise<{ value: number; baseline: number; ratio: number }> {
  await ours();
  await theirs();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    a.push(await timed(ours));
    b.push(await timed(theirs));
  }
  const value = median(a);
  const baseline = median(b);
  return { value: round(value, 2), baseline: round(baseline, 2), ratio: round(value / baseline, 2) };
}

async function main(): Promise<void> {
  const program = await findRipgrepOnPath();
  if (!program) throw new Error('no rg on the PATH: install ripgrep (Debian: apt-get install ripgrep; scripts/provision.sh does)');
  const { dir, files } = ensureToolsFixture(process.argv.includes('--fresh'));
  progress(`${files} files in ${dir}`);
  const workspace = guardReads(new FsWorkspace(dir, nodeFs, { ripgrep: program }), dir, nodeFs);
  const ctx = { workspace, logger: silentLogger } as unknown as ActionContext;
  const act = (action: ActionDef, input: unknown) => action.run(action.input.parse(input), ctx) as Promise<string>;
  let ignoredHits = 0;
  const watch = (out: string) => {
    ignoredHits += out.split('\n').filter((line) => line.startsWith(`${IGNORED_DIR}/`)).length;
    return out;
  };

  for (const q of QUERIES) {
    const args = [...WALK, '-n', ...(q.isRegex ? [] : ['-F']), '-e', q.query, '.'];
    const figure = await compare(
      async () => watch(await act(searchText, { query: q.query, isRegex: q.isRegex })),
      () => rg(program, args, dir),
    );
    emitLine({ name: 'tools.search_text', kind: q.kind, query: q.query, files, ...figure, unit: 'ms', rounds: ROUNDS });

    // Same hits: ours without a limit against every match rg prints.
    const all = await workspace.searchText(q.query, { isRegex: q.isRegex, limit: 10_000_000, context: 0 });
    ignoredHits += all.hits.filter((h) => h.path.startsWith(`${IGNORED_DIR}/`)).length;
    const ours = new Set(all.hits.map((h) => `${h.path}:${h.line}`));
    const theirs = new Set(
      (await rg(program, [...WALK, '-n', '--null', ...(q.isRegex ? [] : ['-F']), '-e', q.query, '.'], dir))
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [file, rest] = line.split('\0');
          return `${file.replace(/^\.\//, '')}:${/^\d+/.exec(rest)?.[0]}`;
        }),
    );
    const differ = [...ours].filter((h) => !theirs.has(h)).length + [...theirs].filter((h) => !ours.has(h)).length;
    emitLine({ name: 'tools.search_hits', kind: q.kind, query: q.query, value: differ, unit: 'differing hits', hits: theirs.size, complete: all.complete });
  }

  const deep = await act(searchText, { query: RARE_WORD });
  emitLine({ name: 'tools.deep_hit', value: deep.startsWith(`${DEEP_FILE}\n`) ? 1 : 0, unit: 'found', file: DEEP_FILE });

  const files1 = [...WALK, '--files', '.'];
  const found = await compare(
    async () => watch(await act(findFiles, { glob: '**/*.d.ts', limit: 100 })),
    () => rg(program, files1, dir),
  );
  emitLine({ name: 'tools.find_files', glob: '**/*.d.ts', files, ...found, unit: 'ms', rounds: ROUNDS });
  // At the action's default limit (what a model gets unless it asks for more), and at its maximum,
  // where the read guard checks five times as many entries.
  for (const limit of [200, 1000]) {
    const listed = await compare(
      async () => watch(await act(listFiles, { dir: '.', recursive: true, limit })),
      () => rg(program, files1, dir),
    );
    emitLine({ name: 'tools.list_files', limit, files, ...listed, unit: 'ms', rounds: ROUNDS });
  }
  emitLine({ name: 'tools.ignored_hits', value: ignoredHits, unit: 'results', folder: IGNORED_DIR });
}

main().catch((error: unknown) => {
  process.stderr.write(`[tools] failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
