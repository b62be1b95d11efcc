/**
 * A run's patch as a draft pull request, through the git data API (blobs, a tree, a commit, a
 * branch), and what happens when GitHub will not take it (review ci-2026-12c §9):
 *
 *  - A protected path (patchRules.ts) is left out of the pull request, file by file, and named as
 *    refused; the rest of the result still becomes the pull request.
 *  - Each file keeps its mode on the default branch (an executable script stays executable); a new
 *    file is 100644, since the patch carries no mode (patchRules.ts refuses mode lines). A file that
 *    is a symbolic link or a submodule there is left out: its content is not text to patch.
 *  - When the pull request cannot be made (the repository does not let GitHub Actions create pull
 *    requests, answering 403, or any other failure), the branch already pushed is deleted and an
 *    issue carrying the patch is opened with the workflow's token instead, and the report says
 *    both, so the status comment never claims a pull request that does not exist.
 *  - A pull request opened with the workflow's token starts no workflow (GitHub's rule against
 *    recursive runs); TASKLANE_PR_TOKEN, an App or fine-grained token the repository sets as a
 *    secret, writes the branch and the pull request instead so its CI runs. Without it the pull
 *    request says so.
 */
import { createHash } from 'node:crypto';
import type { ChoreDefinition } from '../core/chores/types';
import type { GithubApi } from './githubApi';
import { cleanProposed, endsWithMarker, marker } from './outputMarkers';
import { MAX_BODY_CHARS, MAX_TITLE_CHARS } from './outputRules';
import { patchEntries, planPatch } from './patchCommit';

export interface DraftPullInput {
  chore: ChoreDefinition;
  /** The proposed title and body, already neutralised for posting. */
  pr: { title: string; body: string };
  patch: string;
  /** `outputs.pullRequest.paths`. */
  declaredPaths: readonly string[];
  /** The workflow's token: reads, and the issue carrying the patch when the pull request cannot be made. */
  api: GithubApi;
  /** TASKLANE_PR_TOKEN's, when the repository set one: writes the branch and the pull request. */
  pullApi?: GithubApi;
  /** The workflow run's page, where the run's artifact (tasklane.patch) is. */
  runUrl?: string;
  /** The apply report's lists (applyOutputs.ts), added to in place. */
  report: { applied: string[]; refused: string[] };
}

/** What a person does when GitHub refuses pull requests from the workflow's token. */
const NOT_PERMITTED_ADVICE =
  '. To let Tasklane open pull requests, turn on "Allow GitHub Actions to create and approve pull requests" (Settings → Actions → General → Workflow permissions), or set a TASKLANE_PR_TOKEN secret (a GitHub App token or a fine-grained token with contents and pull-requests write)';

/** The note a pull request made with the workflow's token carries: nobody waits for CI that will not come. */
const NO_CI_NOTE =
  "Opened with the workflow's token, so GitHub starts no workflow on this pull request: push to it, or close and reopen it, to run CI (a TASKLANE_PR_TOKEN secret makes Tasklane's pull requests start CI).";

export async function draftPull(input: DraftPullInput): Promise<void> {
  const { chore, report } = input;
  const writer = input.pullApi ?? input.api;
  const plan = planPatch(input.patch, input.declaredPaths, 'pullRequest');
  if ('refused' in plan) return void report.refused.push(`pull request: ${plan.refused}`);
  const { kept, leftOut } = plan;
  const title = cleanProposed(input.pr.title).replace(/\s+/g, ' ').slice(0, 200) || `Tasklane: ${chore.name}`;
  let branch: string | undefined;
  let pushed = false;
  try {
    const base = await writer.defaultBranchHead();
    const entries = await patchEntries(writer, base, kept, leftOut, 'the default branch');
    for (const why of leftOut) report.refused.push(`pull request: ${why}; the file is left out of it`);
    if (!entries.length) return;
    const tree = await writer.createTree(base.tree, entries);
    const commit = await writer.createCommit(`${title}\n\nProposed by the Tasklane chore ${chore.id}.`, tree, base.sha);
    branch = `tasklane/${chore.id}/${commit.slice(0, 12)}`;
    await writer.createRef(branch, commit);
    pushed = true;
    const notes = [...(leftOut.length ? [`Left out by Tasklane: ${leftOut.join('; ')}.`] : []), ...(input.pullApi ? [] : [NO_CI_NOTE])];
    const body = [cleanProposed(input.pr.body), ...notes.map((n) => `> ${n}`), marker(chore.id)].filter(Boolean).join('\n\n');
    const number = await writer.createDraftPull({ title, body, head: branch, base: base.branch });
    report.applied.push(`draft pull request #${number} (${entries.map((e) => e.path).join(', ')})`);
  } catch (error) {
    // A refused file was already said once, before the failure or not at all: say it now if not.
    for (const why of leftOut)
      if (!report.refused.some((r) => r.startsWith(`pull request: ${why}`))) report.refused.push(`pull request: ${why}; the file is left out of it`);
    await carryPatchInIssue(input, title, message(error), pushed ? branch : undefined);
  }
}

/**
 * The pull request could not be made: the branch it pushed is deleted and the patch is filed as an
 * issue (once per patch: a re-fire with the same patch finds it by its marker), so the work is not
 * lost and nothing claims a pull request. When the patch is over GitHub's limit for a body, the
 * issue points at the run's artifact instead.
 */
async function carryPatchInIssue(input: DraftPullInput, title: string, why: string, pushedBranch: string | undefined): Promise<void> {
  const { chore, report, api } = input;
  let branchNote = '';
  if (pushedBranch) {
    try {
      await (input.pullApi ?? api).deleteRef(pushedBranch);
      branchNote = `; the branch ${pushedBranch} it pushed was deleted`;
    } catch (error) {
      branchNote = `; the branch ${pushedBranch} it pushed could not be deleted (${message(error)}): delete it by hand`;
    }
  }
  const advice = /not permitted to create or approve pull requests/i.test(why) ? NOT_PERMITTED_ADVICE : '';
  const key = marker(chore.id, `patch=${createHash('sha256').update(input.patch).digest('hex').slice(0, 16)}`);
  const artifact = `tasklane.patch in the artifact tasklane-${chore.id} of the run${input.runUrl ? ` ${input.runUrl}` : ''}`;
  const head = [
    `The Tasklane chore \`${chore.id}\` proposed a change, but the pull request could not be made: ${why}${branchNote}${advice}.`,
    `Proposed title: ${title}`,
    cleanProposed(input.pr.body),
  ]
    .filter(Boolean)
    .join('\n\n');
  const fence = '`'.repeat(Math.max(3, ...[...input.patch.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  const inline = `${head}\n\nApply it with \`git apply\` on the default branch:\n\n${fence}diff\n${input.patch.trimEnd()}\n${fence}`;
  const body = `${inline.length <= MAX_BODY_CHARS ? inline : `${head}\n\nThe patch (${input.patch.length} characters) is over GitHub's limit for an issue: it is ${artifact}.`}\n\n${key}`;
  try {
    const existing = (await api.issues()).find((i) => i.user?.type === 'Bot' && endsWithMarker(i.body, key));
    const number = existing?.number ?? (await api.createIssue(`Tasklane: pull request not opened: ${title}`.slice(0, MAX_TITLE_CHARS), body));
    report.refused.push(`pull request: GitHub refused it (${why})${branchNote}; the patch is in issue #${number} instead${advice}`);
    report.applied.push(existing ? `issue #${number} already carries the patch` : `issue #${number} carrying the patch instead of a pull request`);
  } catch (error) {
    report.refused.push(
      `pull request: GitHub refused it (${why})${branchNote}; the issue carrying the patch was refused too (${message(error)}): it is ${artifact}${advice}`,
    );
  }
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));
