/**
 * The pause notice (issue 43): when a chore run parks at its budget (budgetPause.ts), the chore's
 * escalation channels are told what it reached and what it used, with the run's link and a link
 * that resumes it after the person's yes, so a person away from the keyboard learns the run waits.
 * Modelled on the review notice (reviewNotice.ts): nothing is sent when the chore has no channels,
 * when its onFailure is `silent`, or without links (the CLI, whose CI fire reports its own pause:
 * src/cli/ciPause.ts).
 *
 * Once per pause, and never again on a reload: the runner announces only the transition into
 * `parked` (budgetPause.ts `parkAtBudget` answers `'parked'`), and that transition is written to
 * the run record before the notice is sent, so a reload that finds the run parked has nothing to
 * announce. A run resumed and parked again is a new pause a person must act on, so it is announced
 * again (the key is the park's time). The ledger's intent is written before the send: a crash
 * mid-send is reported, not replayed (at most once, as every escalation).
 */
import { buildPausePayload } from './escalationPayload';
import { channelsOf, sendWaitingNotice, withRunLink } from './runEscalation';
import type { RunNoticeDeps } from './runEscalation';
import type { ChoreRunRecord } from './runLog';
import type { ChoreDefinition } from './types';

/** What sending pause notices needs (a part of the runner's options). */
export interface PauseNoticeDeps extends RunNoticeDeps {
  /**
   * A link that opens a parked run's task in VS Code and asks the person before resuming it (the
   * host's URI handler, src/host/chores/resumeLinks.ts). Without it (the CLI) no pause notice is sent.
   */
  resumeLink?: (runId: string) => Promise<string>;
}

/** Announces chore runs that parked at their budget, each pause once. */
export class PauseNotices {
  /** `runId:parkedAt` already announced: one process never sends one pause twice. */
  private readonly announced = new Set<string>();

  constructor(private readonly deps: PauseNoticeDeps) {}

  /** `run` (of `chore`) has just parked at its budget: tell the chore's channels, with the links. */
  async announce(run: ChoreRunRecord | undefined, chore: ChoreDefinition | undefined): Promise<void> {
    const { resumeLink } = this.deps;
    const channels = chore && channelsOf(this.deps, chore);
    if (!resumeLink || !run?.parked || run.status !== 'running' || !chore || !channels || chore.onFailure === 'silent') return;
    const key = `${run.runId}:${run.parked.at}`;
    if (this.announced.has(key)) return;
    this.announced.add(key);
    const link = await resumeLink(run.runId);
    const pause = { message: run.parked.message, grants: chore.budget, link };
    const payload = await withRunLink(this.deps, buildPausePayload(chore, run, pause, this.deps.workspaceName, this.deps.redact));
    const input = { choreId: chore.id, runId: run.runId };
    await sendWaitingNotice(this.deps, run, channels, payload, 'chore_budget_notice', input, `paused at budget (${run.parked.message})`);
  }
}
