import * as vscode from 'vscode';
import type { WorkspaceChecks } from '../core/checks/taskChecks';
import { CHECKS_FILE, checksRule, resolveWorkspaceChecks } from '../core/checks/workspaceChecks';
import type { ResolvedChecks } from '../core/checks/workspaceChecks';
import type { ConsentStore } from '../core/consent/consentStore';
import type { Logger } from '../core/ports';
import type { ConsentDialogs } from './consentDialog';
import { notice } from './notice';

/** The one consent id of a workspace's checks (a consent store is per workspace already). */
const CONSENT_ID = 'workspace';

/**
 * The workspace's checks for interactive tasks in VS Code (core/checks/workspaceChecks.ts decides
 * which apply): the person's `tasklane.checks.*`, else `.tasklane/checks.json` once the person
 * enabled exactly that file with `Tasklane: Enable Workspace Checks`, which shows every command
 * in the consent modal. The file is read at start and whenever it changes; until the yes, a
 * proposal is logged as waiting and nothing of it runs. In Restricted Mode no check runs.
 */
export class WorkspaceChecksHost implements vscode.Disposable {
  private fileText: string | undefined;
  private readonly watcher: vscode.FileSystemWatcher | undefined;

  constructor(
    private readonly o: {
      root: vscode.Uri | undefined;
      userChecks: () => { commands: string[]; rounds?: number };
      consent: ConsentStore;
      trusted: () => boolean;
      logger: Logger;
    },
  ) {
    if (o.root) {
      this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(o.root, CHECKS_FILE));
      const reload = () => void this.load();
      this.watcher.onDidCreate(reload);
      this.watcher.onDidChange(reload);
      this.watcher.onDidDelete(reload);
    }
  }

  /** Reads `.tasklane/checks.json` (absent: none proposed) and says in the log what applies. */
  async load(): Promise<void> {
    if (!this.o.root) return;
    try {
      this.fileText = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(this.o.root, CHECKS_FILE)));
    } catch {
      this.fileText = undefined;
    }
    const resolved = this.resolved();
    if (resolved.source === 'none' && resolved.problem) this.o.logger.warn('HOST', `Workspace checks are not used: ${resolved.problem}`);
    else if (resolved.source === 'none' && resolved.waiting)
      this.o.logger.info('HOST', `${CHECKS_FILE} proposes checks; they run after Tasklane: Enable Workspace Checks.`);
  }

  resolved(): ResolvedChecks {
    return resolveWorkspaceChecks({
      user: this.o.userChecks(),
      ...(this.fileText !== undefined ? { repositoryFile: this.fileText } : {}),
      consented: (hash) => this.o.consent.status('checks', CONSENT_ID, hash) === 'given',
    });
  }

  /** The checks that judge tasks now (none in Restricted Mode). */
  checks(): WorkspaceChecks | undefined {
    const resolved = this.resolved();
    return this.o.trusted() && resolved.source !== 'none' ? resolved.checks : undefined;
  }

  /** The line the model reads about the checks in force (appended to the workspace rules). */
  rule(): string | undefined {
    const checks = this.checks();
    return checks ? checksRule(checks) : undefined;
  }

  /** `Tasklane: Enable Workspace Checks`: the proposal in full in the consent modal; true once enabled. */
  async enable(dialogs: ConsentDialogs): Promise<boolean> {
    await this.load();
    const resolved = this.resolved();
    if (resolved.source !== 'none' || !resolved.waiting) {
      const why =
        resolved.source === 'settings'
          ? 'your setting tasklane.checks.commands is in force (it wins over the file)'
          : resolved.source === 'repository'
            ? 'they are enabled already'
            : ('problem' in resolved && resolved.problem) || `there is no ${CHECKS_FILE}`;
      void vscode.window.showInformationMessage(notice`Tasklane: no workspace checks wait for your yes: ${why}.`);
      return false;
    }
    const { checks, hash } = resolved.waiting;
    const detail = [
      `When a task that changed files ends, these commands run in the workspace folder, in order, without asking (each one program and its arguments, no shell):`,
      ...checks.commands.map((c) => `- ${c}`),
      `A failure goes back to the task with the end of its output, at most ${checks.rounds} rounds.`,
      '',
      `Any change to ${CHECKS_FILE} asks again.`,
    ].join('\n');
    if (!(await dialogs.confirm(`Run the checks ${CHECKS_FILE} proposes?`, detail, 'Enable', 'workspace-checks'))) return false;
    await this.o.consent.give('checks', CONSENT_ID, hash, 'enabled');
    return true;
  }

  dispose(): void {
    this.watcher?.dispose();
  }
}
