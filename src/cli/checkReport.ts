/**
 * The check run of one CI fire (`Tasklane · <chore>`): its conclusion and a summary that says
 * what happened even when nothing did. It carries no fire record: the budgets across fires read
 * the ledger (fireLedger.ts), which no text of the run reaches.
 */
import type { ChoreDefinition } from '../core/chores/types';
import type { ApplyReport } from './applyOutputs';
import type { ResultManifest } from './resultManifest';

/** The check name of a chore's fires. */
export function checkName(choreId: string): string {
  return `Tasklane · ${choreId}`;
}

export type CheckConclusion = 'success' | 'neutral' | 'failure' | 'action_required';

/** The check run for a fire, or undefined when the event was not a fire (no match, Tasklane's own). */
export function checkReport(
  manifest: ResultManifest,
  report: ApplyReport,
  chore: Pick<ChoreDefinition, 'onFailure'> | undefined,
  onPullRequest = false,
): { conclusion: CheckConclusion; title: string; summary: string; lines: string[] } | undefined {
  if (manifest.skip === 'event' || manifest.skip === 'self') return undefined;
  const { conclusion, title } = decide(manifest, report, chore, onPullRequest);
  const u = manifest.usage;
  const paused = manifest.paused;
  const lines = [
    `- Status: ${paused ? 'paused at budget' : manifest.status}${manifest.reason ? ` (${oneLine(manifest.reason)})` : ''}`,
    `- successWhen: ${manifest.verdict ? `\`${oneLine(manifest.verdict.expression)}\` ${manifest.verdict.met ? 'met' : 'not met'}` : 'none evaluated'}`,
    `- Iterations: ${u.iterations} · tokens: ${u.inputTokens} in, ${u.outputTokens} out · cost: $${u.costUsd.toFixed(4)}${u.costEstimated ? ' (estimated: the model has no known price)' : ''}`,
    `- Commands run: ${list(manifest.commands.run)} · refused: ${list(manifest.commands.refused)}`,
    ...(manifest.tainted
      ? [`- Tainted: ${manifest.taintReasons.map(oneLine).join('; ')}; commands and network were off, only labels and a comment allowed`]
      : []),
    ...(paused
      ? [
          `- Paused at budget (${paused.limit}): its state is recorded in the run's artifact: the usage above, its last ${paused.steps.length} step(s) and ${manifest.changedFiles.length ? `the edits so far in tasklane.patch (${list(manifest.changedFiles)})` : 'no edit yet'}. ${paused.resume}`,
        ]
      : []),
    `- Outputs applied: ${list(report.applied)}`,
    `- Outputs refused: ${list(report.refused)}`,
    ...(report.proposed === 0 && manifest.status !== 'skipped' && !paused
      ? [
          report.patchKept
            ? "- The run's edits are in its artifact (tasklane.patch); declare outputs.pullRequest to open them as a draft."
            : '- The run produced nothing to write.',
        ]
      : []),
  ];
  return { conclusion, title, summary: [`**${title}**`, '', ...lines].join('\n'), lines };
}

function decide(
  manifest: ResultManifest,
  report: ApplyReport,
  chore: Pick<ChoreDefinition, 'onFailure'> | undefined,
  onPullRequest: boolean,
): { conclusion: CheckConclusion; title: string } {
  if (manifest.skip === 'gate') return { conclusion: 'neutral', title: 'Skipped: the actor gate refused this fire' };
  if (manifest.skip === 'budget') return { conclusion: 'neutral', title: 'Stopped: a budget across fires is reached' };
  if (manifest.skip === 'loop') return { conclusion: 'neutral', title: "Skipped: the push is Tasklane's own, a fire on it could loop" };
  if (manifest.skip === 'resume') return { conclusion: 'neutral', title: `Not continued: ${oneLine(manifest.reason ?? 'no paused run to continue')}` };
  // Replaced by a newer fire (concurrency: replace) or the run cancelled: nothing to judge.
  if (manifest.status === 'cancelled') return { conclusion: 'neutral', title: 'Cancelled before it wrote a result' };
  // A cap pauses, never kills (issue 43): not a failure, and nothing for the check to judge yet.
  if (manifest.paused) return { conclusion: 'neutral', title: `Paused at budget: ${oneLine(manifest.paused.message)}` };
  if (manifest.status === 'awaiting_review') return { conclusion: 'action_required', title: 'Escalated: the run waits for a person' };
  if (manifest.status === 'nothing_to_change') return { conclusion: 'neutral', title: 'Nothing to change: the run changed no file' };
  if (manifest.status !== 'succeeded') {
    const escalated = chore?.onFailure === 'escalate';
    return { conclusion: escalated ? 'action_required' : 'failure', title: `The run ended ${manifest.status}${escalated ? ' and was escalated' : ''}` };
  }
  // An output refused by the chore's rules is the chore's own business: on a pull request it fails
  // the pull request's check; elsewhere the check sits on the default branch's head, which such a
  // refusal must not turn red. A result rejected whole (tampered, stale, gate) always fails.
  if (report.refused.length)
    return { conclusion: onPullRequest || report.rejected ? 'failure' : 'neutral', title: `${report.refused.length} output(s) refused` };
  if (report.proposed === 0 && report.patchKept)
    return { conclusion: 'neutral', title: "The run edited files and proposed no pull request: its patch is in the run's artifact" };
  if (report.proposed === 0) return { conclusion: 'neutral', title: 'No-op: the run produced nothing' };
  return { conclusion: 'success', title: `${report.applied.length} output(s) applied` };
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').slice(0, 300);
const list = (items: readonly string[]): string => (items.length ? items.map(oneLine).join('; ') : 'none');
