/**
 * The repository's history, read-only, in the `read` set: status, a diff (uncommitted, or one
 * commit's), the log of a path, the blame of a line range. One action with a `what`, not four: the
 * four would repeat their schemas in every task request. git runs through `GitReader`
 * (`src/core/git/readOnlyGit.ts`: fixed argv, nothing the repository configures runs); every path
 * the model names passes the same guard as reads, and git's paths follow `--` literally.
 *
 * Withdrawn in Restricted Mode, as VS Code's own git is: an untrusted folder's repository is not run.
 */
import * as nodePath from 'node:path';
import * as z from 'zod/v4';
import type { GitReader } from '../git/readOnlyGit';
import type { WorkspacePort } from '../ports';
import { ACTION_SETS } from './actionSets';
import { defineAction } from './types';
import type { ActionDef } from './types';

/** What one answer may add to the prompt. */
const MAX_CHARS = 12_000;
/** Commits one log shows (the newest; give commit to go further back). */
const LOG_COUNT = 30;
/** Lines one blame may cover. */
const MAX_BLAME_LINES = 200;

/** The workspace-relative pathspec for `path` (`.`: the whole folder), through the read guard. */
async function pathspec(workspace: WorkspacePort, path: string | undefined): Promise<string> {
  if (path === undefined || path.trim() === '' || path === '.') return '.';
  if (workspace.resolvePath) return workspace.resolvePath(path);
  const normal = nodePath.posix.normalize(path.replace(/\\/g, '/'));
  if (normal.startsWith('..') || nodePath.posix.isAbsolute(normal) || /^[a-zA-Z]:/.test(normal)) {
    throw new Error(`${path} is outside the workspace; give a path relative to the workspace root.`);
  }
  return normal;
}

function bounded({ text, truncated }: { text: string; truncated: boolean }, empty: string, narrow: string): string {
  const body = text.trimEnd();
  if (!body) return empty;
  if (body.length > MAX_CHARS || truncated) return `${body.slice(0, MAX_CHARS)}\n[truncated; ${narrow}]`;
  return body;
}

/** The git action over a reader of the workspace's repository; `trusted` is Workspace Trust. */
export function gitActions(git: GitReader, trusted: () => boolean): ActionDef[] {
  const readGit = defineAction({
    name: 'read_git',
    description: 'Read git: status; diff (uncommitted, or a commit); log (of path if given); blame (path, lines "10-40").',
    input: z.object({
      what: z.enum(['status', 'diff', 'log', 'blame']),
      path: z.string().optional(),
      commit: z.string().optional(),
      lines: z.string().optional(),
    }),
    actionSets: [ACTION_SETS.read],
    parallelizable: true,
    irreversible: false,
    approval: 'never',
    available: trusted,
    async run(input, ctx) {
      if (!trusted()) throw new Error('git is not read in Restricted Mode (the folder is not trusted); read files instead.');
      const path = await pathspec(ctx.workspace, input.path);
      switch (input.what) {
        case 'status':
          return bounded(
            await git.run(['status', '--short', '--branch', '--untracked-files=normal', '--ignore-submodules=all', '--', path]),
            'nothing to report',
            'give a path',
          );
        case 'diff': {
          const noise = ['--no-ext-diff', '--no-textconv', '--no-color', '--relative'];
          if (input.commit) {
            const id = await git.commit(input.commit);
            const format = '--format=commit %H%nAuthor: %an <%ae>%nDate: %ad%n%n%B';
            return bounded(
              await git.run(['show', ...noise, '--no-show-signature', format, id, '--', path]),
              `commit ${id} changed nothing under ${path}`,
              'give a path',
            );
          }
          const head = await git.commit('HEAD').catch(() => undefined);
          // Staged and unstaged changes against the last commit (or, before the first, what is staged).
          const args = head ? ['diff', ...noise, head, '--', path] : ['diff', ...noise, '--cached', '--', path];
          return bounded(await git.run(args), 'no uncommitted changes (new untracked files show in status)', 'give a path');
        }
        case 'log': {
          const args = ['log', '--no-show-signature', '--no-color', '--date=short', '--format=%h %ad %an: %s', `--max-count=${LOG_COUNT}`];
          if (input.commit) args.push(await git.commit(input.commit));
          return bounded(await git.run([...args, '--', path]), `no commits touch ${path}`, 'give a path or an older commit');
        }
        case 'blame': {
          if (path === '.') throw new Error('blame needs a file: give path and lines, e.g. "10-40".');
          const range = /^\s*(\d+)\s*(?:[-,:]\s*(\d+))?\s*$/.exec(input.lines ?? '1');
          if (!range) throw new Error(`lines ${input.lines} is not a range; give it as "10-40".`);
          const start = Math.max(1, Number(range[1]));
          const end = Math.min(range[2] ? Number(range[2]) : start, start + MAX_BLAME_LINES - 1);
          if (end < start) throw new Error(`lines ${input.lines} ends before it starts; give it as "10-40".`);
          const args = ['blame', '--no-textconv', '--date=short', `-L${start},${end}`];
          if (input.commit) args.push(await git.commit(input.commit));
          return bounded(await git.run([...args, '--', path]), `no lines ${start}-${end} in ${path}`, 'ask for fewer lines');
        }
      }
    },
  });
  return [readGit];
}
