import * as vscode from 'vscode';
import type { CommandApproval, CommandResult } from '../../core/approval/commands/commandApproval';
import type { CommandRunner, CommandService } from '../../core/approval/commands/commandService';
import type { ApprovalHostMessage, ApprovalView, ApprovalWebviewMessage } from '../../shared/approvalProtocol';
import { approvalReasonWords } from '../../shared/approvalReasons';
import type { TasklaneSettings } from '../settings';
import { confirmApproval } from '../approvals/approvalCommands';
import type { ConsentDialogs } from '../consentDialog';
import { runVsCodeTask } from './taskRunner';
import type { TaskTerminals } from './terminalRunner';

/** An approvals section that can say whether an approval id is its own (so several can share one list). */
export interface OwnedApprovalSection {
  list(): Promise<ApprovalView[]>;
  /** A gesture from the sidebar; a refused decision throws with the reason. */
  handle(message: ApprovalWebviewMessage): Promise<void>;
  owns(id: string): Promise<boolean>;
}

/** The command approval as a sidebar card, in the same list as change sets. */
export function toCommandApprovalView(approval: CommandApproval): ApprovalView {
  return {
    id: approval.id,
    taskId: approval.taskId,
    sessionId: approval.sessionId,
    kind: approval.kind,
    title:
      approval.kind === 'task'
        ? vscode.l10n.t('Run the VS Code task “{0}”?', approval.command)
        : approval.kind === 'mcp'
          ? approval.hints?.length
            ? vscode.l10n.t('Call the MCP tool {0}? (the server says: {1})', approval.command, approval.hints.join(', '))
            : vscode.l10n.t('Call the MCP tool {0}?', approval.command)
          : vscode.l10n.t('Run this command?'),
    status: approval.status,
    files: [],
    command: approval.kind === 'mcp' ? `${approval.command} ${approval.input ?? '{}'}` : approval.command,
    // The policy's reason as its code says it in the person's language; a row stored before codes
    // existed has only the core's English.
    reason:
      approval.status === 'running'
        ? vscode.l10n.t('Running… (see its terminal)')
        : approval.why
          ? approvalReasonWords(approval.why, vscode.l10n)
          : approval.reason,
    createdAt: approval.createdAt,
  };
}

/**
 * The terminal and the VS Code task API as the engine's command runner: commands run in the
 * first workspace folder (else the storage folder) with the hidden environment variables removed,
 * each task's in its own terminal (`terminals`).
 */
export function vscodeCommandRunner(
  cwd: () => string,
  settings: Pick<TasklaneSettings, 'hiddenEnvironmentVariables'>,
  terminals: Pick<TaskTerminals, 'run'>,
): CommandRunner {
  return {
    runCommand: (command, options) => terminals.run(command, { ...options, cwd: cwd(), hiddenEnv: settings.hiddenEnvironmentVariables() }),
    runTask: (name, options) => runVsCodeTask(name, { ...options, hiddenEnv: settings.hiddenEnvironmentVariables() }),
  };
}

/**
 * run_command / run_task approvals as sidebar cards in the same list as change sets, and the
 * palette's approve/reject of them, over the engine's CommandService.
 */
export class CommandExecutionHost implements OwnedApprovalSection, vscode.Disposable {
  private readonly listeners = new Set<(message: ApprovalHostMessage) => void>();
  private readonly subscription: { dispose(): void };

  constructor(
    private readonly service: CommandService,
    onDidChange: (listener: (id: string, approval: CommandApproval | undefined) => void) => { dispose(): void },
  ) {
    this.subscription = onDidChange((id, approval) =>
      this.listeners.forEach((l) => l(approval ? { type: 'approvalPatch', approval: toCommandApprovalView(approval) } : { type: 'approvalRemoved', id })),
    );
  }

  dispose(): void {
    this.subscription.dispose();
  }

  /** Where other approval-gated calls (MCP tools) ask: the same cards, ledger and wake-up. */
  requester(): Pick<CommandService, 'request'> {
    return this.service;
  }

  /** Card patches for the sidebar (`sidebar.post`). */
  onDidPost(listener: (message: ApprovalHostMessage) => void): vscode.Disposable {
    this.listeners.add(listener);
    return new vscode.Disposable(() => this.listeners.delete(listener));
  }

  async list(): Promise<ApprovalView[]> {
    return (await this.service.open()).map(toCommandApprovalView);
  }

  async owns(id: string): Promise<boolean> {
    return this.service.owns(id);
  }

  /** Pending command approvals, oldest first (for `tasklane.approve` without an id). */
  async pending(): Promise<CommandApproval[]> {
    return this.service.pending();
  }

  /** As an owner of the palette's approve/reject: its oldest pending command. */
  async oldestPending(): Promise<CommandApproval | undefined> {
    return (await this.pending())[0];
  }

  /** Runs the approved command; resolves with its result once the task has been woken. */
  approve(id: string): Promise<CommandResult> {
    return this.service.approve(id);
  }

  reject(id: string, reason?: string): Promise<void> {
    return this.service.reject(id, reason);
  }

  /** A decision from the sidebar; a refusal throws, so the reply to its request says why (the thread rolls back). */
  async handle(message: ApprovalWebviewMessage): Promise<void> {
    if (message.type === 'approval.approve') await this.approve(message.id);
    else if (message.type === 'approval.reject') await this.reject(message.id, message.reason);
  }
}

/**
 * One approvals list for several owners (change sets, commands): lists them all, oldest first,
 * and routes each message to the section that owns its id. The first section is the fallback.
 */
export function combineApprovalSections(...sections: OwnedApprovalSection[]): OwnedApprovalSection {
  return {
    async list() {
      return (await Promise.all(sections.map((s) => s.list()))).flat().sort((a, b) => a.createdAt - b.createdAt);
    },
    async owns(id) {
      for (const s of sections) if (await s.owns(id)) return true;
      return false;
    },
    async handle(message) {
      for (const s of sections) if (await s.owns(message.id)) return s.handle(message);
      return sections[0]?.handle(message);
    },
  };
}

/**
 * Internal commands (not in the palette) for `tasklane.approve` / `tasklane.reject` to delegate to
 * when the id is a command approval, and for host tests: `tasklane.commands.pending` lists the
 * pending command approvals; approve resolves with the run's result. Each waits for the store to
 * open (`ready`).
 */
export function registerCommandApprovalCommands(ready: Promise<CommandExecutionHost>, dialogs: ConsentDialogs): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('tasklane.commands.pending', async () => (await ready).pending()),
    vscode.commands.registerCommand('tasklane.commands.approve', async (id: string) => {
      const host = await ready;
      // Any extension can call this with an id: the person still sees the command and says yes.
      const view = (await host.list()).find((v) => v.id === id && v.status === 'pending');
      if (view && !(await confirmApproval(dialogs, view))) return undefined;
      return host.approve(id);
    }),
    vscode.commands.registerCommand('tasklane.commands.reject', async (id: string, reason?: string) => (await ready).reject(id, reason)),
  ];
}
