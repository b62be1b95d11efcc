/**
 * The apply step (`tasklane chores apply --from DIR`): the only part of a CI fire that writes to
 * GitHub. It trusts nothing the agent job produced: the chore comes from the committed
 * chores.yaml (and must hash as the run's did), the target from the event file, the gate and the
 * taint are checked again, and each proposed output is held against the chore's `outputs:`
 * (per-kind maximum, label allowlist, target = the triggering item, patch path rules). Every
 * written text carries a hidden marker, so comments update in place, issues are not filed twice
 * and Tasklane never fires on its own writes. Nothing here merges or approves.
 */
import { createHash } from 'node:crypto';
import { DEFAULT_ACTOR_GATE } from '../core/chores/githubTypes';
import type { ChoreOutputs } from '../core/chores/githubTypes';
import type { ChoreDefinition } from '../core/chores/types';
import { checkActorGate } from './actorGate';
import type { GithubApi } from './githubApi';
import { eventItem, selfTriggered } from '../core/chores/githubEvent';
import type { GithubEvent } from '../core/chores/githubEvent';
import { draftPull } from './draftPull';
import { pushToPull } from './pushToPull';
import { cleanProposed as clean, endsWithMarker, marker } from './outputMarkers';
import { maxProposedChars } from './resultManifest';
import type { ResultManifest } from './resultManifest';
import { fitText, neutralise } from './outputRules';
import { untaintedKinds } from '../core/chores/githubFire';

export interface ApplyInput {
  manifest: ResultManifest;
  patch: string | undefined;
  /** The committed chore of that id (undefined: not in chores.yaml). */
  chore: ChoreDefinition | undefined;
  /** Its definition hash (skill bodies included), to compare with the one the run wrote. */
  committedHash: string | undefined;
  /** The event, read by this step itself; undefined when none was given. */
  event: GithubEvent | undefined;
  api: GithubApi;
  /** TASKLANE_PR_TOKEN's API, when the repository set that secret: it writes the pull request (draftPull.ts). */
  pullApi?: GithubApi;
  /** The workflow run's page (where its artifact is), when known. */
  runUrl?: string;
}

/** What was applied and refused, one line each, for the output and the check run. */
export interface ApplyReport {
  applied: string[];
  refused: string[];
  /** Outputs the run proposed at all (0: "produced nothing"). */
  proposed: number;
  /** The result as a whole was refused (it does not match the committed chore, the event or the gate): never neutral. */
  rejected?: boolean;
  /** The run edited files but proposed no pull request: its patch stays in the run's artifact only. */
  patchKept?: boolean;
}

/** Proposed Markdown as it may be posted for this event: cut to fit, mentions, links and images neutralised. */
export function safeText(event: GithubEvent): (text: string) => string {
  const p = event.payload as Record<string, { login?: unknown; user?: { login?: unknown } } | undefined>;
  const allowed = [p.sender?.login, p.issue?.user?.login, p.pull_request?.user?.login].filter((l): l is string => typeof l === 'string');
  return (text) => neutralise(fitText(text, maxProposedChars), { allowed });
}

export async function applyOutputs(input: ApplyInput): Promise<ApplyReport> {
  const { manifest, api } = input;
  let out = manifest.outputs;
  const report: ApplyReport = { applied: [], refused: [], proposed: 0 };
  report.proposed =
    out.labels.length + (out.comment ? 1 : 0) + out.issues.length + (out.review ? 1 : 0) + (out.pullRequest ? 1 : 0) + (out.pushToPullRequest ? 1 : 0);
  if (report.proposed === 0 || manifest.status === 'skipped') {
    // Edits with no pull request to carry them: said so on the check run, not "produced nothing".
    if (manifest.status === 'succeeded' && input.patch?.trim()) report.patchKept = true;
    return report;
  }
  const refuseAll = (why: string) => {
    report.refused.push(`every proposed output (${report.proposed}): ${why}`);
    report.rejected = true;
    return report;
  };
  // A run that did not succeed (successWhen not met, out of budget, failed) proposes nothing anyone reviewed as done.
  if (manifest.status !== 'succeeded') return refuseAll(`the run ended ${manifest.status}, not succeeded`);
  const chore = input.chore;
  if (!chore) return refuseAll(`the chore ${manifest.choreId} is not a valid chore in the committed chores.yaml`);
  if (input.committedHash !== manifest.definitionHash) return refuseAll('the run used a chore definition that differs from the committed one');
  if (!input.event) return refuseAll('no event file to confirm the triggering item (set GITHUB_EVENT_PATH or pass --event)');
  const own = selfTriggered(input.event);
  if (own) return refuseAll(`Tasklane's own event: ${own}`);
  const item = eventItem(input.event, api.repo);
  if (item.repo !== api.repo) return refuseAll(`the event is about ${item.repo}, not ${api.repo}`);
  if (manifest.item && (manifest.item.repo !== item.repo || manifest.item.number !== item.number))
    return refuseAll(`the result targets ${manifest.item.repo}#${String(manifest.item.number)}, not the triggering item ${item.repo}#${String(item.number)}`);
  const gate = await checkActorGate(chore.actors ?? DEFAULT_ACTOR_GATE, input.event, api);
  if (!gate.allowed) return refuseAll(gate.reason);
  // What is posted mentions only the asker and the item's author, links and shows images on GitHub
  // only, and fits GitHub's limits (outputRules.ts); the manifest is not trusted to have done so.
  const safe = safeText(input.event);
  out = {
    ...out,
    comment: out.comment === null ? null : safe(out.comment),
    review: out.review === null ? null : safe(out.review),
    issues: out.issues.map((i) => ({ title: i.title, body: safe(i.body) })),
    pullRequest: out.pullRequest && { title: out.pullRequest.title, body: safe(out.pullRequest.body) },
    pushToPullRequest: out.pushToPullRequest && { message: safe(out.pushToPullRequest.message) },
  };
  const tainted = manifest.tainted || gate.tainted;
  const declared: ChoreOutputs = tainted ? untaintedKinds(chore.outputs ?? {}) : (chore.outputs ?? {});
  const notDeclared = (kind: string) =>
    tainted && ['issue', 'review', 'pullRequest', 'pushToPullRequest'].includes(kind)
      ? `the fire is tainted (${manifest.taintReasons[0] ?? gate.taintReasons[0] ?? 'asked for by a role outside actors.trustedRoles'}), so only labels and a comment may be written`
      : `the chore's outputs: do not declare ${kind}`;
  const attempt = async (what: string, write: () => Promise<string>) => {
    try {
      report.applied.push(await write());
    } catch (error) {
      report.refused.push(`${what}: GitHub refused it (${error instanceof Error ? error.message : String(error)})`);
    }
  };

  if (out.labels.length) {
    const spec = declared.labels;
    if (!spec) report.refused.push(`labels ${out.labels.join(', ')}: ${notDeclared('labels')}`);
    else if (item.number === null) report.refused.push('labels: the event has no issue or pull request to label');
    else {
      const wanted = [...new Set(out.labels)];
      const allowed = wanted.filter((l) => spec.allowed.includes(l));
      for (const l of wanted.filter((l) => !spec.allowed.includes(l))) report.refused.push(`label "${l.slice(0, 60)}": not in outputs.labels.allowed`);
      for (const l of allowed.slice(spec.max)) report.refused.push(`label "${l}": over outputs.labels.max ${spec.max}`);
      const take = allowed.slice(0, spec.max);
      if (take.length)
        await attempt(`labels ${take.join(', ')}`, async () => (await api.addLabels(item.number!, take), `labels ${take.join(', ')} on #${item.number}`));
    }
  }
  if (out.issues.length) {
    const spec = declared.issue;
    if (!spec) report.refused.push(`${out.issues.length} issue(s): ${notDeclared('issue')}`);
    else {
      for (const extra of out.issues.slice(spec.max)) report.refused.push(`issue "${extra.title.slice(0, 60)}": over outputs.issue.max ${spec.max}`);
      const take = out.issues.slice(0, spec.max);
      if (take.length) {
        await attempt('issues', async () => {
          const existing = await api.issues();
          const done: string[] = [];
          for (const issue of take) {
            const key = marker(chore.id, `issue=${createHash('sha256').update(issue.title.trim().toLowerCase()).digest('hex').slice(0, 16)}`);
            // A person's issue carrying the marker does not stand in for Tasklane's (it could hide a report).
            const found = existing.find((i) => i.user?.type === 'Bot' && endsWithMarker(i.body, key));
            if (found) done.push(`issue "${issue.title.slice(0, 60)}" already filed as #${found.number}`);
            else done.push(`issue #${await api.createIssue(clean(issue.title) || 'Tasklane', `${clean(issue.body)}\n\n${key}`)} "${issue.title.slice(0, 60)}"`);
          }
          return done.join('; ');
        });
      }
    }
  }
  if (out.review) {
    if (!declared.review) report.refused.push(`review: ${notDeclared('review')}`);
    else if (item.kind !== 'pull_request' || item.number === null) report.refused.push('review: the triggering item is not a pull request');
    else
      await attempt(
        'review',
        async () => (await api.createReview(item.number!, `${clean(out.review!)}\n\n${marker(chore.id)}`), `review comment on #${item.number}`),
      );
  }
  if (out.pullRequest) {
    if (!declared.pullRequest) report.refused.push(`pull request: ${notDeclared('pullRequest')}`);
    else if (!input.patch?.trim()) report.refused.push('pull request: the run edited no file (no tasklane.patch)');
    else
      await draftPull({
        chore,
        pr: out.pullRequest,
        patch: input.patch,
        declaredPaths: declared.pullRequest.paths ?? [],
        api,
        ...(input.pullApi ? { pullApi: input.pullApi } : {}),
        ...(input.runUrl ? { runUrl: input.runUrl } : {}),
        report,
      });
  }
  if (out.pushToPullRequest) {
    const what = 'commit to the pull request';
    if (!declared.pushToPullRequest) report.refused.push(`${what}: ${notDeclared('pushToPullRequest')}`);
    else if (item.kind !== 'pull_request' || item.number === null) report.refused.push(`${what}: the triggering item is not a pull request`);
    else if (!input.patch?.trim()) report.refused.push(`${what}: the run edited no file (no tasklane.patch)`);
    else
      await pushToPull({
        chore,
        message: out.pushToPullRequest.message,
        patch: input.patch,
        declaredPaths: declared.pushToPullRequest.paths ?? [],
        number: item.number,
        api,
        ...(input.pullApi ? { pullApi: input.pullApi } : {}),
        report,
      });
  }
  // The comment goes last, so it can say what was not written (it may mention a pull request).
  if (out.comment) await applyComment(out.comment, declared, item.number, chore.id, api, report, notDeclared('comment'), safe);
  return report;
}

/**
 * The sticky comment on the triggering item, written after every other output: when one was
 * refused the comment says so under the model's text, so nobody reads a claim ("I opened a pull
 * request") that did not happen without the correction beside it.
 */
async function applyComment(
  text: string,
  declared: ChoreOutputs,
  number: number | null,
  choreId: string,
  api: GithubApi,
  report: ApplyReport,
  notDeclared: string,
  safe: (text: string) => string,
): Promise<void> {
  if (!declared.comment) return void report.refused.push(`comment: ${notDeclared}`);
  if (number === null) return void report.refused.push('comment: the event has no issue or pull request to comment on');
  const refused = report.refused.length
    ? `\n\n---\n**Not written by Tasklane:** ${safe(report.refused.map((r) => clean(r).replace(/\s+/g, ' ')).join('; '))}`
    : '';
  const body = `${clean(text)}${refused}\n\n${marker(choreId)}`;
  try {
    // Only a bot's comment is Tasklane's: a person can paste the marker, and must not get their comment overwritten.
    const existing = (await api.comments(number)).find((c) => c.user?.type === 'Bot' && (c.body ?? '').includes(marker(choreId)));
    if (existing) {
      await api.updateComment(existing.id, body);
      report.applied.push(`comment on #${number} updated in place`);
    } else {
      await api.createComment(number, body);
      report.applied.push(`comment on #${number}`);
    }
  } catch (error) {
    report.refused.push(`comment: GitHub refused it (${error instanceof Error ? error.message : String(error)})`);
  }
}
