import * as vscode from 'vscode';
import type { AgentChange, TaskView } from '../core/engine/types';
import type { Logger } from '../core/ports';
import type { ApprovalView } from '../shared/approvalProtocol';
import type { ServiceMessage } from './sidebarSection';
import { stateIconText } from '../shared/taskState';
import { notice } from './notice';
import { forMarkdown } from '../core/security/surfaceText';
import { AttentionState } from './attentionState';
import type { AttentionSummary } from './attentionState';

/** The sidebar as attention sees it. */
export interface AttentionView {
  readonly visible: boolean;
  readonly current: vscode.WebviewView | undefined;
  onDidChangeVisibility(listener: () => void): vscode.Disposable;
  showSession(sessionId: string): Promise<void>;
}

/**
 * Telling the person when Tasklane needs them, outside the sidebar: one status bar item (left,
 * as VS Code's guidance puts workspace-wide status) with "N running" or "waiting for you: N" that
 * opens the sidebar; the view's activity-bar badge with the same count; and, when the sidebar is
 * not on screen, one notification per new wait (approval, question, budget pause, chore run that
 * needs a person) with Open. `tasklane.notifications: false` turns the notifications off (the
 * status bar item and badge stay). Waits that exist at start are shown in the count but not
 * announced: a reload should not replay a burst of notifications.
 */
export class Attention implements vscode.Disposable {
  private readonly state = new AttentionState(vscode.l10n);
  private readonly item = vscode.window.createStatusBarItem('tasklane.status', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [];
  private started = false;
  private readonly choreNames = new Map<string, string>();

  constructor(
    private readonly view: AttentionView,
    private readonly logger: Logger,
  ) {
    this.item.name = 'Tasklane';
    this.render(this.state.summary());
    this.item.show();
    this.disposables.push(
      this.item,
      view.onDidChangeVisibility(() => {
        // Said in the log: what is announced depends on it (and the UI tier waits for it).
        this.logger.info('HOST', `attention: the Tasklane view is ${view.visible ? 'shown' : 'hidden'}`);
        if (view.visible) this.state.markSeen();
        this.render(this.state.summary());
      }),
    );
  }

  /** The waits that exist at start: counted, not announced. */
  seed(tasks: readonly TaskView[], approvals: readonly ApprovalView[]): void {
    for (const task of tasks) this.state.setTask(task);
    for (const approval of approvals) this.state.setApproval(approval);
    this.state.markSeen();
    this.started = true;
    this.update();
  }

  onAgentChange(change: AgentChange): void {
    if (change.type !== 'task') return;
    this.state.setTask(change.task);
    this.update();
  }

  /** A sidebar message a service posted: approval cards and chore runs are what matter here. */
  onHostMessage(m: ServiceMessage): void {
    switch (m.type) {
      case 'approvalPatch':
        this.state.setApproval(m.approval);
        break;
      case 'approvalRemoved':
        this.state.removeApproval(m.id);
        break;
      case 'chorePatch':
        this.choreNames.set(m.chore.id, m.chore.name);
        return;
      case 'choreRunPatch':
        this.state.setChoreRun(m.run, this.choreNames.get(m.run.choreId) ?? m.run.choreId);
        break;
      default:
        return;
    }
    this.update();
  }

  private update(): void {
    const summary = this.state.summary();
    this.render(summary);
    if (!this.started) return;
    if (this.view.visible) {
      this.state.markSeen();
      return;
    }
    const fresh = this.state.takeNew();
    if (fresh.length === 0 || !vscode.workspace.getConfiguration('tasklane').get<boolean>('notifications', true)) return;
    const first = fresh[0];
    // Names, paths and reasons in `text` come from the model or the repository: `notice` makes any
    // `[label](command:…)` in them inert.
    const text = fresh.length === 1 ? notice`Tasklane: ${first.text}.` : notice`Tasklane: ${fresh.length} things need you (${first.text}; …).`;
    void vscode.window.showInformationMessage(text, vscode.l10n.t('Open')).then(async (choice) => {
      if (choice !== vscode.l10n.t('Open')) return;
      if (first.sessionId) await this.view.showSession(first.sessionId);
      else await vscode.commands.executeCommand('tasklane.sidebar.focus');
    });
    this.logger.info('HOST', `attention: ${fresh.map((f) => f.key).join(', ')}`);
  }

  private render(summary: AttentionSummary): void {
    const waiting = summary.waiting.length;
    // The task words of the thread and the sidebar (src/shared/taskState.ts), with their icons.
    if (waiting > 0) {
      this.item.text = vscode.l10n.t('{0} Tasklane: waiting for you: {1}', stateIconText('waiting for you'), waiting);
      // Task names, chore names, command lines and paths are the model's or the repository's:
      // one escaped line each, so none adds a link, a heading or a line of its own.
      this.item.tooltip = new vscode.MarkdownString(
        summary.waiting.map((w) => `- ${forMarkdown(w.text)}${w.detail ? `: ${forMarkdown(w.detail)}` : ''}`).join('\n'),
      );
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
      // A click opens what waits (its task's block in the conversation), not just the last chat.
      const first = summary.waiting.find((w) => w.taskId);
      this.item.command = first?.taskId
        ? { command: 'tasklane.showTask', title: vscode.l10n.t('Open what waits for you'), arguments: [first.taskId] }
        : { command: 'tasklane.sidebar.focus', title: vscode.l10n.t('Open Tasklane') };
    } else {
      this.item.command = { command: 'tasklane.sidebar.focus', title: vscode.l10n.t('Open Tasklane') };
      this.item.text =
        summary.running > 0
          ? vscode.l10n.t('{0} Tasklane: {1} working', stateIconText('working'), summary.running)
          : vscode.l10n.t('$(comment-discussion) Tasklane');
      this.item.tooltip =
        summary.running > 0
          ? vscode.l10n.t('Tasklane is working; nothing waits for you. Click to open the sidebar.')
          : vscode.l10n.t('Tasklane: nothing running. Click to open the sidebar.');
      this.item.backgroundColor = undefined;
    }
    this.item.accessibilityInformation = {
      label:
        waiting > 0
          ? vscode.l10n.t('Tasklane: {0} waiting for you', waiting)
          : summary.running > 0
            ? vscode.l10n.t('Tasklane: {0} working', summary.running)
            : vscode.l10n.t('Tasklane: idle'),
      role: 'button',
    };
    const view = this.view.current;
    if (view) view.badge = waiting > 0 ? { value: waiting, tooltip: vscode.l10n.t('{0} waiting for you', waiting) } : undefined;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
