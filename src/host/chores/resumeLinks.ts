import * as vscode from 'vscode';
import { extensionLink } from '../extensionLinks';
import { notice } from '../notice';
import { resumedLimits } from '../../core/chores/budgetPause';
import type { ChoreRunRecord } from '../../core/chores/runRows';
import type { ChoreBudget } from '../../core/chores/types';
import { promptTokens } from '../../core/model/usage';
import { linkIdShown } from '../../core/security/surfaceText';

/**
 * Resume links (issue 43): the pause notice of a chore run parked at its budget
 * (core/chores/pauseNotice.ts) carries `vscode://tasklane.tasklane/resume?id=<run id>`. Opening it
 * shows the parked run's task in the thread and ASKS before resuming: a link is text from outside
 * VS Code (a mail, a chat, a web page), so it never spends on its own. The modal names the chore,
 * what the run used and the budget resuming grants; only the person's yes resumes it, through the
 * chore's own Resume path (budgetPause.ts `resumeParkedRun`). A run that is not parked any more
 * (resumed, cancelled, ended, or from another workspace) is refused, saying so.
 */

/** The path of resume links under the extension's URI authority. */
export const RESUME_LINK_PATH = '/resume';

/** What opening a resume link needs from the chores. */
export interface ResumeLinkTargets {
  run(runId: string): ChoreRunRecord | undefined;
  /** The loaded, enabled chore (its name and the budget a resume grants); undefined when it is gone. */
  chore(choreId: string): { name: string; budget: ChoreBudget } | undefined;
  /** Shows the task in the thread (the sidebar's session of the task). */
  showTask(taskId: string): Promise<void>;
  /** Continues the run through the chore's Resume path; undefined when it was not parked any more. */
  resume(runId: string, choreId: string): Promise<string | undefined>;
  now(): number;
  /** The modal every decision of the person goes through (consentDialog.ts `ConsentDialogs.confirm`): true only on `action`. */
  confirm(question: string, detail: string, action: string): Promise<boolean>;
}

export type ResumeLinkResult = { resumed: true; id: string } | { resumed: false; reason: string };

/** The link for `runId`, external so it is right in the desktop app, code-server and vscode.dev. */
export function resumeLink(extensionId: string, runId: string): Promise<string> {
  return extensionLink(extensionId, RESUME_LINK_PATH, runId);
}

/** Carries out one resume link for run `id`: shows its task, asks, resumes on yes. Every refusal is shown and returned. */
export async function openResumeLink(id: string, targets: ResumeLinkTargets): Promise<ResumeLinkResult> {
  // Each reason is a whole translated sentence; its only value is an id in Tasklane's own shape.
  const refuse = (reason: string): ResumeLinkResult => {
    void vscode.window.showWarningMessage(notice`Tasklane: ${reason}`);
    return { resumed: false, reason };
  };
  // Ids are echoed only in the shape Tasklane makes them; the rest of a link is a web page's text.
  const shown = linkIdShown(id);
  const run = targets.run(id);
  if (!run) return refuse(vscode.l10n.t('there is no chore run {0} in this workspace; the link may come from another workspace or window.', shown));
  const notParked = () =>
    refuse(vscode.l10n.t('the chore run {0} is not paused at budget any more ({1}); there is nothing to resume.', shown, run.status.replace(/_/g, ' ')));
  if (run.status !== 'running' || !run.parked || !run.taskId) return notParked();
  const chore = targets.chore(run.choreId);
  if (!chore) return refuse(vscode.l10n.t('the chore of run {0} is no longer defined or enabled here; its run cannot be resumed.', shown));
  await targets.showTask(run.taskId);
  const limits = resumedLimits(run, chore.budget, targets.now());
  const yes = vscode.l10n.t('Resume');
  const detail = vscode.l10n.t(
    "It stopped at its budget: {0}.\n\nSo far it used {1} model calls, {2} input tokens and ${3}.\n\nResuming grants another budget of the chore's size: up to {4} model calls, {5} input tokens and ${6} in total, and {7} s more. The same task continues from where it stopped.\n\nThis link came from outside VS Code: resume only if you expect this run to go on.",
    run.parked.message,
    run.usage.iterations,
    promptTokens(run.usage),
    run.usage.costUsd.toFixed(4),
    limits.maxIterations,
    limits.maxInputTokens,
    limits.maxCostUsd.toFixed(2),
    chore.budget.maxSeconds,
  );
  if (!(await targets.confirm(vscode.l10n.t('Resume the chore "{0}", paused at its budget?', chore.name), detail, yes)))
    return { resumed: false, reason: 'not confirmed' };
  // The modal may have stayed open a while: Continue on the task or Cancel may have come first.
  const now = targets.run(id);
  if (now?.status !== 'running' || !now.parked)
    return refuse(vscode.l10n.t('the chore run {0} is not paused at budget any more; it was resumed or ended meanwhile.', shown));
  if ((await targets.resume(now.runId, now.choreId)) === undefined) return notParked();
  return { resumed: true, id: now.runId };
}
