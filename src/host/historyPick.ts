import * as vscode from 'vscode';
import { forLabel } from '../core/security/surfaceText';
import { firstSessionPage, sessionPage } from './sessionListBackend';
import type { Agent } from '../core/engine/agent';
import type { Runtime } from './runtime';
import type { SessionSummary } from '../shared/protocol';
import { conversationItems } from './conversationPicks';
import { toListSummary } from './viewMapping';

/** At most this many conversations are listed (ten pages); older ones are found with Search History. */
const MAX_LISTED = 500;

type Item = vscode.QuickPickItem & { sessionId?: string; search?: true };

/** The rows of the conversations whose live task waits for the person's answer or approval. */
function waitingConversations(agent: Agent): SessionSummary[] {
  const lanes = agent.views
    .snapshot()
    .tasks.filter((t) => (t.status === 'running' || t.status === 'paused') && (t.waitingForUser || t.waitingForApproval))
    .map((t) => t.sessionId);
  return lanes.flatMap((lane) => {
    const row = agent.views.listRow(lane);
    return row ? [toListSummary(row)] : [];
  });
}

/**
 * `tasklane.showHistory`, the Chat view's History title action: a native quick pick of the
 * conversations (type to filter by title), as Copilot's chat history is, those whose task waits
 * for the person first (conversationPicks.ts); picking one shows it in the Chat view, a waiting one
 * at its waiting task's block. The Chat view holds no list of its own. Searching inside
 * conversations is the last row, `Tasklane: Search History`.
 */
export function registerHistoryPick(runtime: Runtime, showSession: (sessionId: string) => Promise<void>): vscode.Disposable {
  return vscode.commands.registerCommand('tasklane.showHistory', async () => {
    const { agent } = await runtime.ready;
    const first = await firstSessionPage(agent);
    const sessions: SessionSummary[] = [...first.sessions];
    let more = first.hasMore;
    while (more && sessions.length < MAX_LISTED) {
      const last = sessions[sessions.length - 1];
      if (!last) break;
      const page = await sessionPage(agent, { at: last.lastActivity, id: last.id });
      sessions.push(...page.sessions);
      more = page.hasMore;
    }
    // What waits is listed whatever its age: a conversation past the pages read joins the list.
    for (const waiting of waitingConversations(agent)) if (!sessions.some((s) => s.id === waiting.id)) sessions.push(waiting);
    const rows = conversationItems(sessions, Date.now(), {
      waitingSection: vscode.l10n.t('Waiting for you'),
      today: vscode.l10n.t('Today'),
      yesterday: vscode.l10n.t('Yesterday'),
      older: vscode.l10n.t('Older'),
      waiting: vscode.l10n.t('waiting for you'),
      archived: vscode.l10n.t('archived'),
      tasks: (count) => (count === 1 ? vscode.l10n.t('1 task') : vscode.l10n.t('{0} tasks', count)),
    });
    const items: Item[] = rows.map((row) =>
      row.separator
        ? { label: forLabel(row.label), kind: vscode.QuickPickItemKind.Separator }
        : // A conversation's name is the model's (or the person's) words.
          { label: forLabel(row.label), description: row.description === undefined ? undefined : forLabel(row.description), sessionId: row.sessionId },
    );
    items.push(
      { label: '', kind: vscode.QuickPickItemKind.Separator },
      { label: `$(search) ${vscode.l10n.t('Search inside conversations…')}`, alwaysShow: true, search: true },
    );
    const picked = await vscode.window.showQuickPick(items, {
      title: vscode.l10n.t('Tasklane: conversations'),
      placeHolder: sessions.length ? vscode.l10n.t('Type to filter by title; Enter opens the conversation') : vscode.l10n.t('No conversations yet'),
      matchOnDescription: true,
    });
    if (picked?.search) await vscode.commands.executeCommand('tasklane.searchHistory');
    else if (picked?.sessionId) await showSession(picked.sessionId);
  });
}
