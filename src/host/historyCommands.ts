import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { notice } from './notice';
import type { HistoryHit, TaskEvent } from '../core/engine/types';
import { dismissDeadLettersCommand, retryDeadLettersCommand } from './deadLetterCommands';
import type { DeadLetterPrompts } from './deadLetterCommands';
import { defaultExportFolder } from './exportFolder';
import { ReadOnlyDocuments } from './readOnlyDocuments';
import type { Runtime } from './runtime';
import { forLabel, forNotification } from '../core/security/surfaceText';
import { taskState } from '../shared/taskState';
import { storageDocument } from '../shared/storageWords';

const prompts: DeadLetterPrompts = {
  info: (text) => void vscode.window.showInformationMessage(forNotification(text)),
  error: (text) => void vscode.window.showErrorMessage(forNotification(text)),
  confirm: async (text, action) => (await vscode.window.showWarningMessage(forNotification(text), { modal: true }, action)) === action,
};

/** Scheme of the read-only history pages and storage report. */
const HISTORY_SCHEME = 'tasklane-history';

/** Events per page when an old session is opened (the same page size as the sidebar trace). */
const PAGE = 200;

/**
 * `Tasklane: Search History`, `Open History Session`, `Export Session`, `Storage`, and bulk dead
 * letters. Each command also takes arguments and returns its result, so scripts and host tests can
 * drive it without the UI. History pages and the storage report open as read-only documents (views,
 * not drafts: closing one never asks to save it).
 */
export function registerHistoryCommands(runtime: Runtime): vscode.Disposable[] {
  const documents = new ReadOnlyDocuments(HISTORY_SCHEME);
  return [
    documents,
    // (query?): with a query, returns the hits; without, a quick pick that searches as you type.
    vscode.commands.registerCommand('tasklane.searchHistory', async (query?: unknown) => {
      const { agent } = await runtime.ready;
      if (typeof query === 'string') return agent.history.search(query);
      const hit = await searchPick((text) => agent.history.search(text));
      if (hit) await vscode.commands.executeCommand('tasklane.openHistorySession', hit.sessionId);
      return hit;
    }),
    // (sessionId, beforeSeq?): shows one page of a session's events (newest first page), returns it.
    vscode.commands.registerCommand('tasklane.openHistorySession', async (sessionId?: unknown, beforeSeq?: unknown) => {
      if (typeof sessionId !== 'string' || !sessionId) throw new Error('Open History Session needs a session id: run Tasklane: Search History to pick one.');
      const { agent } = await runtime.ready;
      const found = await agent.history.session(sessionId);
      if (!found) throw new Error(`Session ${sessionId} is neither in the hot state nor in the archive.`);
      const events = await agent.views.readTaskEvents(sessionId, { ...(typeof beforeSeq === 'number' ? { beforeSeq } : {}), limit: PAGE + 1 });
      const hasMore = events.length > PAGE;
      const page = events.slice(-PAGE);
      const lines = [
        `# ${found.session.name}${found.archived ? ' (archived)' : ''}`,
        '',
        ...found.tasks.map((t) => `- task **${t.name}** (${taskState(t)})${t.finalSummary ? `: ${t.finalSummary.replace(/\s+/g, ' ')}` : ''}`),
        '',
        ...page.map(eventLine),
        '',
        hasMore ? `_Older events: run \`tasklane.openHistorySession\` with beforeSeq ${page[0]?.seq}._` : '_Start of the session._',
      ];
      await documents.show(found.session.name, lines.join('\n'));
      return { session: found.session, archived: found.archived, tasks: found.tasks.length, events: page, hasMore };
    }),
    // (sessionId?, folder?): writes <folder>/tasklane-session-<id>.jsonl and .md; returns their paths.
    vscode.commands.registerCommand('tasklane.exportSession', async (sessionId?: unknown, folder?: unknown) => {
      const { agent } = await runtime.ready;
      let id = typeof sessionId === 'string' ? sessionId : undefined;
      if (!id) {
        const recent = agent.views
          .snapshot()
          .sessions.map((s) => ({ label: forLabel(s.name), description: new Date(s.lastActivity).toLocaleString(), id: s.id }));
        id = (await vscode.window.showQuickPick(recent, { title: vscode.l10n.t('Tasklane: export which session? (older ones: Search History first)') }))?.id;
      }
      if (!id) return undefined;
      let out = typeof folder === 'string' ? folder : undefined;
      if (!out) {
        // Asked, starting outside the workspace: an export is not a change to the repository.
        const workspace = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
        const picked = await vscode.window.showOpenDialog({
          defaultUri: vscode.Uri.file(defaultExportFolder(os.homedir(), os.tmpdir(), workspace, (folder) => fs.existsSync(folder))),
          canSelectFolders: true,
          canSelectFiles: false,
          title: 'Tasklane: export the session into which folder?',
          openLabel: 'Export here',
        });
        out = picked?.[0]?.fsPath;
      }
      if (!out) return undefined;
      const result = await agent.views.exportSession(id, out);
      if (typeof folder !== 'string') {
        void vscode.window
          .showInformationMessage(notice`Tasklane: exported ${result.events} events to ${result.jsonl} and ${result.markdown}.`, vscode.l10n.t('Open Markdown'))
          .then(async (choice) => {
            if (choice) await vscode.window.showTextDocument(vscode.Uri.file(result.markdown));
          });
      }
      return result;
    }),
    // (): shows what is kept, where, how big and by which rule; returns the items.
    vscode.commands.registerCommand('tasklane.showStorage', async (silent?: unknown) => {
      const { agent } = await runtime.ready;
      const items = await agent.history.storage();
      if (silent === true) return items;
      await documents.show(vscode.l10n.t('Tasklane storage'), storageDocument(items, vscode.l10n));
      const dead = agent.deadLetters.list().length;
      // Chosen by place, not by words: the words are the person's language.
      const actions = [
        vscode.l10n.t('Archive and clean up now'),
        ...(dead ? [vscode.l10n.t('Retry {0} dead letters', dead), vscode.l10n.t('Dismiss {0} dead letters', dead)] : []),
      ];
      const choice = await vscode.window.showInformationMessage(notice`Tasklane storage`, ...actions);
      if (choice === actions[0]) await vscode.commands.executeCommand('tasklane.archiveNow');
      else if (choice !== undefined && choice === actions[1]) await vscode.commands.executeCommand('tasklane.retryDeadLetters');
      else if (choice !== undefined && choice === actions[2]) await vscode.commands.executeCommand('tasklane.dismissDeadLetters');
      return items;
    }),
    // Runs the background pass now (archive moves, then retention); returns what it did.
    vscode.commands.registerCommand('tasklane.archiveNow', async () => (await runtime.ready).agent.history.runPass()),
    vscode.commands.registerCommand('tasklane.retryDeadLetters', async () => retryDeadLettersCommand((await runtime.ready).agent.deadLetters, prompts)),
    vscode.commands.registerCommand('tasklane.dismissDeadLetters', async (confirmed?: unknown) =>
      dismissDeadLettersCommand((await runtime.ready).agent.deadLetters, prompts, confirmed === true),
    ),
  ];
}

/** A quick pick that re-searches as the user types (debounced); resolves with the chosen hit. */
function searchPick(search: (text: string) => Promise<HistoryHit[]>): Promise<HistoryHit | undefined> {
  return new Promise((resolve) => {
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { hit: HistoryHit }>();
    pick.title = vscode.l10n.t('Tasklane: search history (sessions and tasks, archive included)');
    pick.placeholder = vscode.l10n.t('Type words from a session name, a message, a task or its summary');
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let generation = 0;
    pick.onDidChangeValue((text) => {
      if (timer) clearTimeout(timer);
      const run = async (): Promise<void> => {
        const mine = ++generation;
        pick.busy = true;
        const hits = await search(text).catch(() => []);
        if (mine !== generation) return;
        pick.busy = false;
        pick.items = hits.map((hit) => ({
          label: forLabel(hit.title),
          description: `${forLabel(hit.detail)}${hit.archived ? vscode.l10n.t(' · archived') : ''}`,
          detail: new Date(hit.at).toLocaleString(),
          hit,
          alwaysShow: true,
        }));
      };
      timer = setTimeout(() => void run(), 150);
    });
    pick.onDidAccept(() => {
      resolve(pick.selectedItems[0]?.hit);
      pick.hide();
    });
    pick.onDidHide(() => {
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}

function eventLine(e: TaskEvent): string {
  const d = e.data;
  const text = e.kind === 'message' ? `**${String(d.role)}**: ${String(d.text ?? '')}` : `${e.kind} ${String(d.name ?? d.text ?? '')}`;
  return `- ${new Date(e.at).toISOString()} ${text.replace(/\s+/g, ' ').slice(0, 500)}`;
}
