import * as vscode from 'vscode';
import { extensionLink } from '../extensionLinks';
import type { ChoreRunRecord } from '../../core/chores/runRows';
import { runTraceMarkdown } from '../../core/chores/runTrace';
import { ReadOnlyDocuments } from '../readOnlyDocuments';
import { linkIdShown } from '../../core/security/surfaceText';
import { notice } from '../notice';

/**
 * Run links: every chore escalation carries `vscode://tasklane.tasklane/run?id=<run id>`, which
 * opens that run's trace as a read-only Markdown document. The run must be in this workspace's
 * store; a link from another workspace (or a run long archived) is refused, saying so.
 */

/** The path of run links under the extension's URI authority. */
export const RUN_LINK_PATH = '/run';
/** Scheme of the read-only trace documents. */
const RUN_SCHEME = 'tasklane-run';

/** What opening a run link needs from the chores. */
export interface RunLinkTargets {
  run(runId: string): ChoreRunRecord | undefined;
  choreName(choreId: string): string | undefined;
}

export type RunLinkResult = { opened: 'trace'; id: string } | { opened: false; reason: string };

/** The link for `runId`, external so it is right in the desktop app, code-server and vscode.dev. */
export function runLink(extensionId: string, runId: string): Promise<string> {
  return extensionLink(extensionId, RUN_LINK_PATH, runId);
}

/** The read-only documents run links open; one per run, re-rendered at each open. */
export class RunDocuments implements vscode.Disposable {
  private readonly documents = new ReadOnlyDocuments(RUN_SCHEME);

  /** Opens `id`'s trace; every refusal is shown to the person and returned. */
  async open(id: string, targets: RunLinkTargets): Promise<RunLinkResult> {
    const run = targets.run(id);
    if (!run) {
      const reason = `there is no chore run ${linkIdShown(id)} in this workspace; the link may come from another workspace or window.`;
      void vscode.window.showWarningMessage(notice`Tasklane: ${reason}`);
      return { opened: false, reason };
    }
    await this.documents.show(run.runId, runTraceMarkdown(run, targets.choreName(run.choreId)));
    return { opened: 'trace', id: run.runId };
  }

  dispose(): void {
    this.documents.dispose();
  }
}
