import * as vscode from 'vscode';
import type { ApprovalResult } from './approvalService';
import { notice } from '../notice';

/**
 * The context key listing each pending proposal's diff as the title bar sees it (its right side's
 * URI, as a string): package.json's `editor/title` Approve and Reject show when
 * `resource in tasklane.proposedSides`, so on Tasklane's proposed-change diffs only. `resource`,
 * not `resourcePath`: for a scheme other than `file` the path is the workspace-relative one, the
 * same for every proposal of that file; the URI also holds the set id.
 */
export const PROPOSED_SIDES_KEY = 'tasklane.proposedSides';

/** What the title-bar commands need from the change-set presenter (src/host/approvals/approvalService.ts). */
export interface ShownProposals {
  shownIn(uri: vscode.Uri): Promise<{ id: string } | { refused: string }>;
  pendingSides(): Promise<string[]>;
  approve(id: string): Promise<ApprovalResult | undefined>;
  reject(id: string, reason?: string): Promise<ApprovalResult | undefined>;
  onDidChange(listener: () => void): vscode.Disposable;
}

/** What a title-bar decision returns (scripts and tests): the decision, or why none was made. */
export type DiffDecision = ApprovalResult | { status: 'refused'; reason: string };

/**
 * Approve and Reject in the title bar of a proposed change's diff (`tasklane.diff.approve`,
 * `tasklane.diff.reject`). VS Code hands the command the diff's resource; it is mapped to the
 * change set the diff shows and decided by the same service call as the card's buttons: the
 * click in the diff is the person's yes, as the card's is, and what is applied is what the diff
 * shows, their edits on the proposed side included. The diff must be on screen: a caller passing
 * the URI of a diff nobody is looking at is refused, as is any URI that is not a pending
 * proposal's. Reject gives no reason (the card's Reject has the field for one).
 */
export function registerDiffTitleCommands(ready: Promise<ShownProposals>): vscode.Disposable[] {
  const decide = async (given: unknown, verb: 'approve' | 'reject'): Promise<DiffDecision> => {
    const refuse = (reason: string): DiffDecision => {
      void vscode.window.showWarningMessage(notice`Tasklane: nothing was ${verb === 'approve' ? 'approved' : 'rejected'}: ${reason}`);
      return { status: 'refused', reason };
    };
    const uri = given instanceof vscode.Uri ? given : activeDiffSide();
    if (!uri) return refuse('no diff editor is active; open a proposed change with Open diff on its card.');
    const proposals = await ready;
    const shown = await proposals.shownIn(uri);
    if ('refused' in shown) return refuse(shown.refused);
    if (!isOnScreen(uri)) return refuse(`the diff of the proposed change ${shown.id} is not open; decide what you can see.`);
    const result = verb === 'approve' ? await proposals.approve(shown.id) : await proposals.reject(shown.id);
    return result ?? refuse(`there is no proposed change ${shown.id} any more.`);
  };
  const watcher = watchProposedSides(ready);
  return [
    watcher,
    vscode.commands.registerCommand('tasklane.diff.approve', (uri?: unknown) => decide(uri, 'approve')),
    vscode.commands.registerCommand('tasklane.diff.reject', (uri?: unknown) => decide(uri, 'reject')),
  ];
}

/** Keeps `tasklane.proposedSides` equal to the pending proposals' diff sides, one refresh at a time. */
function watchProposedSides(ready: Promise<ShownProposals>): vscode.Disposable {
  let disposed = false;
  let subscription: vscode.Disposable | undefined;
  let queue = Promise.resolve();
  void ready.then(
    (proposals) => {
      if (disposed) return;
      const refresh = () => {
        queue = queue
          .then(async () => vscode.commands.executeCommand('setContext', PROPOSED_SIDES_KEY, await proposals.pendingSides()))
          .then(undefined, () => undefined);
      };
      subscription = proposals.onDidChange(refresh);
      refresh();
    },
    () => undefined,
  );
  return new vscode.Disposable(() => {
    disposed = true;
    subscription?.dispose();
  });
}

/** The right side of the active diff editor, when the active tab is a diff. */
function activeDiffSide(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputTextDiff ? input.modified : undefined;
}

/** Whether a diff showing `uri` (either side) is the shown tab of some editor group. */
function isOnScreen(uri: vscode.Uri): boolean {
  const shown = uri.toString();
  return vscode.window.tabGroups.all.some((group) => {
    const input = group.activeTab?.input;
    return input instanceof vscode.TabInputTextDiff && (input.modified.toString() === shown || input.original.toString() === shown);
  });
}
