/**
 * The review notice: when a chore task parks on an approval (an edit or a command waiting for a
 * person), the chore's escalation channels are told what waits, with the link that opens it in
 * VS Code, so it can be decided away from the keyboard. Each parked approval of a run is announced
 * once. Nothing is sent when the chore has no channels, when its onFailure is `silent` (it asks
 * for no messages), or without links (the CLI). The run stays open and spends nothing while it
 * waits; the decision wakes the task. Kept apart from the runner, which only notices the park.
 */
import { buildReviewPayload } from './escalationPayload';
import { channelsOf, sendWaitingNotice, withRunLink } from './runEscalation';
import type { RunNoticeDeps } from './runEscalation';
import type { ChoreRunRecord } from './runLog';
import type { ChoreDefinition } from './types';

/** What the host tells the runner about an approval a chore task waits for. */
export interface ReviewLinkPort {
  /** An external link that opens the approval in VS Code (the host's URI handler). */
  linkFor(approvalId: string): Promise<string>;
  /** What the approval does, in one line ("Edit README.md"); undefined when it is gone. */
  describe(approvalId: string): Promise<string | undefined>;
}

/** What sending review notices needs (a part of the runner's options). */
export interface ReviewNoticeDeps extends RunNoticeDeps {
  /**
   * Links to approvals, so a run parked on a review can be decided away from the keyboard. Without
   * it (the CLI: nobody can open VS Code links to its temporary store) no review notice is sent.
   */
  reviewLinks?: ReviewLinkPort;
}

/** Announces the reviews chore runs wait for, each `run:approval` once. */
export class ReviewNotices {
  /** `runId:approvalId` already announced, so each parked review is escalated once. */
  private readonly announced = new Set<string>();

  constructor(private readonly deps: ReviewNoticeDeps) {}

  /**
   * `run` (of `chore`, both as the runner has them) parked on `approvalId`: tell the chore's
   * channels what waits and give the link that opens it, unless it was told already.
   */
  async announce(run: ChoreRunRecord | undefined, chore: ChoreDefinition | undefined, approvalId: string): Promise<void> {
    const { reviewLinks } = this.deps;
    const channels = chore && channelsOf(this.deps, chore);
    if (!reviewLinks || !run || run.status !== 'running' || !chore || !channels || chore.onFailure === 'silent') return;
    const key = `${run.runId}:${approvalId}`;
    if (this.announced.has(key)) return;
    this.announced.add(key);
    const summary = await reviewLinks.describe(approvalId);
    if (summary === undefined) return; // Decided or gone before we got here: nothing to ask for.
    const link = await reviewLinks.linkFor(approvalId);
    const payload = await withRunLink(this.deps, buildReviewPayload(chore, run, { id: approvalId, summary, link }, this.deps.workspaceName, this.deps.redact));
    const input = { choreId: chore.id, runId: run.runId, approvalId };
    await sendWaitingNotice(this.deps, run, channels, payload, 'chore_review_notice', input, `waits for review of ${approvalId}`);
  }
}
