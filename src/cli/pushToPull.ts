/**
 * The `pushToPullRequest` output: `/tasklane fix` on a pull request commits the run's patch to that
 * pull request's branch instead of opening a second pull request (review ci-2026-12c §9).
 *
 * Only a branch of this repository: a fork's branch belongs to its author and the workflow's token
 * cannot push to it, so that is refused with the reason (decision: no draft pull request in its
 * place; a maintainer who wants one asks a chore that declares pullRequest). The commit's parent is
 * the head the apply job read, and the branch moves by fast-forward only: a push made meanwhile
 * makes GitHub refuse, and nothing of the author's is overwritten. Files keep their modes on the
 * pull request's head and protected paths are left out as for a draft pull request (patchCommit.ts).
 * As with a pull request, a commit pushed with the workflow's token starts no CI; TASKLANE_PR_TOKEN
 * (draftPull.ts) pushes it when the repository set one.
 */
import type { ChoreDefinition } from '../core/chores/types';
import type { GithubApi } from './githubApi';
import { pushedTrailer } from './fireLoop';
import { cleanProposed } from './outputMarkers';
import { patchEntries, planPatch } from './patchCommit';

export interface PushToPullInput {
  chore: ChoreDefinition;
  /** The proposed commit message. */
  message: string;
  patch: string;
  /** `outputs.pushToPullRequest.paths`. */
  declaredPaths: readonly string[];
  /** The triggering pull request's number. */
  number: number;
  /** The workflow's token: reads the pull request. */
  api: GithubApi;
  /** TASKLANE_PR_TOKEN's, when set: writes the commit and moves the branch, so CI starts. */
  pullApi?: GithubApi;
  report: { applied: string[]; refused: string[] };
}

export async function pushToPull(input: PushToPullInput): Promise<void> {
  const { chore, report, number, api } = input;
  const what = `commit to pull request #${number}`;
  const plan = planPatch(input.patch, input.declaredPaths, 'pushToPullRequest');
  if ('refused' in plan) return void report.refused.push(`${what}: ${plan.refused}`);
  const { kept, leftOut } = plan;
  const writer = input.pullApi ?? api;
  try {
    const pr = await api.pull(number);
    if (pr.state !== 'open') return void report.refused.push(`${what}: the pull request is ${pr.state}; nothing is pushed to a closed pull request`);
    if (pr.head.repo?.full_name !== api.repo)
      return void report.refused.push(
        `${what}: its branch is in ${pr.head.repo ? `the fork ${pr.head.repo.full_name}` : 'a deleted fork'}, which Tasklane does not push to (the branch is its author's); the edits stay in the run's artifact (tasklane.patch)`,
      );
    const head = { sha: pr.head.sha, tree: await writer.commitTree(pr.head.sha) };
    const entries = await patchEntries(writer, head, kept, leftOut, "the pull request's branch");
    for (const why of leftOut) report.refused.push(`${what}: ${why}; the file is left out of it`);
    if (!entries.length) return;
    const subject = cleanProposed(input.message).trim() || `Tasklane: ${chore.name}`;
    const tree = await writer.createTree(head.tree, entries);
    // The trailer keeps the synchronize this push sends from firing a pushing chore again (fireLoop.ts).
    const commit = await writer.createCommit(`${subject}\n\nProposed by the Tasklane chore ${chore.id}.\n\n${pushedTrailer(chore.id)}`, tree, head.sha);
    await writer.updateRef(pr.head.ref, commit);
    const ci = input.pullApi ? '' : "; pushed with the workflow's token, so GitHub starts no CI for it (TASKLANE_PR_TOKEN would)";
    report.applied.push(`commit ${commit.slice(0, 12)} on pull request #${number} (${entries.map((e) => e.path).join(', ')})${ci}`);
  } catch (error) {
    for (const why of leftOut)
      if (!report.refused.some((r) => r.startsWith(`${what}: ${why}`))) report.refused.push(`${what}: ${why}; the file is left out of it`);
    const text = error instanceof Error ? error.message : String(error);
    const moved = /not a fast.forward/i.test(text) ? ': the branch moved on while the run worked; ask again to fix the new head' : '';
    report.refused.push(`${what}: GitHub refused it (${text})${moved}; the edits stay in the run's artifact (tasklane.patch)`);
  }
}
