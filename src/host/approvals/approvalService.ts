import * as vscode from 'vscode';
import { Ledger } from '../../core/actions/ledger';
import type { ActionDef } from '../../core/actions/types';
import type { ChangeSet } from '../../core/approval/changeSet';
import { ChangeSetDecider, DecisionError } from '../../core/approval/changeSetDecider';
import { classifyChangeSet, describeOutcome } from '../../core/approval/changeSetReview';
import { DbChangeSetStore } from '../../core/approval/changeSetStore';
import type { ChangeSetStore } from '../../core/approval/changeSetStore';
import { createEditActions, summariseChangeSet } from '../../core/approval/editActions';
import { nodeFs } from '../../core/approval/nodeFs';
import { sensitiveReason } from '../../core/approval/sensitivePaths';
import type { EditPolicyOptions } from '../../core/approval/sensitivePaths';
import type { Logger } from '../../core/ports';
import { systemClock } from '../../core/ports';
import type { ApprovalHostMessage, ApprovalView, ApprovalWebviewMessage } from '../../shared/approvalProtocol';
import type { OwnedApprovalSection } from '../execution/commandHost';
import type { RuntimeBase, RuntimeExtension } from '../runtime';
import { ProposalDocuments } from './proposalDocuments';
import { VsCodeEditApplier, VsCodeWorkspaceFiles } from './vscodeEdits';

/** Decided cards kept in the sidebar (newest), so the user sees what happened to each. */
const RECENT_DECIDED = 5;

/** What `tasklane.approve` / `tasklane.reject` return (for scripts and tests). */
export interface ApprovalResult {
  id: string;
  status: string;
  reason?: string;
  /** Set when the decision could not be carried out; the set stays as it was. */
  error?: string;
}

interface Parts {
  store: ChangeSetStore;
  decider: ChangeSetDecider;
  documents: ProposalDocuments;
  taskSource: (taskId: string) => string | undefined;
}

/** Tasklane's edit policy settings, read fresh at each use. */
export function readEditPolicy(): EditPolicyOptions {
  return { autoApproveEdits: vscode.workspace.getConfiguration('tasklane.approval').get<boolean>('autoApproveEdits', false) };
}

const RESTRICTED = 'The workspace is in Restricted Mode: Tasklane can talk but not edit files. Tell the user; they can trust the folder (Manage Workspace Trust) and ask again.';

/**
 * Approval-gated edits in the VS Code host: builds the edit actions once the store is open, keeps
 * the sidebar's approval cards (pending and recently decided) and carries out the user's
 * decisions from the sidebar and the palette.
 */
export class ApprovalService implements OwnedApprovalSection, RuntimeExtension, vscode.Disposable {
  private current: Parts | undefined;
  private resolveParts!: (parts: Parts) => void;
  private readonly parts = new Promise<Parts>((resolve) => (this.resolveParts = resolve));
  private readonly recent: ApprovalView[] = [];
  private readonly listeners = new Set<(message: ApprovalHostMessage) => void>();

  constructor(private readonly logger: Logger) {}

  /** RuntimeExtension: called once the store is open; the actions go to the agent. */
  actions(base: RuntimeBase): ActionDef[] {
    const root = base.workspaceRoot;
    if (!root) return []; // no folder open: nothing to edit
    const files = new VsCodeWorkspaceFiles(root);
    const store = new DbChangeSetStore(base.db, systemClock);
    const documents = new ProposalDocuments(vscode.Uri.file(base.storageDir), (id) => store.load(id));
    const decider = new ChangeSetDecider({
      store,
      files,
      applier: new VsCodeEditApplier(files),
      ledger: new Ledger(base.db, systemClock),
      durable: () => base.db.durable,
      triggers: base.triggers,
      logger: this.logger,
      onChange: (changeSet) => this.publish(changeSet),
    });
    const parts: Parts = { store, decider, documents, taskSource: base.taskSource };
    this.current = parts;
    this.resolveParts(parts);
    return createEditActions({
      root: root.fsPath,
      fs: nodeFs,
      // Windows and macOS (by default) ignore case: `.VSCODE/settings.json` is `.vscode/settings.json` there.
      caseInsensitive: process.platform !== 'linux',
      files,
      store,
      decider,
      clock: systemClock,
      policy: readEditPolicy,
      taskSource: base.taskSource,
      editBlocked: () => (vscode.workspace.isTrusted ? undefined : RESTRICTED),
      onProposed: (changeSet) => this.publish(changeSet),
    });
  }

  async owns(id: string): Promise<boolean> {
    return (await this.current?.store.load(id)) !== undefined || this.recent.some((v) => v.id === id);
  }

  /** The oldest pending change set, for the palette commands without an id. */
  async oldestPending(): Promise<{ id: string; createdAt: number } | undefined> {
    return this.current?.store.oldestPending();
  }

  /** Card patches and removals for the sidebar. */
  onDidChange(listener: (message: ApprovalHostMessage) => void): vscode.Disposable {
    this.listeners.add(listener);
    return new vscode.Disposable(() => this.listeners.delete(listener));
  }

  /** Pending sets (oldest first), then the recently decided ones. */
  async list(): Promise<ApprovalView[]> {
    const parts = this.current;
    if (!parts) return [];
    const pending = await parts.store.list({ status: 'pending' });
    return [...pending.map((s) => this.view(s, parts)), ...this.recent];
  }

  async handle(message: ApprovalWebviewMessage): Promise<undefined> {
    try {
      switch (message.type) {
        case 'approval.approve':
          await this.approve(message.id);
          break;
        case 'approval.reject':
          await this.reject(message.id, message.reason);
          break;
        case 'approval.openDiff': {
          const parts = await this.parts;
          const changeSet = await parts.store.load(message.id);
          if (!changeSet) throw new DecisionError(`There is no proposed change ${message.id} any more.`);
          await parts.documents.open(changeSet, message.path);
          break;
        }
        case 'approval.decideFile':
          await (await this.parts).decider.decideFile(message.id, message.path, message.decision);
          break;
      }
    } catch (error) {
      void vscode.window.showErrorMessage(`Tasklane: ${(error as Error).message}`);
      this.logger.warn('HOST', `${message.type} failed: ${(error as Error).message}`);
    }
    return undefined;
  }

  /** Approves `id`, or the oldest pending set. Undefined when nothing is pending. */
  async approve(id?: string): Promise<ApprovalResult | undefined> {
    const parts = await this.parts;
    const target = await this.target(parts, id, 'approve');
    if (!target) return undefined;
    try {
      if (!vscode.workspace.isTrusted) throw new DecisionError('Restricted Mode: trust this folder (Manage Workspace Trust) before applying edits.');
      const final = await parts.decider.approve(target.id, { proposedEdits: await parts.documents.edits(target) });
      if (final.status === 'stale') void vscode.window.showWarningMessage(`Tasklane: nothing was applied. ${final.reason ?? ''} The task was told and can propose again.`);
      await this.settled(final, parts);
      return { id: final.id, status: final.status, reason: final.reason };
    } catch (error) {
      return this.failed(target.id, error);
    }
  }

  /** Rejects `id`, or the oldest pending set; the reason goes to the task. */
  async reject(id?: string, reason?: string): Promise<ApprovalResult | undefined> {
    const parts = await this.parts;
    const target = await this.target(parts, id, 'reject');
    if (!target) return undefined;
    try {
      const final = await parts.decider.reject(target.id, reason);
      await this.settled(final, parts);
      return { id: final.id, status: final.status, reason: final.reason };
    } catch (error) {
      return this.failed(target.id, error);
    }
  }

  private async target(parts: Parts, id: string | undefined, verb: string): Promise<ChangeSet | undefined> {
    const found = id ? await parts.store.load(id) : await parts.store.oldestPending();
    if (!found) void vscode.window.showInformationMessage(id ? `Tasklane: there is no proposed change ${id} to ${verb}.` : `Tasklane: there is no proposed change to ${verb}.`);
    return found;
  }

  private failed(id: string, error: unknown): ApprovalResult {
    const message = (error as Error).message;
    void vscode.window.showErrorMessage(`Tasklane: ${message}`);
    this.logger.warn('HOST', `decision on ${id} failed: ${message}`);
    return { id, status: 'error', error: message };
  }

  /** A decided set: shown as a recent card, its proposal files removed, its row dropped (the ledger and the task's stream keep the outcome). */
  private async settled(changeSet: ChangeSet, parts: Parts): Promise<void> {
    const view = this.view(changeSet, parts);
    const at = this.recent.findIndex((v) => v.id === view.id);
    if (at >= 0) this.recent.splice(at, 1);
    this.recent.push(view);
    while (this.recent.length > RECENT_DECIDED) {
      const dropped = this.recent.shift() as ApprovalView;
      this.emit({ type: 'approvalRemoved', id: dropped.id });
    }
    this.emit({ type: 'approvalPatch', approval: view });
    await parts.documents.discard(changeSet.id).catch((e) => this.logger.warn('HOST', `could not clean up the proposal files of ${changeSet.id}: ${(e as Error).message}`));
    await parts.store.delete(changeSet.id).catch((e) => this.logger.warn('STORE', `could not drop decided change set ${changeSet.id}: ${(e as Error).message}`));
  }

  private publish(changeSet: ChangeSet): void {
    if (this.current) this.emit({ type: 'approvalPatch', approval: this.view(changeSet, this.current) });
  }

  private emit(message: ApprovalHostMessage): void {
    for (const listener of this.listeners) listener(message);
  }

  private view(changeSet: ChangeSet, parts: Parts): ApprovalView {
    const source = parts.taskSource(changeSet.taskId);
    const choreId = source?.startsWith('chore:') ? source.slice('chore:'.length) : undefined;
    const pending = changeSet.status === 'pending';
    const classification = classifyChangeSet(changeSet, readEditPolicy());
    const asks = [classification.decision === 'ask' ? classification.reason : undefined, choreId ? 'chore runs never write unattended' : undefined].filter(Boolean);
    return {
      id: changeSet.id,
      taskId: changeSet.taskId,
      sessionId: changeSet.sessionId,
      kind: 'edits',
      title: `Edit ${summariseChangeSet(changeSet).replace(/:.*$/, '')}`,
      status: changeSet.status,
      files: changeSet.files.map((f) => {
        const sensitive = sensitiveReason(f.path) ?? (f.newPath !== undefined ? sensitiveReason(f.newPath) : undefined);
        return {
          path: f.path,
          kind: f.kind,
          ...(f.newPath !== undefined ? { newPath: f.newPath } : {}),
          added: f.added,
          removed: f.removed,
          ...(f.decision ? { decision: f.decision } : {}),
          ...(sensitive ? { sensitive } : {}),
        };
      }),
      ...(pending ? (asks.length ? { reason: `Asks because: ${asks.join('; ')}` } : {}) : { reason: describeOutcome(changeSet) }),
      ...(choreId ? { choreId } : {}),
      createdAt: changeSet.createdAt,
    };
  }

  dispose(): void {
    this.current?.documents.dispose();
    this.listeners.clear();
  }
}
