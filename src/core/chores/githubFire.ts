/**
 * What the model of a GitHub fire is told after the chore's prompt: the event as delimited,
 * untrusted data (eventText.ts), what a tainted fire may no longer do, and the outputs it may
 * propose with their shape, so the model can propose them from its request alone. One text for CI
 * (cli/ciRun.ts) and for a recorded event replayed in VS Code (Run now).
 */
import { describeEvent } from './eventText';
import type { ChoreFireContext } from './fireContext';
import { fireFactsText } from './fireFacts';
import type { FireFacts } from './fireFacts';
import { eventFromPayload, eventItem, matchEvent, selfTriggered } from './githubEvent';
import type { EventItem, GithubEvent } from './githubEvent';
import { askerTaint, replayAsker } from './githubTaint';
import { DEFAULT_ACTOR_GATE } from './githubTypes';
import type { ChoreOutputs } from './githubTypes';
import type { ChoreDefinition } from './types';

/**
 * The text after the chore's prompt for a fire of `event`; `facts` are what CI read from the API for
 * the job's purpose (changed files, failed jobs), which a replay in VS Code has none of.
 */
export function githubFireText(event: GithubEvent, item: EventItem, outputs: ChoreOutputs | undefined, tainted: boolean, facts?: FireFacts): string {
  const compared = pullRequestCommits(event);
  const read = fireFactsText(facts);
  return [
    describeEvent(event, item),
    ...(compared ? [compared] : []),
    ...(read ? [read] : []),
    '',
    ...(tainted
      ? [
          "This fire was asked for by someone outside the chore's trusted roles: this run has no commands and no network, and may only propose labels or a comment.",
          '',
        ]
      : []),
    outputsInstruction(outputs),
  ].join('\n');
}

const SHA = /^[0-9a-f]{40}$/;

/**
 * For a fire about a pull request (its own event, or a review of it): the commits it compares and
 * how many files it changes, facts GitHub sets, so a reviewer knows what to diff (review
 * ci-2026-12c s8: a pull-request fire got no base SHA). Only values of their exact form are
 * written (40-hex SHAs, a count): branch names are the author's text and stay in the blocks.
 */
export function pullRequestCommits(event: GithubEvent): string | undefined {
  const pr = event.payload.pull_request;
  if (pr === null || typeof pr !== 'object') return undefined;
  const sha = (side: unknown) => {
    const value = side !== null && typeof side === 'object' ? (side as Record<string, unknown>).sha : undefined;
    return typeof value === 'string' && SHA.test(value) ? value : undefined;
  };
  const { base, head, changed_files: changed } = pr as Record<string, unknown>;
  const [baseSha, headSha] = [sha(base), sha(head)];
  if (!baseSha || !headSha) return undefined;
  const files = Number.isSafeInteger(changed) ? ` and changes ${String(changed)} file${changed === 1 ? '' : 's'}` : '';
  return `The pull request compares its head commit ${headSha} with the base commit ${baseSha}${files}; \`git diff ${baseSha}...${headSha}\` shows its change where both commits are fetched.`;
}

/** The outputs a tainted fire may still propose: the low-risk kinds only. */
export function untaintedKinds(outputs: ChoreOutputs): ChoreOutputs {
  return { ...(outputs.labels ? { labels: outputs.labels } : {}), ...(outputs.comment ? { comment: outputs.comment } : {}) };
}

/**
 * What the CI instruction says about outputs: the declared kinds with their limits, and the
 * `task_end` output shape, so the model can propose them from its request alone.
 */
export function outputsInstruction(outputs: ChoreOutputs | undefined): string {
  if (!outputs || Object.keys(outputs).length === 0) return 'This run writes nothing to GitHub: report your findings in the task_end summary only.';
  const kinds: string[] = [];
  if (outputs.labels) kinds.push(`"labels": [<at most ${outputs.labels.max} of: ${outputs.labels.allowed.join(', ')}>]`);
  if (outputs.comment) kinds.push('"comment": "<one Markdown comment on the triggering item>"');
  if (outputs.issue) kinds.push(`"issues": [<at most ${outputs.issue.max} of {"title": "…", "body": "…"}>]`);
  if (outputs.review) kinds.push('"review": "<one review comment on the pull request>"');
  if (outputs.pullRequest) kinds.push('"pullRequest": {"title": "…", "body": "…"} (the files you edited become a draft pull request)');
  if (outputs.pushToPullRequest)
    kinds.push(
      '"pushToPullRequest": {"message": "<commit message>"} (the files you edited become a commit on the triggering pull request\'s branch; only when the item is a pull request of this repository)',
    );
  return [
    'Your results are written to GitHub by a separate step, only from your task_end `output` JSON object. Put in it only what you want written, with these keys:',
    `{ ${kinds.join(', ')} }`,
    'Leave a key out to write nothing of that kind. Anything else (other labels, more items, other targets) is refused.',
  ].join('\n');
}

/**
 * A recorded event payload (a webhook delivery, or the `event.json` of an Actions run) replayed by
 * Run now on a chore that runs on CI: the fire context that tells the model the event exactly as
 * CI would, or why this event does not fire the chore. The actor gate and the budgets across
 * fires need GitHub and do not apply: the person who picks the file starts the run, and nothing
 * is written to GitHub from VS Code. Taint is judged as on CI (githubTaint.ts), from the role the
 * payload's author_association implies, so a replay that CI would narrow says so.
 */
export function replayContext(chore: ChoreDefinition, payloadText: string): { context: Extract<ChoreFireContext, { kind: 'github' }> } | { problem: string } {
  if (chore.trigger.kind !== 'github') return { problem: `the chore "${chore.id}" does not run on a GitHub event; Run now runs it without one` };
  let event: GithubEvent;
  try {
    event = eventFromPayload(JSON.parse(payloadText), undefined);
  } catch (error) {
    return { problem: `the file is not a GitHub event payload: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  }
  const own = selfTriggered(event);
  if (own) return { problem: `this is Tasklane's own event (${own}); on CI it would be skipped` };
  const match = matchEvent(chore.trigger.github, event, chore.id);
  if (!match.fire) return { problem: `this event does not fire "${chore.id}": ${match.reason}` };
  const item = eventItem(event);
  const taintReasons = askerTaint(chore.actors ?? DEFAULT_ACTOR_GATE, replayAsker(event));
  const tainted = taintReasons.length > 0;
  return {
    context: {
      kind: 'github',
      event: String(event.name),
      ...(event.action ? { action: event.action } : {}),
      ...(item.number !== null ? { item: `${item.repo}#${item.number}` } : {}),
      ...(tainted ? { taintReasons } : {}),
      text: githubFireText(event, item, tainted && chore.outputs ? untaintedKinds(chore.outputs) : chore.outputs, tainted),
    },
  };
}
