import * as vscode from 'vscode';
import { notice } from '../notice';
import { extensionLink } from '../extensionLinks';
import { forLabel, linkIdShown } from '../../core/security/surfaceText';
import type { ReviewLinkPort } from '../../core/chores/reviewNotice';
import type { ApprovalView } from '../../shared/approvalProtocol';
import { RUN_LINK_PATH, RunDocuments } from '../chores/runLinks';
import type { RunLinkResult, RunLinkTargets } from '../chores/runLinks';
import { openResumeLink, RESUME_LINK_PATH } from '../chores/resumeLinks';
import type { ResumeLinkResult, ResumeLinkTargets } from '../chores/resumeLinks';

/**
 * Approval away from the keyboard: `vscode://tasklane.tasklane/approval?id=<approval id>` opens
 * that approval in VS Code. A chore run parked on a review sends the link through its escalation
 * channels (core/chores/choreRunner.ts `announceReview`); the same handler serves the URI handler
 * (the link clicked in a mail or Slack) and `tasklane.openApprovalLink` (a link pasted in the
 * palette, and what host tests call).
 */

/** The path of approval links under the extension's URI authority. */
export const APPROVAL_LINK_PATH = '/approval';

/** What the handler needs from the approval owners (change sets, command approvals). */
export interface ApprovalLinkTargets {
  /** Opens a pending proposal's diff as its card does; otherwise says what became of it (`undefined`: no such proposal). */
  openProposal(id: string): Promise<{ opened: true } | { opened: false; status: string } | undefined>;
  /** The pending command approvals and the recently decided ones, as the sidebar shows them. */
  commandApprovals(): Promise<ApprovalView[]>;
  /** Whether the command approvals store knows this id at all (decided ones included). */
  ownsCommand(id: string): Promise<boolean>;
  /** Reveals the sidebar on the session whose card asks for the approval. */
  showSession(sessionId: string): Promise<void>;
}

/** What opening a link did, for the command's callers (tests, scripts). */
export type ApprovalLinkResult = { opened: 'diff' | 'card'; id: string } | { opened: false; reason: string };

/** The link for `approvalId`, external so it is right in the desktop app, code-server and vscode.dev. */
export function approvalLink(extensionId: string, approvalId: string): Promise<string> {
  return extensionLink(extensionId, APPROVAL_LINK_PATH, approvalId);
}

/**
 * The path and id a Tasklane link names (`/approval`, `/run` or `/resume`). Accepts the app link
 * (`<scheme>://<extension id>/approval?id=…`) and the web callback form a browser workbench turns
 * it into (`…?vscode-authority=…&vscode-path=/approval&vscode-query=id%3D…`).
 */
export function linkTarget(link: vscode.Uri, extensionId: string): { path: string; id: string } | undefined {
  let { authority, path, query } = link;
  const params = new URLSearchParams(query);
  if (params.has('vscode-path')) {
    authority = params.get('vscode-authority') ?? '';
    path = params.get('vscode-path') ?? '';
    query = params.get('vscode-query') ?? '';
  }
  if (authority.toLowerCase() !== extensionId.toLowerCase()) return undefined;
  const id = new URLSearchParams(query).get('id')?.trim();
  return id ? { path, id } : undefined;
}

/** The approval id a link names, if it is an approval link. */
export function approvalIdOf(link: vscode.Uri, extensionId: string): string | undefined {
  const target = linkTarget(link, extensionId);
  return target?.path === APPROVAL_LINK_PATH ? target.id : undefined;
}

/** Carries out one approval link; every refusal is shown to the person and returned. */
export async function openApprovalLink(link: vscode.Uri, extensionId: string, targets: ApprovalLinkTargets): Promise<ApprovalLinkResult> {
  const refuse = (reason: string): ApprovalLinkResult => {
    void vscode.window.showWarningMessage(notice`Tasklane: ${reason}`);
    return { opened: false, reason };
  };
  const id = approvalIdOf(link, extensionId);
  // Ids are echoed only in the shape Tasklane makes them; the rest of a link is a web page's text.
  if (!id)
    return refuse(vscode.l10n.t('this is not a Tasklane approval link (expected {0}).', `${vscode.env.uriScheme}://${extensionId}${APPROVAL_LINK_PATH}?id=…`));
  const shown = linkIdShown(id);
  const proposal = await targets.openProposal(id);
  if (proposal?.opened) return { opened: 'diff', id };
  if (proposal)
    return refuse(vscode.l10n.t('the proposal {0} was already decided ({1}); there is nothing to review.', shown, proposal.status.replace(/_/g, ' ')));
  const command = (await targets.commandApprovals()).find((a) => a.id === id);
  if (command?.status === 'pending') {
    await targets.showSession(command.sessionId);
    return { opened: 'card', id };
  }
  if (command || (await targets.ownsCommand(id)))
    return refuse(
      command
        ? vscode.l10n.t('the approval {0} was already decided ({1}); there is nothing to review.', shown, command.status)
        : vscode.l10n.t('the approval {0} was already decided; there is nothing to review.', shown),
    );
  return refuse(vscode.l10n.t('there is no approval {0} in this workspace; it may belong to another workspace or window, or have been removed.', shown));
}

/**
 * The URI handler (approval, run and resume links), `tasklane.openApprovalLink` and
 * `tasklane.openRunLink`. The targets exist once the store is open; all wait for them. An
 * extension has one URI handler: `others` are the paths it hands elsewhere (an MCP sign-in's redirect).
 */
export function registerApprovalLinks(
  extensionId: string,
  targets: Promise<ApprovalLinkTargets>,
  runs: Promise<RunLinkTargets & ResumeLinkTargets>,
  others: Record<string, (uri: vscode.Uri) => void> = {},
): vscode.Disposable[] {
  const open = async (link: vscode.Uri) => openApprovalLink(link, extensionId, await targets);
  const documents = new RunDocuments();
  const openRun = async (link: vscode.Uri): Promise<RunLinkResult> => {
    const target = linkTarget(link, extensionId);
    if (target?.path !== RUN_LINK_PATH) {
      const reason = `this is not a Tasklane run link (expected ${vscode.env.uriScheme}://${extensionId}${RUN_LINK_PATH}?id=…).`;
      void vscode.window.showWarningMessage(notice`Tasklane: ${reason}`);
      return { opened: false, reason };
    }
    return documents.open(target.id, await runs);
  };
  // A resume link resumes a run parked at its budget only after the person's yes (resumeLinks.ts).
  const route = async (link: vscode.Uri): Promise<ApprovalLinkResult | RunLinkResult | ResumeLinkResult> => {
    const target = linkTarget(link, extensionId);
    if (target?.path === RESUME_LINK_PATH) return openResumeLink(target.id, await runs);
    return target?.path === RUN_LINK_PATH ? openRun(link) : open(link);
  };
  return [
    documents,
    vscode.window.registerUriHandler({
      handleUri: (uri) => {
        const other = Object.hasOwn(others, uri.path) ? others[uri.path] : undefined;
        if (other) return other(uri);
        void route(uri);
      },
    }),
    vscode.commands.registerCommand('tasklane.openRunLink', async (link?: unknown) => {
      if (typeof link !== 'string') return { opened: false, reason: 'no link' } satisfies RunLinkResult;
      try {
        return await openRun(vscode.Uri.parse(link.trim(), true));
      } catch {
        return { opened: false, reason: 'not a link' } satisfies RunLinkResult;
      }
    }),
    vscode.commands.registerCommand('tasklane.openApprovalLink', async (link?: unknown) => {
      const text =
        typeof link === 'string'
          ? link
          : await vscode.window.showInputBox({
              title: vscode.l10n.t('Tasklane: open an approval link'),
              prompt: vscode.l10n.t(
                'Paste the link from the escalation ({0}://{1}{2}?id=…)',
                forLabel(vscode.env.uriScheme),
                forLabel(extensionId),
                APPROVAL_LINK_PATH,
              ),
              ignoreFocusOut: true,
            });
      if (!text) return undefined;
      let uri: vscode.Uri;
      try {
        uri = vscode.Uri.parse(text.trim(), true);
      } catch {
        void vscode.window.showWarningMessage(notice`Tasklane: that is not a link; paste the whole link from the escalation.`);
        return { opened: false, reason: 'not a link' } satisfies ApprovalLinkResult;
      }
      // A run or resume link pasted here does what the URI handler does with it.
      return route(uri);
    }),
  ];
}

/**
 * The runner's review-link port over the approval owners (change sets, commands): a pending
 * approval is described as the palette's pick describes it; a decided or unknown one is undefined.
 */
export function reviewLinkPort(extensionId: string, owners: ReadonlyArray<{ list(): Promise<ApprovalView[]> }>): ReviewLinkPort {
  return {
    linkFor: (id) => approvalLink(extensionId, id),
    describe: async (id) => {
      for (const owner of owners) {
        const view = (await owner.list()).find((v) => v.id === id && v.status === 'pending');
        // English from the view's data, not its title: the title is in the person's language,
        // and this text goes to CI and to channels (reviewNotice.ts).
        if (view)
          return view.command !== undefined
            ? `${view.kind === 'mcp' ? 'Call the MCP tool' : view.kind === 'task' ? 'Run the VS Code task' : 'Run'} ${view.command}`
            : `Edit ${view.files.map((f) => (f.newPath ? `${f.path} → ${f.newPath}` : f.path)).join(', ')}`;
      }
      return undefined;
    },
  };
}
