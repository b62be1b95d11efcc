import * as vscode from 'vscode';
import { notice } from '../notice';
import type { Ledger } from '../../core/actions/ledger';
import type { ChangeSet } from '../../core/approval/changes/changeSet';
import type { ChangeSetDecider } from '../../core/approval/changes/changeSetDecider';
import { DecisionError, PERSON_PROPOSAL_PREFIX } from '../../core/approval/changes/changeSetDecider';
import { APPLIED_STATUSES } from '../../core/approval/changes/checkpoints';
import type { ChangeSetStore } from '../../core/approval/changes/changeSetStore';
import type { EditApplier } from '../../core/approval/changes/editPorts';
import { proposeChangeSet } from '../../core/approval/changes/proposeChangeSet';
import type { Clock, Logger } from '../../core/ports';
import type { EngineChangeSets } from '../../core/createEngine';
import type { ApprovalHostMessage, ApprovalView, ApprovalWebviewMessage } from '../../shared/approvalProtocol';
import type { OwnedApprovalSection } from '../execution/commandHost';
import type { TasklaneSettings } from '../settings';
import { toEditApprovalView } from './approvalViews';
import { ProposalDocuments } from './proposalDocuments';
import { revertChangeSets } from './revert';
import type { RevertResult } from './revert';
import type { UriReader } from './vscodeEdits';
import type { TaskEdits } from '../../core/approval/changes/revertibleTasks';

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

/** What the approval service presents, once the engine exists (src/host/storeServices.ts). */
export interface ApprovalServiceDeps {
  /** The engine's change sets: proposals, their decider, every change. */
  changeSets: EngineChangeSets;
  /** Where an approved set is written (the editor's buffers); Undo writes through it too. */
  applier: EditApplier;
  ledger: Ledger;
  clock: Clock;
  logger: Logger;
  /** Workspace Trust, read at each use (trust granted later applies without a reload). */
  trusted: () => boolean;
  /** False while the agent's state cannot be committed: nothing is reverted then. */
  durable: () => boolean;
  /** The chore a task works for (itself or by descent); its proposals never apply unattended. */
  taskChore: (taskId: string) => string | undefined;
  /** Where the edit policy is read (user settings only). */
  settings: Pick<TasklaneSettings, 'editPolicy'>;
  /** Where saved edits of the proposals' right sides are kept (`proposals/<set id>/…`). */
  storageDir: string;
  /** Where the workspace's files are read and written (the first folder; the storage folder when none is open). */
  root: vscode.Uri;
  /** The one reading of the workspace (unsaved editor text included), the same the read actions use. */
  files: UriReader;
  /** Puts a line in a task's stream (what the person reverted). */
  tellTask?: (taskId: string, text: string, shown: string) => Promise<void>;
}

/** Why the edit actions refuse in Restricted Mode, written for the model. */
export const EDITS_RESTRICTED =
  'The workspace is in Restricted Mode: Tasklane can talk but not edit files. Tell the user; they can trust the folder (Manage Workspace Trust) and ask again.';

/**
 * Approval-gated edits in the VS Code host: the change-set store, the editable diff documents and
 * the decider, built complete on the open store; keeps the sidebar's approval cards (pending and
 * recently decided), carries out the user's decisions from the sidebar and the palette, and makes
 * the edit actions for the agent.
 */
export class ApprovalService implements OwnedApprovalSection, vscode.Disposable {
  private readonly store: ChangeSetStore;
  private readonly files: UriReader;
  private readonly documents: ProposalDocuments;
  private readonly decider: ChangeSetDecider;
  private readonly applier: EditApplier;
  private readonly subscription: { dispose(): void };
  private readonly recent: ApprovalView[] = [];
  private readonly listeners = new Set<(message: ApprovalHostMessage) => void>();

  constructor(private readonly deps: ApprovalServiceDeps) {
    this.files = deps.files;
    this.applier = deps.applier;
    this.store = deps.changeSets.store;
    this.decider = deps.changeSets.decider;
    const store = this.store;
    this.documents = new ProposalDocuments(vscode.Uri.file(deps.storageDir), (id) => store.load(id));
    this.subscription = deps.changeSets.onDidChange((changeSet) => this.publish(changeSet));
  }

  /** The proposed sides of the diffs (`tasklane-proposed:`), for the activation shim to register. */
  get proposedFiles(): vscode.FileSystemProvider {
    return this.documents.files;
  }

  async owns(id: string): Promise<boolean> {
    return (await this.store.load(id)) !== undefined || this.recent.some((v) => v.id === id);
  }

  /**
   * Opens a proposal's diff (its first file) as its card's first file does, when it still waits;
   * otherwise says what became of it. Undefined when there is no such proposal (approval links).
   */
  async openProposal(id: string): Promise<{ opened: true } | { opened: false; status: string } | undefined> {
    const changeSet = await this.store.load(id);
    if (!changeSet) {
      const recent = this.recent.find((v) => v.id === id);
      return recent ? { opened: false, status: recent.status } : undefined;
    }
    if (changeSet.status !== 'pending') return { opened: false, status: changeSet.status };
    const first = changeSet.files[0];
    if (first) await this.documents.open(changeSet, first.path);
    return { opened: true };
  }

  /**
   * The pending change set a diff editor shows (`uri` is either side of one of its diffs), for
   * the diff's title bar; else why there is none, in words for the person.
   */
  async shownIn(uri: vscode.Uri): Promise<{ id: string } | { refused: string }> {
    const id = this.documents.changeSetIdOf(uri);
    if (!id) return { refused: 'this editor does not show a change a task proposed; open one with Open diff on its card.' };
    const changeSet = await this.store.load(id);
    if (changeSet?.status === 'pending') return { id };
    const decided = changeSet?.status ?? this.recent.find((v) => v.id === id)?.status;
    return {
      refused: decided
        ? `the proposed change ${id} was already decided (${decided.replace('_', ' ')}); there is nothing to approve or reject.`
        : `there is no proposed change ${id} waiting for a decision any more.`,
    };
  }

  /** Where the title bar reads each pending proposal's diff (its right side), for Approve/Reject there. */
  async pendingSides(): Promise<string[]> {
    return (await this.store.list({ status: 'pending' })).flatMap((changeSet) => this.documents.shownSides(changeSet));
  }

  /** The oldest pending change set, for the palette commands without an id. */
  async oldestPending(): Promise<{ id: string; createdAt: number } | undefined> {
    return this.store.oldestPending();
  }

  /** Card patches and removals for the sidebar. */
  onDidChange(listener: (message: ApprovalHostMessage) => void): vscode.Disposable {
    this.listeners.add(listener);
    return new vscode.Disposable(() => this.listeners.delete(listener));
  }

  /** Pending sets (oldest first), then the recently decided ones. */
  async list(): Promise<ApprovalView[]> {
    const pending = await this.store.list({ status: 'pending' });
    return [...pending.map((s) => this.view(s)), ...this.recent];
  }

  /**
   * A gesture from the sidebar. A refused Approve or Reject (decided elsewhere, gone, a check
   * failed) throws: the reply to the request carries the reason, and the thread, which showed the
   * decision at once, takes it back and says why. Other gestures' failures are notifications.
   */
  async handle(message: ApprovalWebviewMessage): Promise<void> {
    try {
      switch (message.type) {
        case 'approval.approve':
          await this.approve(message.id);
          break;
        case 'approval.reject':
          await this.reject(message.id, message.reason);
          break;
        case 'approval.openDiff': {
          const changeSet = await this.store.load(message.id);
          if (!changeSet) throw new DecisionError(`There is no proposed change ${message.id} any more.`);
          await this.documents.open(changeSet, message.path);
          break;
        }
        case 'approval.revert':
          await this.revertChangeSet(message.id);
          break;
        case 'approval.revertTask':
          await this.revertTask(message.id);
          break;
        case 'approval.decideFile':
          await this.decider.decideFile(message.id, message.path, message.decision);
          break;
      }
    } catch (error) {
      this.deps.logger.warn('HOST', `${message.type} failed: ${(error as Error).message}`);
      if (message.type === 'approval.approve' || message.type === 'approval.reject') throw error;
      void vscode.window.showErrorMessage(notice`Tasklane: ${(error as Error).message}`);
    }
  }

  /**
   * A change the person proposed from a reply's code block (Propose as Edit): a pending change set
   * of its own, with the same card, diff and Approve as a task's (no task waits for it). `path` is
   * workspace-relative and already through the path guard.
   */
  async proposeUserEdit(input: { sessionId: string; path: string; after: string }): Promise<string> {
    if (!this.deps.trusted()) throw new DecisionError('Restricted Mode: trust this folder (Manage Workspace Trust) before proposing edits.');
    const changeSet = await proposeChangeSet(
      {
        taskId: `${PERSON_PROPOSAL_PREFIX}${input.sessionId}`,
        sessionId: input.sessionId,
        operations: [{ op: 'write_file', path: input.path, content: input.after }],
      },
      { files: this.files, clock: this.deps.clock, caseInsensitive: process.platform !== 'linux' },
    );
    await this.store.insert(changeSet);
    this.publish(changeSet);
    return changeSet.id;
  }

  /** True when `taskId` has applied edits a revert would undo: its block offers Revert edits. */
  revertible(taskId: string): boolean {
    return this.deps.changeSets.revertible.has(taskId);
  }

  /** What is left of `taskId`'s applied edits (RevertibleTasks): what its block offers and says. */
  edits(taskId: string): TaskEdits {
    return this.deps.changeSets.revertible.edits(taskId);
  }

  /** Reverts every applied change set of `taskId` as one workspace edit (Revert Task). */
  async revertTask(taskId: string): Promise<RevertResult> {
    return this.revert(await this.store.list({ taskId, status: APPLIED_STATUSES }), `task ${taskId}`);
  }

  /** Reverts one applied change set (its card's Revert). */
  async revertChangeSet(id: string): Promise<RevertResult> {
    const found = await this.store.load(id);
    return this.revert(found ? [found] : [], `change set ${id}`);
  }

  private async revert(sets: ChangeSet[], what: string): Promise<RevertResult> {
    const { deps } = this;
    if (!deps.trusted()) {
      void vscode.window.showWarningMessage(notice`Tasklane: Restricted Mode: trust this folder (Manage Workspace Trust) before reverting edits.`);
      return { ok: false, changed: [], reason: 'Restricted Mode' };
    }
    const result = await revertChangeSets(sets, {
      store: this.store,
      read: (path) => this.files.read(path),
      applier: this.applier,
      ledger: deps.ledger,
      durable: deps.durable,
      tellTask: deps.tellTask ?? (async () => undefined),
      onChange: (changeSet) => {
        const view = this.view(changeSet);
        const at = this.recent.findIndex((v) => v.id === view.id);
        if (at >= 0) this.recent[at] = view;
        this.emit({ type: 'approvalPatch', approval: view });
      },
    });
    // Before the reply: the block drops Revert edits at the click and must not get it back from a
    // patch that is still on its way (a partial revert keeps it: other sets are still applied).
    for (const taskId of new Set(sets.map((s) => s.taskId))) await this.deps.changeSets.revertible.refresh(taskId);
    if (result.ok) {
      deps.logger.info('ACTION', `reverted ${what}: ${result.files.join(', ')}`);
      void vscode.window.showInformationMessage(notice`Tasklane: reverted ${result.files.join(', ')}. Undo (in an editor) brings the edit back.`);
    } else {
      deps.logger.warn('ACTION', `revert of ${what} refused: ${result.reason}`);
      void vscode.window.showWarningMessage(notice`Tasklane: nothing was reverted: ${result.reason}.`);
    }
    return result;
  }

  /** Approves `id`, or the oldest pending set. Undefined when nothing is pending. */
  async approve(id?: string): Promise<ApprovalResult | undefined> {
    const target = await this.target(id, 'approve');
    if (!target) return undefined;
    try {
      if (!this.deps.trusted()) throw new DecisionError('Restricted Mode: trust this folder (Manage Workspace Trust) before applying edits.');
      const final = await this.decider.approve(target.id, { proposedEdits: await this.documents.edits(target) });
      if (final.status === 'stale')
        void vscode.window.showWarningMessage(notice`Tasklane: nothing was applied. ${final.reason ?? ''} The task was told and can propose again.`);
      await this.settled(final);
      return { id: final.id, status: final.status, reason: final.reason };
    } catch (error) {
      return this.failed(target.id, error);
    }
  }

  /**
   * Cancel or Stop of a task withdraws its pending proposals, as its pending commands are
   * (commandService.ts `stopTask`): the cards show "rejected: the task was stopped".
   */
  async withdrawTask(taskId: string): Promise<void> {
    for (const changeSet of await this.store.list({ status: 'pending', taskId })) {
      try {
        await this.settled(await this.decider.withdraw(changeSet.id, 'the task was stopped'));
      } catch (error) {
        // Decided in the meantime (the person was quicker): that decision stands.
        if (!(error instanceof DecisionError)) throw error;
      }
    }
  }

  /** Rejects `id`, or the oldest pending set; the reason goes to the task. */
  async reject(id?: string, reason?: string): Promise<ApprovalResult | undefined> {
    const target = await this.target(id, 'reject');
    if (!target) return undefined;
    try {
      const final = await this.decider.reject(target.id, reason);
      await this.settled(final);
      return { id: final.id, status: final.status, reason: final.reason };
    } catch (error) {
      return this.failed(target.id, error);
    }
  }

  private async target(id: string | undefined, verb: string): Promise<ChangeSet | undefined> {
    const found = id ? await this.store.load(id) : await this.store.oldestPending();
    if (!found)
      void vscode.window.showInformationMessage(
        id ? notice`Tasklane: there is no proposed change ${id} to ${verb}.` : notice`Tasklane: there is no proposed change to ${verb}.`,
      );
    return found;
  }

  private failed(id: string, error: unknown): ApprovalResult {
    const message = (error as Error).message;
    void vscode.window.showErrorMessage(notice`Tasklane: ${message}`);
    this.deps.logger.warn('HOST', `decision on ${id} failed: ${message}`);
    return { id, status: 'error', error: message };
  }

  /** A decided set: shown as a recent card, its proposal files removed, its row dropped (the ledger and the task's stream keep the outcome). */
  private async settled(changeSet: ChangeSet): Promise<void> {
    const view = this.view(changeSet);
    const at = this.recent.findIndex((v) => v.id === view.id);
    if (at >= 0) this.recent.splice(at, 1);
    this.recent.push(view);
    while (this.recent.length > RECENT_DECIDED) {
      const dropped = this.recent.shift() as ApprovalView;
      this.emit({ type: 'approvalRemoved', id: dropped.id });
    }
    this.emit({ type: 'approvalPatch', approval: view });
    await this.documents
      .discard(changeSet.id)
      .catch((e) => this.deps.logger.warn('HOST', `could not clean up the proposal files of ${changeSet.id}: ${(e as Error).message}`));
    // Applied sets stay in the store: they are the checkpoints Revert Task and Revert undo.
    if ((APPLIED_STATUSES as readonly string[]).includes(changeSet.status)) return;
    await this.store
      .delete(changeSet.id)
      .catch((e) => this.deps.logger.warn('STORE', `could not drop decided change set ${changeSet.id}: ${(e as Error).message}`));
  }

  private publish(changeSet: ChangeSet): void {
    this.emit({ type: 'approvalPatch', approval: this.view(changeSet) });
  }

  private emit(message: ApprovalHostMessage): void {
    for (const listener of this.listeners) listener(message);
  }

  private view(changeSet: ChangeSet): ApprovalView {
    return toEditApprovalView(changeSet, this.deps.taskChore(changeSet.taskId), this.deps.settings.editPolicy());
  }

  dispose(): void {
    this.subscription.dispose();
    this.documents.dispose();
    this.listeners.clear();
  }
}
